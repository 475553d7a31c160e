/**
 * The Databricks API in front of the route groups: an injected fault first (it may answer instead of
 * the route), then the token endpoint (no bearer), then the bearer check (401 without one, 403 for
 * one it does not accept), a catch-up of the streams, and the first route group that claims the
 * path; 404 ENDPOINT_NOT_FOUND otherwise.
 */
import type { DatabricksState, RouteRequest } from './context.js';
import { HttpError, sendJson, sleep } from './http.js';
import { handleJobRoutes } from './jobs.js';
import { handleOAuthRoutes } from './oauth.js';
import { handlePipelineRoutes } from './pipelines.js';
import { handleStatementRoutes } from './statements.js';

export async function handleApiRoutes(request: RouteRequest, state: DatabricksState): Promise<void> {
  const { req, res, method, path } = request;
  const statementSubmit = method === 'POST' && path === '/api/2.0/sql/statements';
  const fault = state.faults.take(method, path, statementSubmit);
  if (fault) {
    state.count(`fault ${fault.kind}`);
    if (fault.kind === 'rate_limit') {
      throw new HttpError(429, 'REQUEST_LIMIT_EXCEEDED', 'Too many requests. Please wait a moment and try again.', {
        'Retry-After': String(fault.retryAfterSec ?? 1),
      });
    }
    if (fault.kind === 'unavailable') {
      throw new HttpError(
        503,
        'TEMPORARILY_UNAVAILABLE',
        'The service is temporarily unavailable.',
        fault.retryAfterSec !== undefined ? { 'Retry-After': String(fault.retryAfterSec) } : {},
      );
    }
    if (fault.kind === 'server_error') throw new HttpError(500, 'INTERNAL_ERROR', 'Internal error.');
    if (fault.kind === 'reset') {
      req.socket.destroy();
      return;
    }
    if (fault.kind === 'malformed') {
      // A proxy's truncated HTML under a JSON content type: what clients must survive.
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('<html><body>upstream proxy error</bo');
      return;
    }
    if (fault.kind === 'slow') await sleep(fault.delayMs ?? 2_000);
  }

  if (await handleOAuthRoutes(request, state)) return;

  // As the service answers: no bearer token is 401, a bad, revoked or expired one 403, both with a
  // number for `error_code` (clients must not take that 403 for a missing permission).
  if (!/^Bearer\s+\S/i.test(req.headers.authorization ?? '')) {
    state.count('401');
    sendJson(res, 401, { error_code: 401, message: 'Credential was not sent or was of an unsupported type for this API.' });
    return;
  }
  if (!state.issuer.accepts(req.headers.authorization)) {
    state.count('403');
    sendJson(res, 403, { error_code: 403, message: 'Invalid access token.' }, { 'X-Databricks-Reason-Phrase': 'Invalid access token.' });
    return;
  }
  state.catchUp();

  if (await handleStatementRoutes(request, state, fault)) return;
  if (handlePipelineRoutes(request, state)) return;
  if (handleJobRoutes(request, state)) return;
  state.count('404');
  throw new HttpError(404, 'ENDPOINT_NOT_FOUND', `No API found for '${method} ${path}'.`);
}
