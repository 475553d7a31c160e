/**
 * `/__admin/*`: the test and demo controls over HTTP (faults, tokens, warehouses, clock, progress
 * rows, stats), for clients that hold no handle (the CLI stand-in, the demo). Not a Databricks API,
 * so no bearer token and no request counting.
 */
import { isFaultRule, type FaultRule } from '../faults.js';
import type { DatabricksState, RouteRequest } from './context.js';
import { HttpError, parseJsonBody, readBody, sendJson } from './http.js';

export async function handleAdminRoutes(request: RouteRequest, state: DatabricksState): Promise<void> {
  const { req, res, method, path } = request;
  const { faults, issuer, clock } = state;
  if (path === '/__admin/faults') {
    if (method === 'GET') return sendJson(res, 200, { pending: faults.pending(), hits: faults.hitCounts() });
    if (method === 'DELETE') {
      faults.clear();
      return sendJson(res, 200, {});
    }
    const body = parseJsonBody(await readBody(req));
    const rules = Array.isArray(body.faults) ? body.faults : [body];
    if (!rules.every(isFaultRule)) {
      throw new HttpError(400, 'INVALID_PARAMETER_VALUE', 'each fault needs "kind": rate_limit, unavailable, server_error, slow, malformed, reset or statement_failed');
    }
    for (const rule of rules as FaultRule[]) faults.inject(rule);
    return sendJson(res, 200, { pending: faults.pending() });
  }
  if (path === '/__admin/expire-tokens' && method === 'POST') return sendJson(res, 200, { expired: issuer.expireAll() });
  if (path === '/__admin/tokens' && (method === 'POST' || method === 'DELETE')) {
    // DELETE revokes a personal access token, POST accepts it (again).
    const body = parseJsonBody(await readBody(req));
    if (typeof body.token !== 'string' || !body.token) throw new HttpError(400, 'INVALID_PARAMETER_VALUE', 'token is required.');
    if (method === 'DELETE') return sendJson(res, 200, { revoked: issuer.revoke(body.token) });
    issuer.allow(body.token);
    return sendJson(res, 200, {});
  }
  if (path === '/__admin/warehouses' && (method === 'POST' || method === 'DELETE')) {
    // DELETE deletes a SQL warehouse, POST creates it (again).
    const body = parseJsonBody(await readBody(req));
    if (typeof body.warehouse_id !== 'string' || !body.warehouse_id) throw new HttpError(400, 'INVALID_PARAMETER_VALUE', 'warehouse_id is required.');
    if (method === 'DELETE') return sendJson(res, 200, { deleted: state.warehouses.delete(body.warehouse_id) });
    state.warehouses.add(body.warehouse_id);
    return sendJson(res, 200, {});
  }
  if ((path === '/__admin/warehouses/stop' || path === '/__admin/warehouses/start') && method === 'POST') {
    const body = parseJsonBody(await readBody(req));
    if (typeof body.warehouse_id !== 'string' || !body.warehouse_id) throw new HttpError(400, 'INVALID_PARAMETER_VALUE', 'warehouse_id is required.');
    if (path.endsWith('/stop')) state.stoppedWarehouses.add(body.warehouse_id);
    else state.stoppedWarehouses.delete(body.warehouse_id);
    return sendJson(res, 200, {});
  }
  if (path === '/__admin/clock') {
    // GET reads the clock; POST changes speed and/or jumps ahead, then catches the streams up.
    if (method === 'POST') {
      const body = parseJsonBody(await readBody(req));
      if (typeof body.speed === 'number') clock.setSpeed(body.speed);
      if (typeof body.advanceMs === 'number') clock.advance(body.advanceMs);
      state.catchUp();
    }
    return sendJson(res, 200, { nowMs: clock.now(), now: new Date(clock.now()).toISOString(), speed: clock.getSpeed() });
  }
  if (path === '/__admin/progress' && method === 'POST') {
    const body = parseJsonBody(await readBody(req));
    const json = typeof body.json === 'string' ? body.json : JSON.stringify(body.progress);
    try {
      const row = state.insertProgress(json, {
        table: typeof body.table === 'string' ? body.table : undefined,
        ingestedAtMs: typeof body.ingestedAtMs === 'number' ? body.ingestedAtMs : undefined,
        visibleAfterMs: typeof body.visibleAfterMs === 'number' ? body.visibleAfterMs : undefined,
      });
      return sendJson(res, 200, { query_id: row.query_id, batch_id: row.batch_id, ingested_us: row.ingested_us });
    } catch (error) {
      throw new HttpError(400, 'INVALID_PARAMETER_VALUE', (error as Error).message);
    }
  }
  if (path === '/__admin/stats' && method === 'GET') {
    state.catchUp();
    return sendJson(res, 200, {
      requests: state.requestCounts(),
      streams: state.streamStatus(),
      faults: faults.hitCounts(),
      tokensIssued: issuer.issuedCount,
      sizes: state.sizes(),
    });
  }
  throw new HttpError(404, 'ENDPOINT_NOT_FOUND', `No admin endpoint '${method} ${path}'.`);
}
