/**
 * The local Databricks: a real HTTP server on loopback that speaks the endpoints StreamDoctor uses, as
 * the reference documents them (OAuth token, SQL statements, pipeline events, job runs, job settings), with
 * simulator-driven streams and faults on demand. Used by the tests, `bench:poll` and the demo.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventLog } from './event-log.js';
import { FilterError } from './event-filter.js';
import { FaultInjector, isFaultRule, type FaultRule } from './faults.js';
import { JobRuns, type JobInfo } from './job-runs.js';
import { evaluateStatement, normalizeTableName } from './progress-statement.js';
import { ProgressTable, type InsertProgressOptions, type ProgressRow } from './progress-table.js';
import { ScaledClock } from './scaled-clock.js';
import { sqlFailure } from './sql-errors.js';
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
  /** SQL warehouse ids that exist. @defaultValue ['local-warehouse'] */
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
  /** Revokes a personal access token: requests with it answer 401 until `restoreToken`. */
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
const MAX_BODY = 17 * 1024 * 1024;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new HttpError(413, 'INVALID_PARAMETER_VALUE', 'Request body too large.'));
        req.destroy();
        return;
      }
      parts.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function parseJsonBody(text: string): Record<string, unknown> {
  if (!text.trim()) return {};
  try {
    const value = JSON.parse(text) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new HttpError(400, 'MALFORMED_REQUEST', 'Could not parse request object: the body is not a JSON object.');
}

function intParam(params: URLSearchParams, name: string): number | undefined {
  const value = params.get(name);
  if (value === null || value === '') return undefined;
  if (!/^-?\d+$/.test(value)) throw new HttpError(400, 'INVALID_PARAMETER_VALUE', `Invalid value for parameter ${name}: '${value}' is not an integer.`);
  return Number(value);
}

function boolParam(params: URLSearchParams, name: string): boolean {
  const value = params.get(name);
  return value === 'true' || value === 'True' || value === '1';
}

function waitTimeoutMs(value: unknown): number {
  if (value === undefined) return 10_000;
  const match = typeof value === 'string' ? /^(\d+)s$/.exec(value) : null;
  const seconds = match ? Number(match[1]) : NaN;
  if (!(seconds === 0 || (seconds >= 5 && seconds <= 50))) {
    throw new HttpError(400, 'INVALID_PARAMETER_VALUE', `wait_timeout must be 0s or between 5s and 50s; got ${JSON.stringify(value)}.`);
  }
  return seconds * 1_000;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function startLocalDatabricks(options: LocalDatabricksOptions = {}): Promise<LocalDatabricks> {
  const clock = new ScaledClock(options.startMs ?? Date.now(), options.speed ?? 1);
  const faults = new FaultInjector();
  const issuer = new TokenIssuer(options.tokens ?? [DEFAULT_PAT], options.oauthClients ?? [], options.tokenLifetimeSec ?? 3600);
  const warehouses = new Set(options.warehouses ?? ['local-warehouse']);
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

  async function handleApi(req: IncomingMessage, res: ServerResponse, path: string, params: URLSearchParams): Promise<void> {
    const method = req.method ?? 'GET';
    const statementSubmit = method === 'POST' && path === '/api/2.0/sql/statements';
    const fault = faults.take(method, path, statementSubmit);
    if (fault) {
      count(`fault ${fault.kind}`);
      if (fault.kind === 'rate_limit') {
        throw new HttpError(429, 'REQUEST_LIMIT_EXCEEDED', 'Too many requests. Please wait a moment and try again.', {
          'Retry-After': String(fault.retryAfterSec ?? 1),
        });
      }
      if (fault.kind === 'unavailable') {
        throw new HttpError(
          503,
          'TEMPORARILY_UNAVAILABLE',
          'The service is temporarily unavailable.',
          fault.retryAfterSec !== undefined ? { 'Retry-After': String(fault.retryAfterSec) } : {},
        );
      }
      if (fault.kind === 'server_error') throw new HttpError(500, 'INTERNAL_ERROR', 'Internal error.');
      if (fault.kind === 'reset') {
        req.socket.destroy();
        return;
      }
      if (fault.kind === 'malformed') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end('<html><body>upstream proxy error</bo');
        return;
      }
      if (fault.kind === 'slow') await sleep(fault.delayMs ?? 2_000);
    }

    if (path === '/oidc/v1/token' && method === 'POST') {
      count('POST /oidc/v1/token');
      const form = new URLSearchParams(await readBody(req));
      if (form.get('grant_type') !== 'client_credentials') {
        sendJson(res, 400, { error: 'unsupported_grant_type', error_description: 'grant_type must be client_credentials' });
        return;
      }
      const token = issuer.issue(req.headers.authorization);
      if (!token) {
        sendJson(res, 401, { error: 'invalid_client', error_description: 'Client authentication failed' });
        return;
      }
      sendJson(res, 200, token);
      return;
    }

    if (!issuer.accepts(req.headers.authorization)) {
      count('401');
      throw new HttpError(401, 'UNAUTHENTICATED', 'Invalid access token.');
    }
    catchUp();

    let match: RegExpExecArray | null;
    if (path === '/api/2.0/sql/statements' && method === 'POST') {
      count('POST /api/2.0/sql/statements');
      const body = parseJsonBody(await readBody(req));
      if (typeof body.statement !== 'string' || !body.statement.trim()) {
        throw new HttpError(400, 'INVALID_PARAMETER_VALUE', 'statement is required.');
      }
      if (typeof body.warehouse_id !== 'string' || !body.warehouse_id) {
        throw new HttpError(400, 'INVALID_PARAMETER_VALUE', 'warehouse_id is required.');
      }
      if (!warehouses.has(body.warehouse_id)) {
        throw new HttpError(404, 'RESOURCE_DOES_NOT_EXIST', `SQL warehouse ${body.warehouse_id} does not exist.`);
      }
      const waitMs = waitTimeoutMs(body.wait_timeout);
      if (body.format !== undefined && body.format !== 'JSON_ARRAY') {
        throw new HttpError(400, 'INVALID_PARAMETER_VALUE', `format ${String(body.format)} is not served by the local Databricks; use JSON_ARRAY.`);
      }
      if (body.disposition !== undefined && body.disposition !== 'INLINE') {
        throw new HttpError(400, 'INVALID_PARAMETER_VALUE', `disposition ${String(body.disposition)} is not served by the local Databricks; use INLINE.`);
      }
      const parameters = Array.isArray(body.parameters) ? body.parameters : [];
      if (parameters.some((param) => !param || typeof param !== 'object' || typeof (param as { name?: unknown }).name !== 'string')) {
        throw new HttpError(400, 'INVALID_PARAMETER_VALUE', 'every parameter needs a string name.');
      }
      const evaluation = evaluateStatement(body.statement, parameters as { name: string }[], tables, clock.now());
      const rowLimit = typeof body.row_limit === 'number' ? body.row_limit : undefined;
      const byteLimit = typeof body.byte_limit === 'number' ? body.byte_limit : undefined;
      const id = statements.submit(evaluation, {
        rowLimit,
        byteLimit,
        // A stopped warehouse that does not start: the statement never leaves PENDING.
        ...(stoppedWarehouses.has(body.warehouse_id) ? { latencyMs: Number.POSITIVE_INFINITY } : {}),
        forcedFailure:
          fault?.kind === 'statement_failed'
            ? sqlFailure('INTERNAL_ERROR', 'XX000', fault.message ?? 'Query execution failed: the warehouse lost its executors.', 'INTERNAL_ERROR')
            : undefined,
      });
      const remaining = statements.remainingMs(id);
      if (remaining > 0 && waitMs > 0) await sleep(Math.min(remaining, waitMs));
      if (statements.remainingMs(id) > 0 && waitMs > 0 && body.on_wait_timeout === 'CANCEL') statements.cancel(id);
      sendJson(res, 200, statements.response(id));
      return;
    }
    if ((match = /^\/api\/2\.0\/sql\/statements\/([^/]+)$/.exec(path)) && method === 'GET') {
      count('GET /api/2.0/sql/statements/{id}');
      const response = statements.response(decodeURIComponent(match[1]!));
      if (!response) throw new HttpError(404, 'NOT_FOUND', `Statement ${match[1]} not found.`);
      sendJson(res, 200, response);
      return;
    }
    if ((match = /^\/api\/2\.0\/sql\/statements\/([^/]+)\/result\/chunks\/(\d+)$/.exec(path)) && method === 'GET') {
      count('GET /api/2.0/sql/statements/{id}/result/chunks/{n}');
      const chunk = statements.chunk(decodeURIComponent(match[1]!), Number(match[2]));
      if (!chunk) throw new HttpError(404, 'NOT_FOUND', `Chunk ${match[2]} of statement ${match[1]} not found.`);
      sendJson(res, 200, chunk);
      return;
    }
    if ((match = /^\/api\/2\.0\/sql\/statements\/([^/]+)\/cancel$/.exec(path)) && method === 'POST') {
      count('POST /api/2.0/sql/statements/{id}/cancel');
      if (!statements.cancel(decodeURIComponent(match[1]!))) throw new HttpError(404, 'NOT_FOUND', `Statement ${match[1]} not found.`);
      sendJson(res, 200, {});
      return;
    }
    if ((match = /^\/api\/2\.0\/pipelines\/([^/]+)\/events$/.exec(path)) && method === 'GET') {
      count('GET /api/2.0/pipelines/{id}/events');
      const pipelineId = decodeURIComponent(match[1]!);
      if (!eventLog.has(pipelineId)) throw new HttpError(404, 'RESOURCE_DOES_NOT_EXIST', `Pipeline ${pipelineId} does not exist.`);
      const pageToken = params.get('page_token');
      const others = [...params.keys()].filter((key) => key !== 'page_token' && key !== 'max_results');
      if (pageToken && others.length > 0) {
        throw new HttpError(400, 'INVALID_PARAMETER_VALUE', `page_token cannot be used with other parameters except max_results (got ${others.join(', ')}).`);
      }
      const maxResults = intParam(params, 'max_results') ?? 25;
      if (maxResults < 1 || maxResults > 1000) throw new HttpError(400, 'INVALID_PARAMETER_VALUE', 'max_results must be between 1 and 1000.');
      const orderBy = params.getAll('order_by');
      let asc = false;
      for (const order of orderBy) {
        const clause = /^timestamp\s+(asc|desc)$/i.exec(order.trim());
        if (!clause) throw new HttpError(400, 'INVALID_PARAMETER_VALUE', `Invalid order_by '${order}'; use 'timestamp asc' or 'timestamp desc'.`);
        asc = clause[1]!.toLowerCase() === 'asc';
      }
      try {
        sendJson(res, 200, eventLog.page(pipelineId, { filter: params.get('filter'), asc, maxResults, pageToken }));
      } catch (error) {
        if (error instanceof FilterError) throw new HttpError(400, 'INVALID_PARAMETER_VALUE', `Invalid filter: ${error.message}`);
        throw new HttpError(400, 'INVALID_PARAMETER_VALUE', (error as Error).message);
      }
      return;
    }
    if ((match = /^\/api\/2\.0\/pipelines\/([^/]+)$/.exec(path)) && method === 'GET') {
      count('GET /api/2.0/pipelines/{id}');
      const info = eventLog.info(decodeURIComponent(match[1]!));
      if (!info) throw new HttpError(404, 'RESOURCE_DOES_NOT_EXIST', `Pipeline ${match[1]} does not exist.`);
      sendJson(res, 200, { pipeline_id: info.pipelineId, name: info.name, state: 'RUNNING', health: 'HEALTHY' });
      return;
    }
    if (/^\/api\/2\.[12]\/jobs\/get$/.test(path) && method === 'GET') {
      count('GET /api/2.1/jobs/get');
      const text = params.get('job_id');
      if (text === null || text === '') throw new HttpError(400, 'INVALID_PARAMETER_VALUE', 'Missing required field: job_id');
      const jobId = intParam(params, 'job_id')!;
      const job = jobsHolder.runs!.getJob(jobId);
      if (!job) throw new HttpError(404, 'RESOURCE_DOES_NOT_EXIST', `Job ${jobId} does not exist.`);
      sendJson(res, 200, job);
      return;
    }
    if ((match = /^\/api\/2\.[12]\/jobs\/runs\/(list|get)$/.exec(path)) && method === 'GET') {
      const runs = jobsHolder.runs!;
      if (match[1] === 'get') {
        count('GET /api/2.2/jobs/runs/get');
        const runId = intParam(params, 'run_id');
        const run = runId === undefined ? undefined : runs.get(runId);
        if (!run) throw new HttpError(404, 'RESOURCE_DOES_NOT_EXIST', `Run ${params.get('run_id')} does not exist.`);
        sendJson(res, 200, run);
        return;
      }
      count('GET /api/2.2/jobs/runs/list');
      const activeOnly = boolParam(params, 'active_only');
      const completedOnly = boolParam(params, 'completed_only');
      if (activeOnly && completedOnly) {
        throw new HttpError(400, 'INVALID_PARAMETER_VALUE', 'active_only and completed_only cannot both be true.');
      }
      let limit = intParam(params, 'limit') ?? 20;
      if (limit === 0) limit = 25;
      if (limit < 0 || limit > 25) throw new HttpError(400, 'INVALID_PARAMETER_VALUE', 'limit must be between 0 and 25.');
      const jobId = intParam(params, 'job_id');
      const all = runs.list({
        jobId,
        activeOnly,
        completedOnly,
        startTimeFrom: intParam(params, 'start_time_from'),
        startTimeTo: intParam(params, 'start_time_to'),
      });
      let start = 0;
      const token = params.get('page_token');
      if (token) {
        const [, runIdText] = /^run:(\d+)$/.exec(Buffer.from(token, 'base64url').toString('utf8')) ?? [];
        if (!runIdText) throw new HttpError(400, 'INVALID_PARAMETER_VALUE', 'Invalid page_token.');
        start = all.findIndex((run) => run.run_id < Number(runIdText));
        if (start < 0) start = all.length;
      }
      const page = all.slice(start, start + limit);
      const hasMore = start + limit < all.length;
      const body: Record<string, unknown> = { has_more: hasMore };
      if (page.length) body.runs = page;
      if (hasMore) body.next_page_token = Buffer.from(`run:${page.at(-1)!.run_id}`).toString('base64url');
      sendJson(res, 200, body);
      return;
    }
    count('404');
    throw new HttpError(404, 'ENDPOINT_NOT_FOUND', `No API found for '${method} ${path}'.`);
  }

  async function handleAdmin(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const method = req.method ?? 'GET';
    if (path === '/__admin/faults') {
      if (method === 'GET') return sendJson(res, 200, { pending: faults.pending(), hits: faults.hitCounts() });
      if (method === 'DELETE') {
        faults.clear();
        return sendJson(res, 200, {});
      }
      const body = parseJsonBody(await readBody(req));
      const rules = Array.isArray(body.faults) ? body.faults : [body];
      if (!rules.every(isFaultRule)) {
        throw new HttpError(400, 'INVALID_PARAMETER_VALUE', 'each fault needs "kind": rate_limit, unavailable, server_error, slow, malformed, reset or statement_failed');
      }
      for (const rule of rules as FaultRule[]) faults.inject(rule);
      return sendJson(res, 200, { pending: faults.pending() });
    }
    if (path === '/__admin/expire-tokens' && method === 'POST') return sendJson(res, 200, { expired: issuer.expireAll() });
    if (path === '/__admin/tokens' && (method === 'POST' || method === 'DELETE')) {
      // DELETE revokes a personal access token, POST accepts it (again).
      const body = parseJsonBody(await readBody(req));
      if (typeof body.token !== 'string' || !body.token) throw new HttpError(400, 'INVALID_PARAMETER_VALUE', 'token is required.');
      if (method === 'DELETE') return sendJson(res, 200, { revoked: issuer.revoke(body.token) });
      issuer.allow(body.token);
      return sendJson(res, 200, {});
    }
    if (path === '/__admin/warehouses' && (method === 'POST' || method === 'DELETE')) {
      // DELETE deletes a SQL warehouse, POST creates it (again).
      const body = parseJsonBody(await readBody(req));
      if (typeof body.warehouse_id !== 'string' || !body.warehouse_id) throw new HttpError(400, 'INVALID_PARAMETER_VALUE', 'warehouse_id is required.');
      if (method === 'DELETE') return sendJson(res, 200, { deleted: warehouses.delete(body.warehouse_id) });
      warehouses.add(body.warehouse_id);
      return sendJson(res, 200, {});
    }
    if ((path === '/__admin/warehouses/stop' || path === '/__admin/warehouses/start') && method === 'POST') {
      const body = parseJsonBody(await readBody(req));
      if (typeof body.warehouse_id !== 'string' || !body.warehouse_id) throw new HttpError(400, 'INVALID_PARAMETER_VALUE', 'warehouse_id is required.');
      if (path.endsWith('/stop')) stoppedWarehouses.add(body.warehouse_id);
      else stoppedWarehouses.delete(body.warehouse_id);
      return sendJson(res, 200, {});
    }
    if (path === '/__admin/clock') {
      if (method === 'POST') {
        const body = parseJsonBody(await readBody(req));
        if (typeof body.speed === 'number') clock.setSpeed(body.speed);
        if (typeof body.advanceMs === 'number') clock.advance(body.advanceMs);
        catchUp();
      }
      return sendJson(res, 200, { nowMs: clock.now(), now: new Date(clock.now()).toISOString(), speed: clock.getSpeed() });
    }
    if (path === '/__admin/progress' && method === 'POST') {
      const body = parseJsonBody(await readBody(req));
      const json = typeof body.json === 'string' ? body.json : JSON.stringify(body.progress);
      try {
        const row = api.insertProgress(json, {
          table: typeof body.table === 'string' ? body.table : undefined,
          ingestedAtMs: typeof body.ingestedAtMs === 'number' ? body.ingestedAtMs : undefined,
          visibleAfterMs: typeof body.visibleAfterMs === 'number' ? body.visibleAfterMs : undefined,
        });
        return sendJson(res, 200, { query_id: row.query_id, batch_id: row.batch_id, ingested_us: row.ingested_us });
      } catch (error) {
        throw new HttpError(400, 'INVALID_PARAMETER_VALUE', (error as Error).message);
      }
    }
    if (path === '/__admin/stats' && method === 'GET') {
      catchUp();
      return sendJson(res, 200, { requests: counts, streams: driver.status(), faults: faults.hitCounts(), tokensIssued: issuer.issuedCount, sizes: sizes() });
    }
    throw new HttpError(404, 'ENDPOINT_NOT_FOUND', `No admin endpoint '${method} ${path}'.`);
  }

  const server: Server = createServer((req, res) => {
    const parsed = new URL(req.url ?? '/', 'http://local');
    const path = parsed.pathname;
    const handler = path.startsWith('/__admin/') ? handleAdmin(req, res, path) : handleApi(req, res, path, parsed.searchParams);
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
