/**
 * The `POST /api/2.0/sql/statements` body checked as the API documents it, so a
 * request the real service refuses with 400 is refused here too: `statement` (≤ 16 MiB) and
 * `warehouse_id` required, `wait_timeout` `0s` or `5s`–`50s`, `on_wait_timeout` CONTINUE | CANCEL,
 * `format` JSON_ARRAY | ARROW_STREAM | CSV, `disposition` INLINE | EXTERNAL_LINKS, `parameters` a
 * list of `{ name, value (string or null), type (no complex types) }`, `query_tags` at most 20.
 */
import { HttpError } from './routes/http.js';

export interface StatementRequest {
  statement: string;
  warehouseId: string;
  waitMs: number;
  onWaitTimeout: 'CONTINUE' | 'CANCEL';
  parameters: { name: string; value?: string | null; type?: string }[];
  rowLimit?: number;
  byteLimit?: number;
}

const MIB = 1024 * 1024;
const STATEMENT_MAX_BYTES = 16 * MIB;
const QUERY_TAGS_MAX = 20;
const FORMATS = ['JSON_ARRAY', 'ARROW_STREAM', 'CSV'];
const DISPOSITIONS = ['INLINE', 'EXTERNAL_LINKS'];
const ON_WAIT_TIMEOUT = ['CONTINUE', 'CANCEL'];
// "No complex types": a parameter is one scalar value.
const COMPLEX_TYPE = /^\s*(ARRAY|STRUCT|MAP)\b/i;

function invalid(message: string): HttpError {
  return new HttpError(400, 'INVALID_PARAMETER_VALUE', message);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}

/** `wait_timeout` is `0s` (answer at once) or 5s..50s; absent means 10s. */
function waitTimeoutMs(value: unknown): number {
  if (value === undefined) return 10_000;
  const match = typeof value === 'string' ? /^(\d+)s$/.exec(value) : null;
  const seconds = match ? Number(match[1]) : NaN;
  if (!(seconds === 0 || (seconds >= 5 && seconds <= 50))) {
    throw invalid(`wait_timeout must be 0s or between 5s and 50s; got ${JSON.stringify(value)}.`);
  }
  return seconds * 1_000;
}

function oneOf(body: Record<string, unknown>, field: string, allowed: string[]): void {
  const value = body[field];
  if (value !== undefined && !(typeof value === 'string' && allowed.includes(value))) {
    throw invalid(`${field} must be one of ${allowed.join(', ')}; got ${JSON.stringify(value)}.`);
  }
}

function parameters(value: unknown): StatementRequest['parameters'] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid('parameters must be a list of { name, value, type }.');
  return value.map((param, index) => {
    if (!isObject(param) || typeof param.name !== 'string' || !param.name) throw invalid(`parameters[${index}] needs a string name.`);
    if (param.value !== undefined && param.value !== null && typeof param.value !== 'string') {
      throw invalid(`parameters[${index}] (${param.name}): value must be a string, or null/absent for NULL.`);
    }
    if (param.type !== undefined && typeof param.type !== 'string') throw invalid(`parameters[${index}] (${param.name}): type must be a string.`);
    if (typeof param.type === 'string' && COMPLEX_TYPE.test(param.type)) {
      throw invalid(`parameters[${index}] (${param.name}): type ${param.type} is a complex type; parameters take scalar types only.`);
    }
    return param as StatementRequest['parameters'][number];
  });
}

function queryTags(value: unknown): void {
  if (value === undefined || value === null) return;
  if (!Array.isArray(value) || !value.every((tag) => isObject(tag) && typeof tag.key === 'string')) {
    throw invalid('query_tags must be a list of { key, value }.');
  }
  if (value.length > QUERY_TAGS_MAX) throw invalid(`query_tags holds at most ${QUERY_TAGS_MAX} tags; got ${value.length}.`);
}

/** Reads and checks the body; throws the 400 the API answers. Whether the warehouse exists is the route's. */
export function readStatementRequest(body: Record<string, unknown>): StatementRequest {
  if (typeof body.statement !== 'string' || !body.statement.trim()) throw invalid('statement is required.');
  if (Buffer.byteLength(body.statement, 'utf8') > STATEMENT_MAX_BYTES) {
    throw invalid(`statement is ${Buffer.byteLength(body.statement, 'utf8')} bytes; at most 16 MiB is accepted.`);
  }
  if (typeof body.warehouse_id !== 'string' || !body.warehouse_id) throw invalid('warehouse_id is required.');
  const waitMs = waitTimeoutMs(body.wait_timeout);
  oneOf(body, 'on_wait_timeout', ON_WAIT_TIMEOUT);
  oneOf(body, 'format', FORMATS);
  oneOf(body, 'disposition', DISPOSITIONS);
  // Valid values the stand-in does not serve: refused, saying so, rather than answered in a shape
  // the client did not ask for.
  if (body.format !== undefined && body.format !== 'JSON_ARRAY') {
    throw invalid(`format ${String(body.format)} is not served by the local Databricks; use JSON_ARRAY.`);
  }
  if (body.disposition !== undefined && body.disposition !== 'INLINE') {
    throw invalid(`disposition ${String(body.disposition)} is not served by the local Databricks; use INLINE.`);
  }
  const params = parameters(body.parameters);
  queryTags(body.query_tags);
  return {
    statement: body.statement,
    warehouseId: body.warehouse_id,
    waitMs,
    onWaitTimeout: body.on_wait_timeout === 'CANCEL' ? 'CANCEL' : 'CONTINUE',
    parameters: params,
    rowLimit: typeof body.row_limit === 'number' ? body.row_limit : undefined,
    byteLimit: typeof body.byte_limit === 'number' ? body.byte_limit : undefined,
  };
}
