/**
 * `StreamingQueryProgress` as Spark and Databricks print it (raw), and the normalized form the
 * engine consumes. Field names are exactly Spark's (`StreamingQueryProgress.json`).
 * The parser (src/progress/parse-progress.ts) turns any raw shape into `Progress`; everything
 * downstream of parsing works only with `Progress`.
 */

/** A raw progress object exactly as printed; untrusted, so every field is optional. */
export type RawProgress = Record<string, unknown>;

export type SourceKind =
  | 'kafka'
  | 'delta'
  | 'autoloader'
  | 'kinesis'
  | 'rate'
  | 'file'
  | 'memory'
  | 'socket'
  | 'other';

export interface SourceProgress {
  description: string;
  kind: SourceKind;
  numInputRows: number;
  inputRowsPerSecond: number | null;
  processedRowsPerSecond: number | null;
  /** Parsed offsets (objects when parseable, else the raw string; null when absent). */
  startOffset: unknown;
  endOffset: unknown;
  latestOffset: unknown;
  /** Source `metrics`, values parsed to numbers where they are numeric ("3.298816E8" → 329881600). */
  metrics: Record<string, number | string>;
}

export interface StateOperatorProgress {
  operatorName: string | null;
  numRowsTotal: number;
  numRowsUpdated: number;
  numRowsRemoved: number;
  commitTimeMs: number;
  memoryUsedBytes: number;
  numRowsDroppedByWatermark: number;
  numShufflePartitions: number | null;
  numStateStoreInstances: number | null;
  customMetrics: Record<string, number>;
}

export interface Progress {
  id: string;
  runId: string;
  name: string | null;
  /** Trigger start, epoch ms. */
  timestampMs: number;
  /** Trigger start as printed (ISO-8601). */
  timestamp: string;
  /**
   * True when the report has no usable `timestamp` (trimmed published examples): `timestampMs` is
   * then 0 and `timestamp` empty, and the engine places the batch after the previous one.
   */
  timestampMissing?: boolean;
  /** null when the report has none (Spark 2.1/2.2). */
  batchId: number | null;
  /** ms; from `batchDuration`, else `durationMs.triggerExecution`. */
  batchDurationMs: number;
  numInputRows: number;
  inputRowsPerSecond: number | null;
  processedRowsPerSecond: number | null;
  durationMs: Record<string, number>;
  eventTime: { min?: string; max?: string; avg?: string; watermark?: string };
  stateOperators: StateOperatorProgress[];
  sources: SourceProgress[];
  sink: { description: string; numOutputRows: number | null };
}

/** Where a progress came from, for messages that point at it (line numbers, table rows). */
export interface ProgressOrigin {
  line?: number;
  source?: string;
}
