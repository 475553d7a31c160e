/**
 * `POST /oidc/v1/token`: OAuth M2M client credentials. It answers in OAuth's error shape
 * (`error`, `error_description`), not Databricks', and needs no bearer token. The body is a form
 * (`Content-Type: application/x-www-form-urlencoded`) with `grant_type=client_credentials`.
 */
import type { DatabricksState, RouteRequest } from './context.js';
import { readBody, sendJson } from './http.js';

/** Answers the token path; false for any other. */
export async function handleOAuthRoutes(request: RouteRequest, state: DatabricksState): Promise<boolean> {
  const { req, res, method, path } = request;
  if (path !== '/oidc/v1/token' || method !== 'POST') return false;
  state.count('POST /oidc/v1/token');
  // The token request is a form post; a JSON or untyped body carries no grant.
  const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (contentType !== 'application/x-www-form-urlencoded') {
    await readBody(req);
    sendJson(res, 400, { error: 'invalid_request', error_description: 'The token request must be sent as application/x-www-form-urlencoded.' });
    return true;
  }
  const form = new URLSearchParams(await readBody(req));
  if (form.get('grant_type') !== 'client_credentials') {
    sendJson(res, 400, { error: 'unsupported_grant_type', error_description: 'grant_type must be client_credentials' });
    return true;
  }
  const token = state.issuer.issue(req.headers.authorization);
  if (!token) {
    sendJson(res, 401, { error: 'invalid_client', error_description: 'Client authentication failed' });
    return true;
  }
  sendJson(res, 200, token);
  return true;
}
