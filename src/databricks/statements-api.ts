/**
 * SQL Statement Execution API (reference §2d): submit, follow PENDING/RUNNING to a result, read every
 * result chunk, and turn `FAILED` (which arrives with HTTP 200) into a `StatementFailedError`.
 */
import type { DatabricksHttpClient } from './http-client.js';
import { DatabricksApiError, StatementFailedError } from './errors.js';
import type { ExecuteStatementRequest, ResultData, StatementResponse } from './wire-types.js';

const BASE = '/api/2.0/sql/statements';

export interface QueryOptions {
  /** First wait between status polls; grows ×1.5 up to `maxPollIntervalMs`. @defaultValue 200 */
  pollIntervalMs?: number;
  /** @defaultValue 2_000 */
  maxPollIntervalMs?: number;
  /** Give up (and cancel the statement) after this long. @defaultValue 300_000 */
  timeoutMs?: number;
  /** Stop reading chunks after this many rows (the rest is reported as truncated). @defaultValue Infinity */
  maxRows?: number;
}

export interface QueryResult {
  statementId: string;
  columns: string[];
  /** Values as strings (JSON_ARRAY format), SQL NULL as null. */
  rows: (string | null)[][];
  /** Rows the statement produced (manifest), which may exceed `rows.length` when truncated. */
  totalRowCount: number;
  /** True when Databricks truncated the result (row_limit/byte_limit) or `maxRows` stopped reading. */
  truncated: boolean;
  /** HTTP requests this statement took: submit + polls + chunks. */
  requests: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `/api/2.0/sql/statements/x/result/chunks/1?row_offset=2` → path and query. */
function splitLink(link: string): { path: string; query: Record<string, string> } {
  const url = new URL(link, 'http://placeholder');
  return { path: url.pathname, query: Object.fromEntries(url.searchParams) };
}

export class StatementsApi {
  constructor(private readonly http: DatabricksHttpClient) {}

  execute(request: ExecuteStatementRequest): Promise<StatementResponse> {
    return this.http.request<StatementResponse>({ method: 'POST', path: BASE, body: request });
  }

  get(statementId: string): Promise<StatementResponse> {
    return this.http.request<StatementResponse>({ method: 'GET', path: `${BASE}/${encodeURIComponent(statementId)}` });
  }

  getChunk(statementId: string, chunkIndex: number): Promise<ResultData> {
    return this.http.request<ResultData>({
      method: 'GET',
      path: `${BASE}/${encodeURIComponent(statementId)}/result/chunks/${chunkIndex}`,
    });
  }

  async cancel(statementId: string): Promise<void> {
    await this.http.request({ method: 'POST', path: `${BASE}/${encodeURIComponent(statementId)}/cancel` });
  }

  /** Runs a statement to completion and returns all its rows. */
  async query(request: ExecuteStatementRequest, options: QueryOptions = {}): Promise<QueryResult> {
    const timeoutMs = options.timeoutMs ?? 300_000;
    const maxPoll = options.maxPollIntervalMs ?? 2_000;
    let pollMs = options.pollIntervalMs ?? 200;
    const started = Date.now();
    let requests = 1;
    let response = await this.execute(request);
    if (!response || typeof response.statement_id !== 'string' || !response.status) {
      throw new DatabricksApiError('Databricks answered a statement without statement_id/status', {
        errorCode: 'MALFORMED_RESPONSE',
        httpStatus: 200,
        endpoint: `POST ${BASE}`,
      });
    }
    while (response.status.state === 'PENDING' || response.status.state === 'RUNNING') {
      if (Date.now() - started > timeoutMs) {
        await this.cancel(response.statement_id).catch(() => undefined);
        throw new DatabricksApiError(`statement ${response.statement_id} did not finish within ${timeoutMs}ms; canceled`, {
          errorCode: 'DEADLINE_EXCEEDED',
          httpStatus: 200,
          endpoint: `GET ${BASE}/{id}`,
        });
      }
      await sleep(pollMs);
      pollMs = Math.min(maxPoll, Math.round(pollMs * 1.5));
      response = await this.get(response.statement_id);
      requests += 1;
    }
    if (response.status.state !== 'SUCCEEDED') throw statementError(response);

    const columns = (response.manifest?.schema?.columns ?? [])
      .slice()
      .sort((a, b) => a.position - b.position)
      .map((column) => column.name);
    const maxRows = options.maxRows ?? Infinity;
    const rows: (string | null)[][] = [];
    let chunk: ResultData | undefined = response.result;
    // Some answers carry only the manifest; the first chunk is then fetched like the others.
    if (!chunk && (response.manifest?.total_chunk_count ?? 0) > 0) {
      chunk = await this.getChunk(response.statement_id, 0);
      requests += 1;
    }
    let truncated = response.manifest?.truncated === true;
    // Bounded by the manifest's chunk count (plus one), whatever the links say.
    const chunkBudget = (response.manifest?.total_chunk_count ?? 1) + 1;
    for (let read = 0; chunk && read < chunkBudget; read += 1) {
      for (const row of chunk.data_array ?? []) rows.push(row);
      if (rows.length >= maxRows) {
        truncated = truncated || rows.length > maxRows || chunk.next_chunk_index !== undefined;
        rows.length = Math.min(rows.length, maxRows);
        break;
      }
      if (chunk.next_chunk_internal_link) {
        const { path, query } = splitLink(chunk.next_chunk_internal_link);
        chunk = await this.http.request<ResultData>({ method: 'GET', path, query });
      } else if (typeof chunk.next_chunk_index === 'number') {
        chunk = await this.getChunk(response.statement_id, chunk.next_chunk_index);
      } else {
        chunk = undefined;
        break;
      }
      requests += 1;
    }
    return {
      statementId: response.statement_id,
      columns,
      rows,
      totalRowCount: response.manifest?.total_row_count ?? rows.length,
      truncated,
      requests,
    };
  }
}

function statementError(response: StatementResponse): StatementFailedError {
  const error = response.status.error ?? {};
  const sqlState = response.status.sql_state ?? error.sql_state;
  const said = error.message ?? `statement ended ${response.status.state}`;
  return new StatementFailedError(`SQL statement ${response.status.state}: ${said.slice(0, 500)}`, {
    errorCode: error.error_code ?? response.status.state,
    httpStatus: 200,
    endpoint: `POST ${BASE}`,
    sqlState,
    statementId: response.statement_id,
    state: response.status.state,
  });
}
