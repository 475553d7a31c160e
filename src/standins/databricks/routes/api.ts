/**
 * The Databricks API in front of the route groups: an injected fault first (it may answer instead of
 * the route), then the token endpoint (no bearer), then the bearer check, a catch-up of the streams,
 * and the first route group that claims the path; 404 ENDPOINT_NOT_FOUND otherwise.
 */
import type { DatabricksState, RouteRequest } from './context.js';
import { HttpError, sleep } from './http.js';
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

  if (!state.issuer.accepts(req.headers.authorization)) {
    state.count('401');
    throw new HttpError(401, 'UNAUTHENTICATED', 'Invalid access token.');
  }
  state.catchUp();

  if (await handleStatementRoutes(request, state, fault)) return;
  if (handlePipelineRoutes(request, state)) return;
  if (handleJobRoutes(request, state)) return;
  state.count('404');
  throw new HttpError(404, 'ENDPOINT_NOT_FOUND', `No API found for '${method} ${path}'.`);
}
