/**
 * The local Databricks: a real HTTP server on loopback that speaks the endpoints StreamDoctor uses, as
 * the reference documents them (OAuth token, SQL statements, pipeline events, job runs, job settings), with
 * simulator-driven streams and faults on demand. Used by the tests, `bench:poll` and the demo.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventLog } from './event-log.js';
import { FaultInjector } from './faults.js';
import { JobRuns, type JobInfo } from './job-runs.js';
import { normalizeTableName } from './progress-statement.js';
import { ProgressTable, type InsertProgressOptions, type ProgressRow } from './progress-table.js';
import { handleAdminRoutes } from './routes/admin.js';
import { handleApiRoutes } from './routes/api.js';
import type { DatabricksState, RouteRequest } from './routes/context.js';
import { HttpError, sendJson } from './routes/http.js';
import { ScaledClock } from './scaled-clock.js';
import { StatementStore, type StatementStoreOptions } from './statement-store.js';
import { StreamDriver, type StreamOptions } from './stream-driver.js';
import { TokenIssuer, type OAuthClient } from './token-issuer.js';

export interface LocalDatabricksOptions {
  /** @defaultValue 0 (an ephemeral port) */
  port?: number;
  /** @defaultValue '127.0.0.1' */
  host?: string;
  /** Accepted personal access tokens. @defaultValue ['dapi-local-0123456789abcdef'] */
  tokens?: string[];
  /** Accepted OAuth M2M clients. @defaultValue [] */
  oauthClients?: OAuthClient[];
  /** Lifetime of issued OAuth tokens, seconds. @defaultValue 3600 */
  tokenLifetimeSec?: number;
  /** SQL warehouse ids that exist. @defaultValue [LOCAL_WAREHOUSE_ID] */
  warehouses?: string[];
  /** Progress tables that exist (`catalog.schema.table`). @defaultValue ['main.streamdoctor.streaming_progress'] */
  progressTables?: string[];
  pipelines?: { pipelineId: string; name: string }[];
  jobs?: JobInfo[];
  /** Simulated start time. @defaultValue Date.now() */
  startMs?: number;
  /** Simulated ms per real ms. @defaultValue 1 */
  speed?: number;
  /** How often streams are advanced, real ms. @defaultValue 100 */
  tickMs?: number;
  statements?: StatementStoreOptions;
  /**
   * Progress rows and pipeline events older than this (simulated time) are dropped, so a long
   * accelerated demo does not grow without bound. @defaultValue 21_600_000 (6 h)
   */
  retentionMs?: number;
  /**
   * Rows kept per progress table at most (oldest dropped first): the bound that holds whatever the
   * speed and the number of streams (6 h of a 1 s trigger is 21 600 rows per stream). @defaultValue 20_000
   */
  maxRowsPerTable?: number;
  /** Events kept per pipeline event log at most (oldest dropped first). @defaultValue 40_000 */
  maxEventsPerPipeline?: number;
}

export interface LocalDatabricksSizes {
  /** Rows held per progress table. */
  tables: Record<string, number>;
  /** Events held per pipeline. */
  pipelines: Record<string, number>;
}

export interface RequestCounts {
  total: number;
  byRoute: Record<string, number>;
}

export interface LocalDatabricks {
  url: string;
  clock: ScaledClock;
  faults: FaultInjector;
  /** Writes one progress JSON into a progress table (defaults to the first table). */
  insertProgress(json: string, options?: InsertProgressOptions & { table?: string }): ProgressRow;
  addStream(key: string, options: StreamOptions): void;
  stopStream(key: string, failure?: string): void;
  /**
   * Brings the streams up to the clock now (writes every batch that has ended, applies retention).
   * Every API read does this first, so what a reader sees depends only on the simulated clock, never
   * on when the background timer last fired.
   */
  tick(): number;
  /** What the stand-in holds (rows per table, events per pipeline), after a catch-up. */
  sizes(): LocalDatabricksSizes;
  addPipeline(pipelineId: string, name: string): void;
  appendPipelineEvent(pipelineId: string, event: Record<string, unknown>, timestampMs?: number): void;
  addJob(job: JobInfo): void;
  /** Starts a run of the job now, or at `atMs` (a run that has been going since then). */
  startRun(jobId: number, atMs?: number): number;
  endRun(runId: number, result: 'SUCCESS' | 'FAILED' | 'CANCELED' | 'TIMEDOUT', message: string): void;
  /** Expires every issued OAuth token. */
  expireTokens(): number;
  /** Revokes a personal access token: requests with it answer 403 "Invalid access token." until `restoreToken`. */
  revokeToken(pat: string): boolean;
  restoreToken(pat: string): void;
  /** Deletes a SQL warehouse: statements on it answer 404 RESOURCE_DOES_NOT_EXIST until `createWarehouse`. */
  deleteWarehouse(warehouseId: string): boolean;
  createWarehouse(warehouseId: string): void;
  /**
   * Stops a SQL warehouse that then does not come back up (no capacity, a failing start): statements on
   * it stay PENDING until `startWarehouse`, so clients time out.
   */
  stopWarehouse(warehouseId: string): void;
  startWarehouse(warehouseId: string): void;
  setStatementLatency(ms: number): void;
  requests(): RequestCounts;
  resetRequestCounts(): void;
  close(): Promise<void>;
}

const DEFAULT_PAT = 'dapi-local-0123456789abcdef';

/** The stand-in's warehouse unless told others: an id shaped as Databricks shows them (hex digits), which a watch file accepts. */
export const LOCAL_WAREHOUSE_ID = '0c7d5e2f9a1b3c46';

export async function startLocalDatabricks(options: LocalDatabricksOptions = {}): Promise<LocalDatabricks> {
  const clock = new ScaledClock(options.startMs ?? Date.now(), options.speed ?? 1);
  const faults = new FaultInjector();
  const issuer = new TokenIssuer(options.tokens ?? [DEFAULT_PAT], options.oauthClients ?? [], options.tokenLifetimeSec ?? 3600);
  const warehouses = new Set(options.warehouses ?? [LOCAL_WAREHOUSE_ID]);
  const stoppedWarehouses = new Set<string>();
  const tables = new Map<string, ProgressTable>();
  for (const name of options.progressTables ?? ['main.streamdoctor.streaming_progress']) {
    const normalized = normalizeTableName(name);
    if (!normalized) throw new Error(`invalid progress table name ${name}`);
    tables.set(normalized, new ProgressTable(normalized, options.maxRowsPerTable));
  }
  const eventLog = new EventLog(options.maxEventsPerPipeline);
  for (const pipeline of options.pipelines ?? []) eventLog.addPipeline(pipeline);
  const statements = new StatementStore(options.statements);
  let counts: RequestCounts = { total: 0, byRoute: {} };
  const sockets = new Set<import('node:net').Socket>();
  let url = '';
  const jobsHolder: { runs?: JobRuns } = {};

  const count = (route: string) => {
    counts.total += 1;
    counts.byRoute[route] = (counts.byRoute[route] ?? 0) + 1;
  };

  // What the routes (./routes/) share. Closures, not values: the job runs, the driver and the handle
  // exist only once the server listens, and `counts` is replaced on a reset.
  const state: DatabricksState = {
    clock,
    faults,
    issuer,
    warehouses,
    stoppedWarehouses,
    tables,
    eventLog,
    statements,
    jobRuns: () => jobsHolder.runs!,
    count,
    requestCounts: () => counts,
    catchUp: () => catchUp(),
    streamStatus: () => driver.status(),
    sizes: () => sizes(),
    insertProgress: (json, insert) => api.insertProgress(json, insert),
  };

  const server: Server = createServer((req, res) => {
    const parsed = new URL(req.url ?? '/', 'http://local');
    const path = parsed.pathname;
    const request: RouteRequest = { req, res, method: req.method ?? 'GET', path, params: parsed.searchParams };
    const handler = path.startsWith('/__admin/') ? handleAdminRoutes(request, state) : handleApiRoutes(request, state);
    handler.catch((error: unknown) => {
      if (res.headersSent || res.destroyed) return;
      if (error instanceof HttpError) {
        sendJson(res, error.status, { error_code: error.errorCode, message: error.message }, error.headers);
      } else {
        sendJson(res, 500, { error_code: 'INTERNAL_ERROR', message: `local Databricks failed: ${(error as Error).message}` });
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  url = `http://${options.host ?? '127.0.0.1'}:${address.port}`;
  const jobRuns = new JobRuns(url);
  jobsHolder.runs = jobRuns;
  for (const job of options.jobs ?? []) jobRuns.addJob(job);
  const driver = new StreamDriver(tables, eventLog, jobRuns);
  const retentionMs = options.retentionMs ?? 6 * 3_600_000;
  // The streams follow the simulated clock, not the timer: every read catches up first, so two reads
  // at one clock reading see the same rows, whenever the timer fired. The timer only keeps writes and
  // retention moving while nobody reads (a real-time demo).
  function catchUp(): number {
    const now = clock.now();
    let written = 0;
    try {
      written = driver.tick(now);
    } catch {
      // A faulty generator must not take the server down; its stream simply stops advancing.
    }
    for (const table of tables.values()) table.prune(now - retentionMs);
    eventLog.prune(now - retentionMs);
    return written;
  }
  function sizes(): LocalDatabricksSizes {
    return {
      tables: Object.fromEntries([...tables].map(([name, table]) => [name, table.size])),
      pipelines: Object.fromEntries(eventLog.pipelineIds().map((id) => [id, eventLog.size(id)])),
    };
  }
  const timer = setInterval(catchUp, options.tickMs ?? 100);
  timer.unref();

  const defaultTable = [...tables.keys()][0];
  const api: LocalDatabricks = {
    url,
    clock,
    faults,
    insertProgress(json, insert = {}) {
      const name = normalizeTableName(insert.table ?? defaultTable ?? '');
      const table = name ? tables.get(name) : undefined;
      if (!table) throw new Error(`unknown progress table ${insert.table ?? '(none)'}`);
      return table.insert(json, clock.now(), insert);
    },
    addStream(key, stream) {
      const table = stream.table ? (normalizeTableName(stream.table) ?? stream.table) : stream.pipelineId ? undefined : defaultTable;
      driver.add(key, { ...stream, table }, clock.now());
    },
    stopStream: (key, failure) => driver.stop(key, clock.now(), failure),
    tick: catchUp,
    sizes: () => {
      catchUp();
      return sizes();
    },
    addPipeline: (pipelineId, name) => eventLog.addPipeline({ pipelineId, name }),
    appendPipelineEvent: (pipelineId, event, timestampMs) => {
      eventLog.append(pipelineId, event, timestampMs ?? clock.now());
    },
    addJob: (job) => jobRuns.addJob(job),
    startRun: (jobId, atMs) => jobRuns.startRun(jobId, atMs ?? clock.now()).run_id,
    endRun: (runId, result, message) => {
      jobRuns.endRun(runId, clock.now(), result, message);
    },
    expireTokens: () => issuer.expireAll(),
    revokeToken: (pat) => issuer.revoke(pat),
    restoreToken: (pat) => issuer.allow(pat),
    deleteWarehouse: (warehouseId) => warehouses.delete(warehouseId),
    createWarehouse: (warehouseId) => {
      warehouses.add(warehouseId);
    },
    stopWarehouse: (warehouseId) => {
      stoppedWarehouses.add(warehouseId);
    },
    startWarehouse: (warehouseId) => {
      stoppedWarehouses.delete(warehouseId);
    },
    setStatementLatency: (ms) => statements.setLatency(ms),
    requests: () => ({ total: counts.total, byRoute: { ...counts.byRoute } }),
    resetRequestCounts: () => {
      counts = { total: 0, byRoute: {} };
    },
    close: async () => {
      clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return api;
}
