/**
 * What a route gets: the request in hand and the stand-in's shared state. The state lives in
 * local-databricks.ts (the public handle mutates the same objects), the routes only read and write it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventLog } from '../event-log.js';
import type { FaultInjector } from '../faults.js';
import type { JobRuns } from '../job-runs.js';
import type { LocalDatabricks, LocalDatabricksSizes, RequestCounts } from '../local-databricks.js';
import type { ProgressTable } from '../progress-table.js';
import type { ScaledClock } from '../scaled-clock.js';
import type { StatementStore } from '../statement-store.js';
import type { StreamStatus } from '../stream-driver.js';
import type { TokenIssuer } from '../token-issuer.js';

export interface RouteRequest {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  path: string;
  params: URLSearchParams;
}

export interface DatabricksState {
  clock: ScaledClock;
  faults: FaultInjector;
  issuer: TokenIssuer;
  warehouses: Set<string>;
  stoppedWarehouses: Set<string>;
  tables: Map<string, ProgressTable>;
  eventLog: EventLog;
  statements: StatementStore;
  /** A function: the job runs need the server's URL, so they exist only once it listens. */
  jobRuns(): JobRuns;
  /** Counts a request under its route (see `requests()` on the handle). */
  count(route: string): void;
  requestCounts(): RequestCounts;
  /** Brings the streams up to the clock; every API read does this first. */
  catchUp(): number;
  streamStatus(): StreamStatus[];
  sizes(): LocalDatabricksSizes;
  insertProgress: LocalDatabricks['insertProgress'];
}
