/**
 * SQL Statement Execution API (`/api/2.0/sql/statements`): submit, poll, result chunks, cancel. The
 * submit validates as Databricks does (`statement-request.ts`), then waits up to `wait_timeout` for
 * the statement to finish.
 */
import type { FaultRule } from '../faults.js';
import { evaluateStatement } from '../progress-statement.js';
import { sqlFailure } from '../sql-errors.js';
import { readStatementRequest } from '../statement-request.js';
import type { DatabricksState, RouteRequest } from './context.js';
import { HttpError, parseJsonBody, readBody, sendJson, sleep } from './http.js';

/** Answers the statement paths; false for any other. `fault` is the one taken for this request, if any. */
export async function handleStatementRoutes(request: RouteRequest, state: DatabricksState, fault: FaultRule | null): Promise<boolean> {
  const { req, res, method, path } = request;
  const { statements } = state;
  let match: RegExpExecArray | null;
  if (path === '/api/2.0/sql/statements' && method === 'POST') {
    state.count('POST /api/2.0/sql/statements');
    const submitted = readStatementRequest(parseJsonBody(await readBody(req)));
    if (!state.warehouses.has(submitted.warehouseId)) {
      throw new HttpError(404, 'RESOURCE_DOES_NOT_EXIST', `SQL warehouse ${submitted.warehouseId} does not exist.`);
    }
    const evaluation = evaluateStatement(submitted.statement, submitted.parameters, state.tables, state.clock.now());
    const id = statements.submit(evaluation, {
      rowLimit: submitted.rowLimit,
      byteLimit: submitted.byteLimit,
      // A stopped warehouse that does not start: the statement never leaves PENDING.
      ...(state.stoppedWarehouses.has(submitted.warehouseId) ? { latencyMs: Number.POSITIVE_INFINITY } : {}),
      forcedFailure:
        fault?.kind === 'statement_failed'
          ? sqlFailure('INTERNAL_ERROR', 'XX000', fault.message ?? 'Query execution failed: the warehouse lost its executors.', 'INTERNAL_ERROR')
          : undefined,
    });
    // Until done or the wait is over; a timer may fire a millisecond before Date.now() says it is
    // due, so one sleep of the remaining time can end with the statement still RUNNING.
    const deadline = Date.now() + submitted.waitMs;
    for (let left = statements.remainingMs(id); left > 0 && Date.now() < deadline; left = statements.remainingMs(id)) {
      await sleep(Math.max(1, Math.min(left, deadline - Date.now())));
    }
    if (statements.remainingMs(id) > 0 && submitted.waitMs > 0 && submitted.onWaitTimeout === 'CANCEL') statements.cancel(id);
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
