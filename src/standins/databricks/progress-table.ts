/**
 * The in-memory Delta progress table, with the DDL's columns (listener/progress_table.sql). As in Delta,
 * a row is visible once its write commits, whatever its `ingested_at` says: that is the writer's own
 * clock, so it may lie behind the commit (a slow commit) or ahead of it (a fast clock). A commit can be
 * made slow (`visibleAfterMs`), which is what a late row looks like to the bot.
 */

export interface ProgressRow {
  query_id: string;
  run_id: string;
  query_name: string | null;
  batch_id: number | null;
  /** Trigger start of the batch (the progress `timestamp`), epoch ms. */
  event_time_ms: number | null;
  /** Microseconds since epoch, as Delta stores a TIMESTAMP. */
  ingested_us: number;
  progress_json: string;
  /** Simulated time at which readers start to see the row: its commit, never its `ingested_at`. */
  visible_at_ms: number;
}

export interface InsertProgressOptions {
  /** When the writer stamped the row (`current_timestamp()` in the listener). @defaultValue the clock's now */
  ingestedAtMs?: number;
  /**
   * The commit lands this long after the insert (a slow Delta commit: readers see the row late, and
   * out of order with rows written after it). @defaultValue 0
   */
  visibleAfterMs?: number;
  /**
   * Column values written as given instead of extracted from the JSON, which then need not parse (a
   * faulty writer). @defaultValue extracted from the JSON
   */
  columns?: { query_id: string; run_id: string; query_name?: string | null; batch_id?: number | null };
}

export class ProgressTable {
  private readonly rows: ProgressRow[] = [];
  private lastIngestedUs = 0;
  /** Oldest `ingested_us` held (Infinity when empty), so a prune with nothing to drop costs nothing. */
  private oldestUs = Number.POSITIVE_INFINITY;

  /**
   * @param maxRows rows kept at most; beyond it the oldest-stamped rows are dropped, so a fast
   * stream at real-time speed cannot grow the table without bound. @defaultValue 20_000
   */
  constructor(
    readonly name: string,
    private readonly maxRows = 20_000,
  ) {
    if (!(maxRows >= 1) || !Number.isInteger(maxRows)) throw new RangeError(`maxRows must be a positive integer, got ${maxRows}`);
  }

  /**
   * Inserts one progress JSON, written at `nowMs` (the commit starts then); returns the stored row.
   * Throws on JSON that is not a progress object.
   */
  insert(progressJson: string, nowMs: number, options: InsertProgressOptions = {}): ProgressRow {
    let progress: Record<string, unknown>;
    if (options.columns) {
      const { query_id, run_id, query_name, batch_id } = options.columns;
      progress = { id: query_id, runId: run_id, name: query_name ?? null, batchId: batch_id ?? null };
    } else {
      progress = JSON.parse(progressJson) as Record<string, unknown>;
      if (!progress || typeof progress !== 'object' || typeof progress.id !== 'string' || typeof progress.runId !== 'string') {
        throw new TypeError('a progress row needs a StreamingQueryProgress JSON object with string "id" and "runId"');
      }
    }
    const ingestedMs = options.ingestedAtMs ?? nowMs;
    // Distinct microsecond stamps for rows written in the same ms, like separate Delta commits.
    let ingestedUs = Math.floor(ingestedMs) * 1_000;
    if (options.ingestedAtMs === undefined && ingestedUs <= this.lastIngestedUs) ingestedUs = this.lastIngestedUs + 1;
    this.lastIngestedUs = Math.max(this.lastIngestedUs, ingestedUs);
    const row: ProgressRow = {
      query_id: String(progress.id),
      run_id: String(progress.runId),
      query_name: typeof progress.name === 'string' ? progress.name : null,
      batch_id: typeof progress.batchId === 'number' ? progress.batchId : null,
      event_time_ms: typeof progress.timestamp === 'string' && Number.isFinite(Date.parse(progress.timestamp)) ? Date.parse(progress.timestamp) : null,
      ingested_us: ingestedUs,
      progress_json: progressJson,
      // Keyed to the commit, not to ingested_at: a writer with a fast clock stamps rows in the future,
      // and real Delta still shows them as soon as they commit.
      visible_at_ms: nowMs + Math.max(0, options.visibleAfterMs ?? 0),
    };
    this.rows.push(row);
    this.oldestUs = Math.min(this.oldestUs, ingestedUs);
    if (this.rows.length > this.maxRows) this.dropOldest(this.rows.length - this.maxRows);
    return row;
  }

  /** Every row held, visible or not, in insertion order (read-only: for a single pass). */
  allRows(): readonly ProgressRow[] {
    return this.rows;
  }

  /** Rows a reader sees at simulated time `nowMs`. */
  visible(nowMs: number): ProgressRow[] {
    return this.rows.filter((row) => row.visible_at_ms <= nowMs);
  }

  get size(): number {
    return this.rows.length;
  }

  /** Drops rows stamped before `beforeMs` (the stand-in's retention). Returns how many. */
  prune(beforeMs: number): number {
    const cutoff = beforeMs * 1_000;
    if (this.oldestUs >= cutoff) return 0;
    const before = this.rows.length;
    let write = 0;
    let oldest = Number.POSITIVE_INFINITY;
    for (const row of this.rows) {
      if (row.ingested_us < cutoff) continue;
      this.rows[write++] = row;
      oldest = Math.min(oldest, row.ingested_us);
    }
    this.rows.length = write;
    this.oldestUs = oldest;
    return before - write;
  }

  /** Drops the `count` rows with the oldest stamps (ties: first inserted first). */
  private dropOldest(count: number): void {
    // Batch the work: when over the cap, drop a tenth more than needed, so inserts stay O(1) amortized.
    const drop = Math.min(this.rows.length, count + Math.floor(this.maxRows / 10));
    const order = this.rows.map((row, index) => ({ us: row.ingested_us, index }));
    order.sort((a, b) => a.us - b.us || a.index - b.index);
    const dropped = new Set(order.slice(0, drop).map((entry) => entry.index));
    let write = 0;
    let oldest = Number.POSITIVE_INFINITY;
    for (let index = 0; index < this.rows.length; index += 1) {
      if (dropped.has(index)) continue;
      const row = this.rows[index]!;
      this.rows[write++] = row;
      oldest = Math.min(oldest, row.ingested_us);
    }
    this.rows.length = write;
    this.oldestUs = oldest;
  }
}
