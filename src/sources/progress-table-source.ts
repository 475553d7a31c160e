/**
 * The main source: the Delta table the StreamDoctor listener appends progress to, read through the
 * SQL Statement Execution API. One statement per page for ALL watched queries; pages follow each other
 * by keyset until the table is drained or the per-poll bound is reached.
 */
import type { DatabricksClient } from '../databricks/databricks-client.js';
import type { QueryOptions } from '../databricks/statements-api.js';
import type { Logger } from '../observability/logger.js';
import { parseProgress } from '../progress/parse-progress.js';
import { formatDuration } from '../util/duration.js';
import { StreamDoctorError } from '../util/errors.js';
import { readProgressTableCursor, type ProgressTableCursor } from './progress-table-cursor.js';
import { PROGRESS_TABLE_COLUMNS, progressPageParameters, progressPageRequest, rowKey } from './progress-table-sql.js';
import { SeenBatches } from './seen-batches.js';
import { byTriggerTime, type PollResult, type ProgressSource, type SourcedProgress } from './source.js';

export interface WatchedQueries {
  /** Stream query ids (`StreamingQueryProgress.id`). */
  queryIds: string[];
  /** Query names, for streams configured by name. */
  queryNames: string[];
}

export interface ProgressTableSourceOptions {
  client: DatabricksClient;
  warehouseId: string;
  /** `catalog.schema.table`. */
  table: string;
  /** The watched queries, read at every poll (so a config reload takes effect). */
  watched: WatchedQueries | (() => WatchedQueries);
  /** How far behind the newest row a late row may land and still be read. @defaultValue 600_000 (10 min) */
  overlapMs?: number;
  /**
   * How often a poll reads the whole overlap window again (for rows that land late), right after a
   * poll that read the new rows (it returns `more`); the polls in between read from `recentOverlapMs`
   * behind the newest row. Reading the whole window at every poll
   * made a 10 s poll read every row about 60 times. A late row is still read exactly once: the full
   * read reaches back `overlapMs + lateReadEveryMs`, so a row no older than `overlapMs` when it
   * becomes visible is in it. 0: every poll reads the whole window.
   * @defaultValue 60_000
   */
  lateReadEveryMs?: number;
  /** What the polls between full reads read again behind the newest row (commits landing slightly out of order). @defaultValue 30_000 */
  recentOverlapMs?: number;
  /** On the first poll, read rows ingested this long ago. @defaultValue 900_000 (15 min) */
  initialLookbackMs?: number;
  /** Rows per statement (`row_limit`). @defaultValue 20_000 */
  pageRows?: number;
  /** Bytes per statement (`byte_limit`), below the 25 MiB INLINE limit. @defaultValue 24 MiB */
  pageBytes?: number;
  /** Statements per poll; beyond it the poll returns `more: true`. @defaultValue 5 */
  maxPagesPerPoll?: number;
  /** `wait_timeout` of each statement. @defaultValue '10s' */
  waitTimeout?: string;
  statement?: QueryOptions;
  /**
   * How far a row's `ingested_at` may be ahead of this process's clock before its writer's clock is
   * taken to be fast (logged once per query). The watermark never passes `now - clockSkewAllowanceMs`.
   * @defaultValue 5_000
   */
  clockSkewAllowanceMs?: number;
  /** @defaultValue Date.now */
  now?: () => number;
  logger?: Logger;
}

function column(columns: string[], name: string): number {
  const index = columns.indexOf(name);
  if (index < 0) throw new Error(`the progress-table result has no column ${name}`);
  return index;
}

export class ProgressTableSource implements ProgressSource<ProgressTableCursor> {
  readonly name = 'progress_table' as const;

  /** Watches no jobs. */
  liveness(): null {
    return null;
  }
  private readonly options: ProgressTableSourceOptions;
  /** Queries already logged as stamped ahead of our clock (one warning each per process). */
  private readonly skewReported = new Set<string>();

  constructor(options: ProgressTableSourceOptions) {
    this.options = options;
  }

  async poll(stored: ProgressTableCursor | null): Promise<PollResult<ProgressTableCursor>> {
    const warnings: string[] = [];
    const { cursor: valid, problem } = readProgressTableCursor(stored);
    if (problem) warnings.push(problem);
    const clock = this.options.now ?? Date.now;
    const now = clock();
    const allowanceMs = Math.max(0, this.options.clockSkewAllowanceMs ?? 5_000);
    // ingested_at is each writer cluster's own current_timestamp(): one fast clock must not carry the
    // watermark, and with it every later read's lower bound, past rows the other clusters are still
    // writing. So the watermark never passes our own clock (less the allowance); rows stamped ahead
    // of it keep matching the read and are read again until it passes them, and `seen` skips them.
    const trustedUs = Math.max(0, now - allowanceMs) * 1_000;
    const overlapUs = (this.options.overlapMs ?? 600_000) * 1_000;
    const watched = typeof this.options.watched === 'function' ? this.options.watched() : this.options.watched;
    const cursor: ProgressTableCursor = valid ?? {
      v: 1,
      watermarkUs: Math.max(0, now - (this.options.initialLookbackMs ?? 900_000)) * 1_000,
      resume: null,
      seen: {},
    };
    if (watched.queryIds.length === 0 && watched.queryNames.length === 0) {
      return { progress: [], signals: [], cursor, warnings, more: false };
    }

    const seen = new SeenBatches(cursor.seen);
    // Also lowers a watermark stored ahead of our clock (a cursor saved before the cap) at once.
    let watermarkUs = Math.min(cursor.watermarkUs, trustedUs);
    const lateEveryMs = Math.max(0, this.options.lateReadEveryMs ?? 60_000);
    // The window a full read covers, and whether this poll is one (an interrupted read continues at
    // its position either way).
    const fullWindowUs = overlapUs + lateEveryMs * 1_000;
    const due = lateEveryMs === 0 || cursor.lateReadAtMs === undefined || now - cursor.lateReadAtMs >= lateEveryMs || now < cursor.lateReadAtMs;
    // A poll that continues an interrupted read is not a full one (it may have started short). When a
    // full read is due, the new rows are read first and returned at once, and the full read is left to
    // the next poll (`more`: the worker runs it right away), so it never delays fresh progress.
    const deferFull = !cursor.resume && !cursor.lateNext && due && lateEveryMs > 0;
    const fullRead = !cursor.resume && (cursor.lateNext === true || (due && !deferFull));
    const windowUs = fullRead ? fullWindowUs : Math.min(overlapUs, (this.options.recentOverlapMs ?? 30_000) * 1_000);
    let position = cursor.resume ?? { afterUs: Math.max(0, watermarkUs - windowUs), afterKey: '' };
    const progress: SourcedProgress[] = [];
    const maxPages = this.options.maxPagesPerPoll ?? 5;
    let more = false;
    let duplicates = 0;
    /** Queries with rows stamped past our clock plus the allowance, and the most ahead (ms). */
    const ahead = new Map<string, number>();

    for (let page = 0; page < maxPages; page += 1) {
      const from = position;
      const result = await this.options.client.statements.query(
        progressPageRequest({
          warehouseId: this.options.warehouseId,
          parameters: progressPageParameters({ table: this.options.table, ...watched, ...position }),
          ...(this.options.waitTimeout !== undefined ? { waitTimeout: this.options.waitTimeout } : {}),
          ...(this.options.pageRows !== undefined ? { pageRows: this.options.pageRows } : {}),
          ...(this.options.pageBytes !== undefined ? { pageBytes: this.options.pageBytes } : {}),
        }),
        { ...this.options.statement, ...(this.options.logger ? { logger: this.options.logger } : {}) },
      );
      const [qi, ri, bi, ei, ii, pi] = PROGRESS_TABLE_COLUMNS.map((name) => column(result.columns, name)) as [number, number, number, number, number, number];
      // Taken after the statement: a row committed while it ran is stamped no later than this.
      const answeredAtMs = clock();
      for (const row of result.rows as unknown[]) {
        // Rows of a malformed answer are skipped one by one, never the page: the rows around them
        // are read, and the position moves past each one that has a place in the order (an
        // ingested_at); a truncated page of rows without one is caught below.
        if (!Array.isArray(row)) {
          warnings.push(`progress-table answer holds a row that is not a list of columns (${JSON.stringify(row)?.slice(0, 80)}); skipped`);
          continue;
        }
        const queryId = row[qi] ?? '';
        const runId = row[ri] ?? '';
        const batchText = row[bi];
        const ingestedText = row[ii];
        // SQL NULL (and "") is no time: Number() would read it as 1970.
        const ingestedUs = typeof ingestedText === 'string' && ingestedText.trim() !== '' ? Number(ingestedText) : Number.NaN;
        if (!Number.isFinite(ingestedUs)) {
          warnings.push(`progress row of query ${queryId} has no usable ingested_at (${String(ingestedText)}); skipped`);
          continue;
        }
        const eventText = row[ei] ?? null;
        position = { afterUs: ingestedUs, afterKey: rowKey(queryId, runId, batchText ?? null, eventText) };
        watermarkUs = Math.max(watermarkUs, Math.min(ingestedUs, trustedUs));
        const aheadMs = ingestedUs / 1_000 - answeredAtMs;
        if (aheadMs > allowanceMs) ahead.set(queryId, Math.max(ahead.get(queryId) ?? 0, aheadMs));
        // batch_id is a BIGINT: a cell that is no whole number would be kept as NaN among the
        // batches read (and saved as null, which makes the stored cursor invalid).
        if (batchText !== null && batchText !== undefined && !/^-?\d+$/.test(String(batchText).trim())) {
          warnings.push(`progress row of query ${queryId} has a batch_id that is not a whole number (${JSON.stringify(batchText).slice(0, 40)}); skipped`);
          continue;
        }
        const batchId = batchText === null || batchText === undefined ? null : Number(batchText);
        if (!seen.add(queryId, runId, batchId, Number(eventText ?? 0), ingestedUs)) {
          duplicates += 1;
          continue;
        }
        const ref = `${this.options.table} query_id=${queryId} run_id=${runId} batch_id=${batchText ?? 'null'}`;
        let raw: unknown;
        try {
          raw = JSON.parse(row[pi] ?? '');
        } catch {
          warnings.push(`${ref}: progress_json is not valid JSON; skipped`);
          continue;
        }
        const parsed = parseProgress(raw);
        if (!parsed.ok) {
          warnings.push(`${ref}: ${parsed.error}`);
          continue;
        }
        progress.push({ progress: parsed.progress, origin: { source: 'progress_table', ref }, warnings: parsed.warnings });
      }
      if (!result.truncated) {
        position = { afterUs: 0, afterKey: '' };
        more = false;
        break;
      }
      // A truncated page that did not move the position would come back the same: the read is stuck.
      if (position.afterUs === from.afterUs && position.afterKey === from.afterKey) {
        // What the pages before read is kept, and the next poll starts here and fails.
        if (page > 0) break;
        throw this.stuckRead(from, result.rows.length);
      }
      more = true;
    }

    const resume = more ? position : null;
    // Keep exactly the runs the next read can return again (the next full read reaches furthest).
    seen.prune(resume ? Math.min(resume.afterUs, watermarkUs - fullWindowUs) : watermarkUs - fullWindowUs);
    this.reportSkew(ahead, allowanceMs);
    if (duplicates > 0) this.options.logger?.debug({ duplicates }, 'progress table: rows read again inside the overlap window were skipped');
    progress.sort(byTriggerTime);
    // A full read counts once it is done (an interrupted one is asked for again later).
    const lateReadAtMs = fullRead && !more ? now : cursor.lateReadAtMs;
    const lateNext = deferFull && !more;
    return {
      progress,
      signals: [],
      cursor: { v: 1, watermarkUs, resume, seen: seen.toJSON(), ...(lateReadAtMs !== undefined ? { lateReadAtMs } : {}), ...(lateNext ? { lateNext } : {}) },
      warnings,
      more: more || lateNext,
    };
  }

  /**
   * A truncated page that moved the position nowhere: most likely the next row is larger than the
   * page byte limit, so Databricks returned none. Thrown, so the source's health says the read is
   * stuck there instead of every later row going unread in silence.
   */
  private stuckRead(at: { afterUs: number; afterKey: string }, rows: number): StreamDoctorError {
    const limit = this.options.pageBytes ?? 24 * 1024 * 1024;
    const afterUs = Math.max(0, Math.floor(at.afterUs));
    const stamp = new Date(Math.floor(afterUs / 1_000)).toISOString().replace('Z', `${String(afterUs % 1_000).padStart(3, '0')}Z`);
    const where = `after ingested_at ${stamp}${at.afterKey ? ` and row key ${at.afterKey}` : ''}`;
    // The limit and the position first: the source-health message keeps only the start.
    const what = rows === 0 ? `a progress row larger than the page byte limit (${limit} bytes)` : `a truncated page of ${rows} row(s), none with an ingested_at,`;
    const fix = `trim or delete that row in ${this.options.table}; no later row is read until then`;
    return new StreamDoctorError('streamdoctor_progress_read_stuck', `${what} stops the read ${where}; ${fix}`, { fix });
  }

  /** One warning per query whose rows come stamped ahead of our clock: its writer's clock is fast. */
  private reportSkew(ahead: Map<string, number>, allowanceMs: number): void {
    const fresh = [...ahead].filter(([queryId]) => !this.skewReported.has(queryId));
    if (fresh.length === 0) return;
    for (const [queryId] of fresh) this.skewReported.add(queryId);
    const skewMs = Math.max(...fresh.map(([, ms]) => ms));
    const queryIds = fresh.map(([queryId]) => queryId);
    this.options.logger?.warn(
      { table: this.options.table, queryIds, skewMs, allowanceMs },
      `progress table ${this.options.table}: rows of query ${queryIds.join(', ')} are stamped ${formatDuration(skewMs)} ahead of this process's clock (clock skew: the clock of the cluster writing them is fast by at least that). They are still read, each once, but each is read again at every poll until our clock passes its stamp; set that cluster's clock right (NTP)`,
    );
  }
}
