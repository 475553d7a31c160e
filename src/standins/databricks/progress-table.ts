/**
 * The in-memory Delta progress table, with the DDL's columns (listener/progress_table.sql). A row can
 * be written "late": it carries an `ingested_at` earlier than the moment it becomes visible to readers,
 * which is what a slow Delta commit or a skewed writer clock looks like to the bot.
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
  /** Simulated time at which readers start to see the row. */
  visible_at_ms: number;
}

export interface InsertProgressOptions {
  /** When the writer stamped the row (`current_timestamp()` in the listener). @defaultValue the clock's now */
  ingestedAtMs?: number;
  /** Readers see the row this long after `ingestedAtMs` (a late/out-of-order write). @defaultValue 0 */
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

  constructor(readonly name: string) {}

  /** Inserts one progress JSON; returns the stored row. Throws on JSON that is not a progress object. */
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
      visible_at_ms: ingestedMs + (options.visibleAfterMs ?? 0),
    };
    this.rows.push(row);
    return row;
  }

  /** Rows a reader sees at simulated time `nowMs`. */
  visible(nowMs: number): ProgressRow[] {
    return this.rows.filter((row) => row.visible_at_ms <= nowMs);
  }

  get size(): number {
    return this.rows.length;
  }

  /** Drops rows stamped before `beforeMs` (the stand-in's retention). */
  prune(beforeMs: number): void {
    const cutoff = beforeMs * 1_000;
    let write = 0;
    for (const row of this.rows) if (row.ingested_us >= cutoff) this.rows[write++] = row;
    this.rows.length = write;
  }
}
