/**
 * Databricks refuses a bad, revoked or expired token with 403 `{"error_code": 403, "message": "Invalid
 * access token."}` (a number for the code), and has refused expiring OAuth tokens with 403 "Token is
 * expiring…", 400 ExpiredJwtException and 401 "Token is expired". Each is a credentials failure: the
 * client fetches a new OAuth token once and retries; a PAT fails at once. A 403 for a missing
 * permission stays a permission refusal.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { errorFromResponse } from '../../src/databricks/error-body.js';
import { createDatabricksClient, DatabricksApiError, UnauthenticatedError } from '../../src/databricks/index.js';
import { createLogger } from '../../src/observability/logger.js';

const SECRET = 'dose-very-secret-value-456';
const PAT = 'dapi0123456789abcdef0123456789abcdef';

const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  errorFromResponse({ status, headers, body: typeof body === 'string' ? body : JSON.stringify(body), endpoint: 'GET /api/2.2/jobs/runs/list' });

describe('errorFromResponse: a refused token', () => {
  it('reads 401, and a 403 or 400 that says the token is invalid or expired, as credentials rejected', () => {
    const refused = [
      answer(403, { error_code: 403, message: 'Invalid access token.' }, { 'x-databricks-reason-phrase': 'Invalid access token.' }),
      answer(403, { error_code: 403, message: 'Token is expiring within 30 seconds. (token expired)' }),
      answer(400, { error_code: 'BAD_REQUEST', message: 'io.jsonwebtoken.ExpiredJwtException: JWT expired at 2026-11-29T08:00:00Z.' }),
      answer(401, { error_code: 401, message: 'Token is expired.' }),
      answer(401, { error_code: 401, message: 'Credential was not sent or was of an unsupported type for this API.' }),
      answer(403, '<html><body><h2>HTTP ERROR 403</h2><p>Problem accessing /api/2.2/jobs/runs/list. Reason:<pre>    Invalid access token.</pre></p></body></html>'),
    ];
    for (const error of refused) {
      expect(error, error.message).toBeInstanceOf(UnauthenticatedError);
      expect((error as UnauthenticatedError).credentialsRejected, error.message).toBe(true);
      expect(error.code).toBe('streamdoctor_databricks_unauthenticated');
    }
    // A number is no error code: the message does not call the token a missing permission.
    expect(refused[0]!.errorCode).toBe('UNAUTHENTICATED');
    expect(refused[0]!.message).toBe('Databricks GET /api/2.2/jobs/runs/list answered 403 UNAUTHENTICATED: Invalid access token.');
    expect(refused[2]!.errorCode).toBe('BAD_REQUEST');
  });

  it('keeps a 403 for a missing permission a permission refusal, and another 400 a plain API error', () => {
    const denied = answer(403, { error_code: 'PERMISSION_DENIED', message: 'User does not have CAN VIEW on job 2.' });
    expect(denied).toBeInstanceOf(UnauthenticatedError);
    expect(denied).toMatchObject({ credentialsRejected: false, code: 'streamdoctor_databricks_permission_denied', errorCode: 'PERMISSION_DENIED' });
    const numeric = answer(403, { error_code: 403, message: 'User is not authorized to use this SQL warehouse.' });
    expect(numeric).toMatchObject({ credentialsRejected: false, errorCode: 'PERMISSION_DENIED' });
    const badRequest = answer(400, { error_code: 'INVALID_PARAMETER_VALUE', message: 'Invalid page_token.' });
    expect(badRequest).not.toBeInstanceOf(UnauthenticatedError);
    expect(badRequest).toBeInstanceOf(DatabricksApiError);
  });
});

/** A workspace that answers `refuse` to the tokens `refuses` picks: by default the first OAuth token it issued, and the PAT. */
async function workspace(refuse: { status: number; body: string }, refuses: (authorization: string) => boolean = (authorization) => authorization === 'Bearer eyJ.tok-1' || authorization === `Bearer ${PAT}`) {
  let issued = 0;
  const sent: string[] = [];
  const server: Server = createServer((req, res) => {
    if (req.url === '/oidc/v1/token') {
      issued += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: `eyJ.tok-${issued}`, token_type: 'Bearer', expires_in: 3600, scope: 'all-apis' }));
      return;
    }
    sent.push(String(req.headers.authorization));
    const refused = refuses(String(req.headers.authorization));
    res.writeHead(refused ? refuse.status : 200, { 'content-type': 'application/json' });
    res.end(refused ? refuse.body : '{"has_more": false}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, sent, issued: () => issued };
}

let open: Server | null = null;
afterEach(async () => {
  open?.closeAllConnections();
  await new Promise<void>((resolve) => (open ? open.close(() => resolve()) : resolve()));
  open = null;
});

function logged() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger({ name: 'rejected-token-test', level: 'debug', destination }) };
}

describe('the client and a refused token', () => {
  const refusals = [
    { status: 403, body: '{"error_code": 403, "message": "Invalid access token."}' },
    { status: 403, body: '{"error_code": 403, "message": "Token is expiring within 30 seconds. (token expired)"}' },
    { status: 400, body: '{"error_code": "BAD_REQUEST", "message": "ExpiredJwtException: JWT expired at 2026-11-29T08:00:00Z"}' },
  ];
  for (const refuse of refusals) {
    it(`fetches a new OAuth token once after ${refuse.status} ${JSON.parse(refuse.body).message}`, async () => {
      const ws = await workspace(refuse);
      open = ws.server;
      const { lines, logger } = logged();
      const client = createDatabricksClient({ host: ws.url, credentials: { kind: 'oauth-m2m', clientId: 'sp-streamdoctor', clientSecret: SECRET }, logger, sleep: async () => undefined });
      expect(await client.jobs.listRuns({ jobId: 1 })).toEqual({ has_more: false });
      expect(await client.jobs.listRuns({ jobId: 1 })).toEqual({ has_more: false });
      expect(ws.issued()).toBe(2);
      expect(ws.sent).toEqual(['Bearer eyJ.tok-1', 'Bearer eyJ.tok-2', 'Bearer eyJ.tok-2']);
      expect(client.stats().retries.token_expired).toBe(1);
      expect(lines.join('')).not.toContain('tok-');
      expect(lines.join('')).not.toContain(SECRET);
    });
  }

  it('fails a PAT at once (nothing to refresh), as credentials rejected, without echoing it', async () => {
    const ws = await workspace(refusals[0]!);
    open = ws.server;
    const { lines, logger } = logged();
    const client = createDatabricksClient({ host: ws.url, credentials: { kind: 'pat', token: PAT }, logger, sleep: async () => undefined });
    const error = (await client.jobs.listRuns({ jobId: 1 }).catch((caught: unknown) => caught)) as UnauthenticatedError;
    expect(error).toBeInstanceOf(UnauthenticatedError);
    expect(error.credentialsRejected).toBe(true);
    expect(ws.sent).toHaveLength(1);
    expect(error.message).not.toContain(PAT);
    expect(lines.join('')).not.toContain(PAT);
  });

  it('refreshes only once when the new OAuth token is refused too', async () => {
    const ws = await workspace(refusals[0]!, () => true);
    open = ws.server;
    const client = createDatabricksClient({ host: ws.url, credentials: { kind: 'oauth-m2m', clientId: 'sp-streamdoctor', clientSecret: SECRET }, sleep: async () => undefined });
    const error = await client.jobs.listRuns({ jobId: 1 }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ credentialsRejected: true, httpStatus: 403 });
    expect(ws.sent).toEqual(['Bearer eyJ.tok-1', 'Bearer eyJ.tok-2']);
  });
});
