export { LOCAL_WAREHOUSE_ID, startLocalDatabricks, type LocalDatabricks, type LocalDatabricksOptions, type RequestCounts } from './local-databricks.js';
export { ScaledClock } from './scaled-clock.js';
export { FaultInjector, type FaultKind, type FaultRule } from './faults.js';
export type { BatchGenerator, StreamOptions } from './stream-driver.js';
export { playScenario, shiftSpec, type PlayedStream, type ScenarioStreamOptions } from './scenario-streams.js';
export type { JobInfo } from './job-runs.js';
export type { ProgressRow, InsertProgressOptions } from './progress-table.js';
