/**
 * One simulated source: it receives arriving rows, plans a batch at trigger start (admission cap
 * applied), and renders its `SourceProgress` entry exactly as Spark prints it.
 */

export interface SourceRenderContext {
  rows: number;
  /** Rates as they will be printed (undefined = omitted, not finite). */
  inputRowsPerSecond: number | undefined;
  processedRowsPerSecond: number | undefined;
  /** True on the very first batch of the query (batch 0): `startOffset` is null. */
  firstBatch: boolean;
  /** Databricks Runtime 17.1+: report latest offsets read after the batch. */
  latestAfterBatch: boolean;
  /** Databricks-only metrics (`estimatedTotalBytesBehindLatest`). */
  databricks: boolean;
  /** When the report is printed (the batch's end), epoch ms. */
  reportMs: number;
  /** Arrival time of the oldest row this batch leaves unread (truth); null when it read everything. */
  oldestUnreadAtMs: number | null;
}

export interface SimSource {
  readonly kind: 'kafka' | 'delta' | 'autoloader' | 'rate' | 'kinesis';
  readonly description: string;
  /** Spark tasks that read this source in one batch. */
  readonly inputTasks: number;
  /** Rows per source unit (1 for offsets, rows per file for files). */
  readonly rowsPerUnit: number;
  /** Admission cap in source units per batch (offsets or files); null = uncapped. */
  cap: number | null;
  /** Rows that arrived up to `timeMs`. */
  receive(rows: number, timeMs: number): void;
  /** Rows waiting that a batch could read now. */
  availableRows(timeMs: number): number;
  /** Fixes the next batch's range at trigger start; returns the rows it reads. */
  plan(timeMs: number): number;
  /** Makes the planned range consumed (the batch committed). */
  commit(): void;
  /** Rows arrived but not yet consumed (truth, including partial files). */
  backlogRows(): number;
  /** Rows arrived in total (truth). */
  arrivedRows(): number;
  /** Rows consumed in total (truth). */
  consumedRows(): number;
  render(ctx: SourceRenderContext): Record<string, unknown>;
}

/** Sorted-key object, or undefined when empty (Spark omits empty maps). */
export function sortedMap<T>(entries: [string, T][]): Record<string, T> | undefined {
  if (entries.length === 0) return undefined;
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const out: Record<string, T> = {};
  for (const [k, v] of entries) out[k] = v;
  return out;
}

/** A SourceProgress object in Spark's key order. */
export function sourceProgress(
  description: string,
  startOffset: unknown,
  endOffset: unknown,
  latestOffset: unknown,
  ctx: SourceRenderContext,
  metrics: Record<string, string> | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    description,
    startOffset,
    endOffset,
    latestOffset,
    numInputRows: ctx.rows,
  };
  if (ctx.inputRowsPerSecond !== undefined) out.inputRowsPerSecond = ctx.inputRowsPerSecond;
  if (ctx.processedRowsPerSecond !== undefined) out.processedRowsPerSecond = ctx.processedRowsPerSecond;
  if (metrics) out.metrics = metrics;
  return out;
}
