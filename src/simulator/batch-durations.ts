/**
 * `durationMs` of a micro-batch: the fixed per-batch work split over the phases Spark times
 * (`latestOffset`, `getBatch`, `queryPlanning`, `walCommit`, `commitOffsets`), the data work in
 * `addBatch`, Databricks' `commitBatch` (sink-side time, inside `addBatch`) and
 * `controlBatch.REPARTITION`; keys sorted as Spark prints them.
 */

/** Shares of the fixed per-batch time; the rest (7 %) is trigger bookkeeping no key measures. */
const SHARES = { latestOffset: 0.12, getBatch: 0.01, queryPlanning: 0.3, walCommit: 0.25, commitOffsets: 0.25 };
const UNTIMED_SHARE = 0.07;

export interface BatchTimes {
  overheadMs: number;
  addBatchMs: number;
  /** Databricks `commitBatch`; omitted when null (open-source Spark). */
  commitBatchMs: number | null;
  /** `controlBatch.REPARTITION`; omitted when 0. */
  repartitionMs: number;
}

export function batchDurations(t: BatchTimes): { entries: [string, number][]; triggerExecutionMs: number } {
  const phase = (share: number) => Math.round(t.overheadMs * share);
  const latestOffset = phase(SHARES.latestOffset);
  const getBatch = phase(SHARES.getBatch);
  const queryPlanning = phase(SHARES.queryPlanning);
  const walCommit = phase(SHARES.walCommit);
  const commitOffsets = phase(SHARES.commitOffsets);
  const addBatch = Math.round(t.addBatchMs);
  const triggerExecution =
    latestOffset + getBatch + queryPlanning + walCommit + commitOffsets + addBatch + phase(UNTIMED_SHARE);
  const entries: [string, number][] = [
    ['addBatch', addBatch],
    ['commitOffsets', commitOffsets],
    ['getBatch', getBatch],
    ['latestOffset', latestOffset],
    ['queryPlanning', queryPlanning],
    ['triggerExecution', triggerExecution],
    ['walCommit', walCommit],
  ];
  if (t.commitBatchMs !== null) entries.push(['commitBatch', Math.round(t.commitBatchMs)]);
  if (t.repartitionMs > 0) entries.push(['controlBatch.REPARTITION', t.repartitionMs]);
  return { entries, triggerExecutionMs: triggerExecution };
}
