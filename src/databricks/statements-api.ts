/**
 * SQL Statement Execution API (reference §2d): submit, follow PENDING/RUNNING to a result, read every
 * result chunk, and turn `FAILED` (which arrives with HTTP 200) into a `StatementFailedError`.
 */
import type { Logger } from '../observability/logger.js';
import type { DatabricksHttpClient } from './http-client.js';
import { DatabricksApiError, StatementFailedError } from './errors.js';
import type { ExecuteStatementRequest, ResultData, StatementResponse } from './wire-types.js';

const BASE = '/api/2.0/sql/statements';

/** States after which a statement holds nothing to cancel. */
const ENDED = new Set(['FAILED', 'CANCELED', 'CLOSED']);

export interface QueryOptions {
  /** First wait between status polls; grows ×1.5 up to `maxPollIntervalMs`. @defaultValue 200 */
  pollIntervalMs?: number;
  /** @defaultValue 2_000 */
  maxPollIntervalMs?: number;
  /** Give up (and cancel the statement) after this long. @defaultValue 300_000 */
  timeoutMs?: number;
  /** Stop reading chunks after this many rows (the rest is reported as truncated). @defaultValue Infinity */
  maxRows?: number;
  /** Where a failed cancel of an abandoned statement is logged. @defaultValue no logging */
  logger?: Logger;
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
    // Not resent blindly: the API takes no idempotency key, so a resent submission may run twice.
    return this.http.request<StatementResponse>({ method: 'POST', path: BASE, body: request, idempotent: false });
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

  /**
   * Runs a statement to completion and returns all its rows. An answer that is not one the API
   * gives (no status, a manifest or chunk of the wrong shape, chunk links that loop) is a
   * `DatabricksApiError` with code MALFORMED_RESPONSE saying what was wrong: its rows cannot be
   * trusted, and reading on would loop or return part of them as all.
   */
  async query(request: ExecuteStatementRequest, options: QueryOptions = {}): Promise<QueryResult> {
    const timeoutMs = options.timeoutMs ?? 300_000;
    const maxPoll = options.maxPollIntervalMs ?? 2_000;
    let pollMs = options.pollIntervalMs ?? 200;
    const started = Date.now();
    let requests = 1;
    const submitted = await this.execute(request);
    const submittedId = typeof submitted?.statement_id === 'string' && submitted.statement_id !== '' ? submitted.statement_id : null;
    let lastState: string | undefined;
    try {
      let response = checkedStatus(submitted, `POST ${BASE}`);
      lastState = response.status.state;
      while (response.status.state === 'PENDING' || response.status.state === 'RUNNING') {
        if (Date.now() - started > timeoutMs) {
          throw new DatabricksApiError(`statement ${response.statement_id} did not finish within ${timeoutMs}ms; canceled`, {
            errorCode: 'DEADLINE_EXCEEDED',
            httpStatus: 200,
            endpoint: `GET ${BASE}/{id}`,
          });
        }
        await sleep(pollMs);
        pollMs = Math.min(maxPoll, Math.round(pollMs * 1.5));
        response = checkedStatus(await this.get(response.statement_id), `GET ${BASE}/{id}`);
        lastState = response.status.state;
        requests += 1;
      }
      if (response.status.state !== 'SUCCEEDED') throw statementError(response);

      const statementId = response.statement_id;
      const chunkEndpoint = `GET ${BASE}/{id}/result/chunks`;
      const manifest = response.manifest;
      const chunkCount = manifest?.total_chunk_count;
      if (chunkCount !== undefined && !(Number.isSafeInteger(chunkCount) && chunkCount >= 0)) {
        throw malformed(`statement ${statementId}'s result manifest with total_chunk_count ${JSON.stringify(chunkCount)}`, `GET ${BASE}/{id}`);
      }
      const columns = (manifest?.schema?.columns ?? [])
        .slice()
        .sort((a, b) => a.position - b.position)
        .map((column) => column.name);
      const maxRows = options.maxRows ?? Infinity;
      const rows: (string | null)[][] = [];
      let chunk: ResultData | undefined = response.result;
      // Some answers carry only the manifest; the first chunk is then fetched like the others.
      if (!chunk && (chunkCount ?? 0) > 0) {
        chunk = await this.getChunk(statementId, 0);
        requests += 1;
      }
      let truncated = manifest?.truncated === true;
      // Bounded by the manifest's chunk count, whatever the links say; a link seen before is a loop.
      const chunkBudget = Math.max(chunkCount ?? 1, 1);
      const followed = new Set<string>();
      for (let read = 0; chunk; read += 1) {
        if (typeof chunk !== 'object' || (chunk.data_array !== undefined && !Array.isArray(chunk.data_array))) {
          throw malformed(`a chunk of statement ${statementId} whose data_array is not a list of rows`, chunkEndpoint);
        }
        for (const row of chunk.data_array ?? []) rows.push(row);
        if (rows.length >= maxRows) {
          truncated = truncated || rows.length > maxRows || chunk.next_chunk_index !== undefined;
          rows.length = Math.min(rows.length, maxRows);
          break;
        }
        const next = chunk.next_chunk_internal_link ? `link ${chunk.next_chunk_internal_link}` : typeof chunk.next_chunk_index === 'number' ? `index ${chunk.next_chunk_index}` : null;
        if (next === null) break;
        if (followed.has(next)) throw malformed(`statement ${statementId}'s result chunks naming chunk ${next} twice (a loop)`, chunkEndpoint);
        // The manifest's chunks are read; links past them leave the rest for the next read.
        if (read + 1 >= chunkBudget) {
          truncated = true;
          break;
        }
        followed.add(next);
        if (chunk.next_chunk_internal_link) {
          const { path, query } = splitLink(chunk.next_chunk_internal_link);
          chunk = await this.http.request<ResultData>({ method: 'GET', path, query });
        } else {
          chunk = await this.getChunk(statementId, chunk.next_chunk_index!);
        }
        requests += 1;
      }
      const totalRowCount = typeof manifest?.total_row_count === 'number' ? manifest.total_row_count : rows.length;
      // Fewer rows than the manifest counts (chunks it names that no link reached): the rest is unread.
      if (rows.length < Math.min(totalRowCount, maxRows)) truncated = true;
      return { statementId, columns, rows, totalRowCount, truncated, requests };
    } catch (error) {
      // Stopping polling does not cancel a statement: one abandoned here would run on for nothing.
      if (submittedId !== null && !(lastState !== undefined && ENDED.has(lastState))) await this.cancelQuietly(submittedId, options.logger);
      throw error;
    }
  }

  /** Best effort: a failure is logged, never thrown over the error that stopped the read. */
  private async cancelQuietly(statementId: string, logger: Logger | undefined): Promise<void> {
    try {
      await this.cancel(statementId);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      logger?.warn({ statementId, errorCode: (error as { errorCode?: unknown } | null)?.errorCode }, `could not cancel abandoned statement ${statementId}: ${message}`);
    }
  }
}

/** A statement answer with an id and a state, or MALFORMED_RESPONSE. */
function checkedStatus(response: StatementResponse | null | undefined, endpoint: string): StatementResponse {
  if (!response || typeof response !== 'object' || typeof response.statement_id !== 'string' || !response.status || typeof response.status.state !== 'string') {
    throw malformed('a statement without statement_id/status', endpoint);
  }
  return response;
}

function malformed(what: string, endpoint: string): DatabricksApiError {
  return new DatabricksApiError(`Databricks answered ${what}`, { errorCode: 'MALFORMED_RESPONSE', httpStatus: 200, endpoint });
}

function statementError(response: StatementResponse): StatementFailedError {
  const error = response.status.error && typeof response.status.error === 'object' ? response.status.error : {};
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const sqlState = text(response.status.sql_state) ?? text(error.sql_state);
  const said = text(error.message) ?? `statement ended ${response.status.state}`;
  return new StatementFailedError(`SQL statement ${response.status.state}: ${said.slice(0, 500)}`, {
    errorCode: text(error.error_code) ?? response.status.state,
    httpStatus: 200,
    endpoint: `POST ${BASE}`,
    sqlState,
    statementId: response.statement_id,
    state: response.status.state,
  });
}
