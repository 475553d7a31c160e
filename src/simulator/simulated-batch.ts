/** What the simulator returns for each reported trigger: the progress as printed, and the truth behind it. */

import type { RawProgress } from '../progress/types.js';

/** What really happened in a reported trigger: the ground truth used to label and evaluate. */
export interface BatchTruth {
  /** 0-based position of this report in the simulator's output. */
  index: number;
  /** `data` = a micro-batch ran; `no-data` = an idle progress event. */
  kind: 'data' | 'no-data';
  batchId: number;
  runId: string;
  /** First trigger of a run (after a start or restart). */
  firstOfRun: boolean;
  /** This report repeats the previous batchId (a retry). */
  retried: boolean;
  startMs: number;
  endMs: number;
  rows: number;
  /** Nominal arrival rate λ at the trigger start, rows/s. */
  arrivalRate: number;
  /** Busy-time throughput of the query for large batches, rows/s (cores, partitions, sink, state). */
  capacityRowsPerSec: number;
  /** Highest rate the admission cap lets through (cap / max(T, d)), rows/s; null when uncapped. */
  admissionRowsPerSec: number | null;
  /** min(capacity, admission): the arrival rate above which the query loses ground. */
  sustainableRowsPerSec: number;
  /** λ / sustainable. Above 1 the query falls behind. */
  loadFactor: number;
  /** Rows arrived and not yet consumed at `endMs`. */
  backlogRows: number;
  /** Age of the oldest unread row at `endMs`, seconds (0 when nothing waits). */
  timeBehindSec: number;
  stateRows: number;
  stateBytes: number;
  gcPauseMs: number;
  repartitionMs: number;
  /** Time spent stalled inside this batch, ms. */
  stallMs: number;
}

export interface SimulatedBatch {
  /** The progress object, keys in Spark's order. */
  progress: RawProgress;
  /** `progress` as Spark's compact JSON (one JSON Lines record). */
  json: string;
  endMs: number;
  truth: BatchTruth;
}
