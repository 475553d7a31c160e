/**
 * SQL Statement Execution API (`/api/2.0/sql/statements`): submit, poll, result chunks, cancel. The
 * submit validates as Databricks does, then waits up to `wait_timeout` for the statement to finish.
 */
import type { FaultRule } from '../faults.js';
import { evaluateStatement } from '../progress-statement.js';
import { sqlFailure } from '../sql-errors.js';
import type { DatabricksState, RouteRequest } from './context.js';
import { HttpError, parseJsonBody, readBody, sendJson, sleep } from './http.js';

/** `wait_timeout` is `0s` (answer at once) or 5s..50s; absent means 10s. */
function waitTimeoutMs(value: unknown): number {
  if (value === undefined) return 10_000;
  const match = typeof value === 'string' ? /^(\d+)s$/.exec(value) : null;
  const seconds = match ? Number(match[1]) : NaN;
  if (!(seconds === 0 || (seconds >= 5 && seconds <= 50))) {
    throw new HttpError(400, 'INVALID_PARAMETER_VALUE', `wait_timeout must be 0s or between 5s and 50s; got ${JSON.stringify(value)}.`);
  }
  return seconds * 1_000;
}

/** Answers the statement paths; false for any other. `fault` is the one taken for this request, if any. */
export async function handleStatementRoutes(request: RouteRequest, state: DatabricksState, fault: FaultRule | null): Promise<boolean> {
  const { req, res, method, path } = request;
  const { statements } = state;
  let match: RegExpExecArray | null;
  if (path === '/api/2.0/sql/statements' && method === 'POST') {
    state.count('POST /api/2.0/sql/statements');
    const body = parseJsonBody(await readBody(req));
    if (typeof body.statement !== 'string' || !body.statement.trim()) {
      throw new HttpError(400, 'INVALID_PARAMETER_VALUE', 'statement is required.');
    }
    if (typeof body.warehouse_id !== 'string' || !body.warehouse_id) {
      throw new HttpError(400, 'INVALID_PARAMETER_VALUE', 'warehouse_id is required.');
    }
    if (!state.warehouses.has(body.warehouse_id)) {
      throw new HttpError(404, 'RESOURCE_DOES_NOT_EXIST', `SQL warehouse ${body.warehouse_id} does not exist.`);
    }
    const waitMs = waitTimeoutMs(body.wait_timeout);
    if (body.format !== undefined && body.format !== 'JSON_ARRAY') {
      throw new HttpError(400, 'INVALID_PARAMETER_VALUE', `format ${String(body.format)} is not served by the local Databricks; use JSON_ARRAY.`);
    }
    if (body.disposition !== undefined && body.disposition !== 'INLINE') {
      throw new HttpError(400, 'INVALID_PARAMETER_VALUE', `disposition ${String(body.disposition)} is not served by the local Databricks; use INLINE.`);
    }
    const parameters = Array.isArray(body.parameters) ? body.parameters : [];
    if (parameters.some((param) => !param || typeof param !== 'object' || typeof (param as { name?: unknown }).name !== 'string')) {
      throw new HttpError(400, 'INVALID_PARAMETER_VALUE', 'every parameter needs a string name.');
    }
    const evaluation = evaluateStatement(body.statement, parameters as { name: string }[], state.tables, state.clock.now());
    const rowLimit = typeof body.row_limit === 'number' ? body.row_limit : undefined;
    const byteLimit = typeof body.byte_limit === 'number' ? body.byte_limit : undefined;
    const id = statements.submit(evaluation, {
      rowLimit,
      byteLimit,
      // A stopped warehouse that does not start: the statement never leaves PENDING.
      ...(state.stoppedWarehouses.has(body.warehouse_id) ? { latencyMs: Number.POSITIVE_INFINITY } : {}),
      forcedFailure:
        fault?.kind === 'statement_failed'
          ? sqlFailure('INTERNAL_ERROR', 'XX000', fault.message ?? 'Query execution failed: the warehouse lost its executors.', 'INTERNAL_ERROR')
          : undefined,
    });
    // Until done or the wait is over; a timer may fire a millisecond before Date.now() says it is
    // due, so one sleep of the remaining time can end with the statement still RUNNING.
    const deadline = Date.now() + waitMs;
    for (let left = statements.remainingMs(id); left > 0 && Date.now() < deadline; left = statements.remainingMs(id)) {
      await sleep(Math.max(1, Math.min(left, deadline - Date.now())));
    }
    if (statements.remainingMs(id) > 0 && waitMs > 0 && body.on_wait_timeout === 'CANCEL') statements.cancel(id);
    sendJson(res, 200, statements.response(id));
    return true;
  }
  if ((match = /^\/api\/2\.0\/sql\/statements\/([^/]+)$/.exec(path)) && method === 'GET') {
    state.count('GET /api/2.0/sql/statements/{id}');
    const response = statements.response(decodeURIComponent(match[1]!));
    if (!response) throw new HttpError(404, 'NOT_FOUND', `Statement ${match[1]} not found.`);
    sendJson(res, 200, response);
    return true;
  }
  if ((match = /^\/api\/2\.0\/sql\/statements\/([^/]+)\/result\/chunks\/(\d+)$/.exec(path)) && method === 'GET') {
    state.count('GET /api/2.0/sql/statements/{id}/result/chunks/{n}');
    const chunk = statements.chunk(decodeURIComponent(match[1]!), Number(match[2]));
    if (!chunk) throw new HttpError(404, 'NOT_FOUND', `Chunk ${match[2]} of statement ${match[1]} not found.`);
    sendJson(res, 200, chunk);
    return true;
  }
  if ((match = /^\/api\/2\.0\/sql\/statements\/([^/]+)\/cancel$/.exec(path)) && method === 'POST') {
    state.count('POST /api/2.0/sql/statements/{id}/cancel');
    if (!statements.cancel(decodeURIComponent(match[1]!))) throw new HttpError(404, 'NOT_FOUND', `Statement ${match[1]} not found.`);
    sendJson(res, 200, {});
    return true;
  }
  return false;
}
