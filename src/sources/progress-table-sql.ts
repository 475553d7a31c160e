/**
 * The one statement the progress-table source sends per page: new rows of every watched query,
 * after a keyset position (ingested_at, row key), oldest first. Everything variable is a named
 * parameter (the table through `IDENTIFIER(:table)`, the id lists as JSON arrays), never
 * string-built SQL. The row key is the same expression in the filter and the ORDER BY, so pages
 * continue exactly where the last one stopped even when many rows share one ingested_at.
 */
import type { ExecuteStatementRequest, StatementParameter } from '../databricks/wire-types.js';

export const PROGRESS_TABLE_STATEMENT = [
  'SELECT query_id, run_id, batch_id, unix_millis(event_time) AS event_ms, unix_micros(ingested_at) AS ingested_us, progress_json',
  'FROM IDENTIFIER(:table)',
  "WHERE (array_contains(from_json(:query_ids, 'ARRAY<STRING>'), query_id)",
  "    OR array_contains(from_json(:query_names, 'ARRAY<STRING>'), query_name))",
  '  AND (ingested_at > timestamp_micros(:after_us)',
  "    OR (ingested_at = timestamp_micros(:after_us) AND concat_ws('/', query_id, run_id, CAST(batch_id AS STRING), CAST(unix_millis(event_time) AS STRING)) > :after_key))",
  "ORDER BY ingested_at, concat_ws('/', query_id, run_id, CAST(batch_id AS STRING), CAST(unix_millis(event_time) AS STRING))",
].join('\n');

/** Result columns, in order. */
export const PROGRESS_TABLE_COLUMNS = ['query_id', 'run_id', 'batch_id', 'event_ms', 'ingested_us', 'progress_json'] as const;

export interface ProgressPageParams {
  /** `catalog.schema.table`. */
  table: string;
  queryIds: string[];
  queryNames: string[];
  /** Keyset position: rows strictly after (afterUs, afterKey). */
  afterUs: number;
  afterKey: string;
}

/** The row key as the statement computes it (`concat_ws` skips NULLs). */
export function rowKey(queryId: string, runId: string, batchId: string | null, eventMs: string | null): string {
  return [queryId, runId, batchId, eventMs].filter((part) => part !== null && part !== undefined).join('/');
}

export function progressPageParameters(params: ProgressPageParams): StatementParameter[] {
  return [
    { name: 'table', value: params.table },
    { name: 'query_ids', value: JSON.stringify(params.queryIds) },
    { name: 'query_names', value: JSON.stringify(params.queryNames) },
    { name: 'after_us', value: String(Math.max(0, Math.floor(params.afterUs))), type: 'BIGINT' },
    { name: 'after_key', value: params.afterKey },
  ];
}

export interface ProgressPageRequestOptions {
  warehouseId: string;
  parameters: StatementParameter[];
  /** @defaultValue '10s' */
  waitTimeout?: string;
  /** @defaultValue 20_000 */
  pageRows?: number;
  /** @defaultValue 24 MiB (the INLINE result limit is 25) */
  pageBytes?: number;
}

/** The request body of one progress page, as the progress-table source sends it. */
export function progressPageRequest(options: ProgressPageRequestOptions): ExecuteStatementRequest {
  return {
    statement: PROGRESS_TABLE_STATEMENT,
    warehouse_id: options.warehouseId,
    parameters: options.parameters,
    wait_timeout: options.waitTimeout ?? '10s',
    on_wait_timeout: 'CONTINUE',
    format: 'JSON_ARRAY',
    disposition: 'INLINE',
    row_limit: options.pageRows ?? 20_000,
    byte_limit: options.pageBytes ?? 24 * 1024 * 1024,
  };
}
