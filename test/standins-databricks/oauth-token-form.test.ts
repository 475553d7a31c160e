/**
 * `POST /oidc/v1/token` is a form post (`Content-Type: application/x-www-form-urlencoded`, HTTP Basic
 * client credentials, `grant_type=client_credentials&scope=all-apis`). A body sent as JSON, or
 * without a content type, is refused with 400 in OAuth's error shape; the bot's OAuth client, which
 * posts the form, still gets its token and uses it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabricksClient } from '../../src/databricks/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';

const CLIENT = { clientId: 'sp-form-test', clientSecret: 'sp-form-secret' };
const JOB = 6161;
let local: LocalDatabricks;

beforeAll(async () => {
  local = await startLocalDatabricks({ oauthClients: [CLIENT], speed: 0, jobs: [{ jobId: JOB, name: 'orders-stream', continuous: true }] });
  local.startRun(JOB);
});
afterAll(async () => local.close());

const basic = `Basic ${Buffer.from(`${CLIENT.clientId}:${CLIENT.clientSecret}`).toString('base64')}`;

async function token(body: string | Uint8Array, contentType: string | null) {
  const headers: Record<string, string> = { Authorization: basic };
  if (contentType) headers['Content-Type'] = contentType;
  const response = await fetch(`${local.url}/oidc/v1/token`, { method: 'POST', headers, body });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('POST /oidc/v1/token content type', () => {
  it('refuses a token request that is not form-encoded', async () => {
    const json = await token(JSON.stringify({ grant_type: 'client_credentials', scope: 'all-apis' }), 'application/json');
    expect(json).toEqual({ status: 400, json: { error: 'invalid_request', error_description: 'The token request must be sent as application/x-www-form-urlencoded.' } });
    // The right body under the wrong content type, or none, is refused the same way.
    expect((await token('grant_type=client_credentials&scope=all-apis', 'text/plain')).status).toBe(400);
    expect((await token(new TextEncoder().encode('grant_type=client_credentials&scope=all-apis'), null)).json.error).toBe('invalid_request');
  });

  it('issues a token for the form post, with or without a charset', async () => {
    for (const contentType of ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=utf-8']) {
      const answer = await token('grant_type=client_credentials&scope=all-apis', contentType);
      expect(answer.status).toBe(200);
      expect(answer.json).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'all-apis' });
    }
  });

  it("the bot's OAuth M2M client gets its token and reads runs with it", async () => {
    const client = createDatabricksClient({ host: local.url, credentials: { kind: 'oauth-m2m', ...CLIENT }, retry: { maxAttempts: 1 } });
    expect(await client.jobs.listAllRuns({ jobId: JOB, activeOnly: true })).toHaveLength(1);
    expect(client.stats().tokenRefreshes).toBe(1);
  });
});
