/**
 * Statement lifecycle as the SQL Statement Execution API has it (reference §2d): a statement is
 * PENDING, then RUNNING, then SUCCEEDED / FAILED (both answered with HTTP 200) or CANCELED; a
 * success's result is available for an hour, then the statement is CLOSED (no result, no chunks). The
 * result is computed at submission (a snapshot, as a warehouse would read one Delta version) and split into
 * chunks; `row_limit` and `byte_limit` truncate; INLINE results above 25 MiB fail.
 */
import { randomUUID } from 'node:crypto';
import type { Evaluation, ResultColumn } from './progress-statement.js';
import { sqlFailure, type SqlFailure } from './sql-errors.js';

export interface StatementStoreOptions {
  /** Real time a statement takes from PENDING to done. @defaultValue 0 */
  latencyMs?: number;
  /** Rows per result chunk. @defaultValue 2_000 */
  chunkRows?: number;
  /** Bytes per result chunk (JSON size of the rows). @defaultValue 4 MiB */
  chunkBytes?: number;
  /** INLINE results larger than this fail. @defaultValue 25 MiB */
  inlineLimitBytes?: number;
  /** Statements kept for GET (oldest dropped first). @defaultValue 200 */
  maxStatements?: number;
  /** Real time a success's result stays available before the statement is CLOSED. @defaultValue 3_600_000 (1 h) */
  resultTtlMs?: number;
}

interface Chunk {
  index: number;
  rowOffset: number;
  rows: (string | null)[][];
  bytes: number;
}

interface StoredStatement {
  id: string;
  createdAtMs: number;
  readyAtMs: number;
  canceled: boolean;
  failure?: SqlFailure;
  columns: ResultColumn[];
  chunks: Chunk[];
  totalRows: number;
  truncated: boolean;
}

export interface SubmitOptions {
  rowLimit?: number;
  byteLimit?: number;
  /** Forces the statement to fail (fault injection). */
  forcedFailure?: SqlFailure;
  latencyMs?: number;
}

const MIB = 1024 * 1024;

/** JSON size of a row of strings, counted without serializing it (quotes and backslashes are escaped). */
function rowBytes(row: (string | null)[]): number {
  let size = 2 + Math.max(0, row.length - 1);
  for (const value of row) {
    if (value === null) {
      size += 4;
      continue;
    }
    size += value.length + 2;
    for (let i = 0; i < value.length; i += 1) {
      const code = value.charCodeAt(i);
      if (code === 34 || code === 92 || code < 32) size += 1;
    }
  }
  return size;
}

export class StatementStore {
  private readonly statements = new Map<string, StoredStatement>();
  private readonly options: Required<StatementStoreOptions>;

  constructor(options: StatementStoreOptions = {}) {
    this.options = {
      latencyMs: options.latencyMs ?? 0,
      chunkRows: options.chunkRows ?? 2_000,
      chunkBytes: options.chunkBytes ?? 4 * MIB,
      inlineLimitBytes: options.inlineLimitBytes ?? 25 * MIB,
      maxStatements: options.maxStatements ?? 200,
      resultTtlMs: options.resultTtlMs ?? 3_600_000,
    };
  }

  setLatency(ms: number): void {
    this.options.latencyMs = ms;
  }

  submit(evaluation: Evaluation, submit: SubmitOptions = {}): string {
    const now = Date.now();
    const id = randomUUID();
    const statement: StoredStatement = {
      id,
      createdAtMs: now,
      readyAtMs: now + (submit.latencyMs ?? this.options.latencyMs),
      canceled: false,
      columns: [],
      chunks: [],
      totalRows: 0,
      truncated: false,
    };
    if (submit.forcedFailure) statement.failure = submit.forcedFailure;
    else if (!evaluation.ok) statement.failure = evaluation.failure;
    else this.fill(statement, evaluation, submit);
    this.statements.set(id, statement);
    while (this.statements.size > this.options.maxStatements) {
      this.statements.delete(this.statements.keys().next().value!);
    }
    return id;
  }

  private fill(statement: StoredStatement, evaluation: Extract<Evaluation, { ok: true }>, submit: SubmitOptions): void {
    let rows = evaluation.rows;
    statement.columns = evaluation.columns;
    if (submit.rowLimit !== undefined && rows.length > submit.rowLimit) {
      rows = rows.slice(0, submit.rowLimit);
      statement.truncated = true;
    }
    let total = 0;
    let current: Chunk = { index: 0, rowOffset: 0, rows: [], bytes: 0 };
    for (let i = 0; i < rows.length; i += 1) {
      const size = rowBytes(rows[i]!) + 1;
      if (submit.byteLimit !== undefined && total + size > submit.byteLimit) {
        statement.truncated = true;
        break;
      }
      if (current.rows.length > 0 && (current.rows.length >= this.options.chunkRows || current.bytes + size > this.options.chunkBytes)) {
        statement.chunks.push(current);
        current = { index: current.index + 1, rowOffset: i, rows: [], bytes: 0 };
      }
      current.rows.push(rows[i]!);
      current.bytes += size;
      total += size;
    }
    statement.chunks.push(current);
    statement.totalRows = statement.chunks.reduce((sum, chunk) => sum + chunk.rows.length, 0);
    if (total > this.options.inlineLimitBytes) {
      statement.failure = sqlFailure(
        'INLINE_RESULT_TOO_LARGE',
        '54000',
        `The INLINE result (${total} bytes) exceeds the limit of ${this.options.inlineLimitBytes} bytes; use a row_limit/byte_limit or EXTERNAL_LINKS.`,
      );
      statement.chunks = [];
    }
  }

  has(id: string): boolean {
    return this.statements.has(id);
  }

  cancel(id: string): boolean {
    const statement = this.statements.get(id);
    if (!statement) return false;
    if (Date.now() < statement.readyAtMs) statement.canceled = true;
    return true;
  }

  state(id: string): 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELED' | 'CLOSED' | null {
    const statement = this.statements.get(id);
    if (!statement) return null;
    if (statement.canceled) return 'CANCELED';
    const now = Date.now();
    if (now < statement.readyAtMs) {
      return now < statement.createdAtMs + (statement.readyAtMs - statement.createdAtMs) / 2 ? 'PENDING' : 'RUNNING';
    }
    if (statement.failure) return 'FAILED';
    return now < statement.readyAtMs + this.options.resultTtlMs ? 'SUCCEEDED' : 'CLOSED';
  }

  /** Milliseconds until the statement is done (0 when it is). */
  remainingMs(id: string): number {
    const statement = this.statements.get(id);
    return statement ? Math.max(0, statement.readyAtMs - Date.now()) : 0;
  }

  /** The `StatementResponse` JSON for GET /statements/{id} and the POST answer. */
  response(id: string): Record<string, unknown> | null {
    const statement = this.statements.get(id);
    const state = this.state(id);
    if (!statement || !state) return null;
    if (state === 'PENDING' || state === 'RUNNING' || state === 'CANCELED' || state === 'CLOSED') {
      return { statement_id: id, status: { state } };
    }
    if (state === 'FAILED') {
      const failure = statement.failure!;
      return {
        statement_id: id,
        status: { state, error: { error_code: failure.error_code, message: failure.message }, sql_state: failure.sql_state },
      };
    }
    return {
      statement_id: id,
      status: { state },
      manifest: {
        format: 'JSON_ARRAY',
        schema: {
          column_count: statement.columns.length,
          columns: statement.columns.map((column, position) => ({ ...column, position })),
        },
        total_chunk_count: statement.chunks.length,
        chunks: statement.chunks.map((chunk) => ({ chunk_index: chunk.index, row_offset: chunk.rowOffset, row_count: chunk.rows.length })),
        total_row_count: statement.totalRows,
        truncated: statement.truncated,
      },
      result: this.chunkBody(statement, 0),
    };
  }

  /** GET /statements/{id}/result/chunks/{n}; null when the statement or chunk does not exist. */
  chunk(id: string, index: number): Record<string, unknown> | null {
    const statement = this.statements.get(id);
    if (!statement || this.state(id) !== 'SUCCEEDED' || !statement.chunks[index]) return null;
    return this.chunkBody(statement, index);
  }

  private chunkBody(statement: StoredStatement, index: number): Record<string, unknown> {
    const chunk = statement.chunks[index]!;
    const body: Record<string, unknown> = {
      chunk_index: chunk.index,
      row_offset: chunk.rowOffset,
      row_count: chunk.rows.length,
      data_array: chunk.rows,
    };
    if (index + 1 < statement.chunks.length) {
      body.next_chunk_index = index + 1;
      body.next_chunk_internal_link = `/api/2.0/sql/statements/${statement.id}/result/chunks/${index + 1}?row_offset=${statement.chunks[index + 1]!.rowOffset}`;
    }
    return body;
  }
}
