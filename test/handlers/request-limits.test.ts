/**
 * POST /slack/events refuses what cannot be a Slack request before reading its body: no signature
 * headers, a timestamp over 5 minutes from now either way, a declared body over the limit.
 */
import { createHmac } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL, MARIA, SIGNING_SECRET, startHarness, type Harness } from './helpers/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
});

/**
 * Sends the headers (and `body`, when given) and leaves the request open: the status must come back
 * without the rest of the body. Resolves to the status, or 'no answer' after `waitMs`.
 */
function openRequest(headers: Record<string, string>, body?: string, waitMs = 2_000): Promise<number | 'no answer'> {
  return new Promise((resolve, reject) => {
    const req = request(h.eventsUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    req.on('error', (error) => (String(error).includes('ECONNRESET') ? undefined : reject(error)));
    req.flushHeaders();
    if (body !== undefined) req.write(body);
    setTimeout(() => {
      resolve('no answer');
      req.destroy();
    }, waitMs);
  });
}

function signature(timestampSec: number, body: string): string {
  return `v0=${createHmac('sha256', SIGNING_SECRET).update(`v0:${timestampSec}:${body}`).digest('hex')}`;
}

describe('request limits', () => {
  it('refuses an unsigned request at once, while its body is still coming', async () => {
    expect(await openRequest({ 'content-length': String(3 * 1024 * 1024) }, 'x'.repeat(1000))).toBe(401);
  });

  it('refuses a validly signed request dated 6 minutes ahead', async () => {
    const body = new URLSearchParams({ command: '/stream', text: 'help', user_id: MARIA, channel_id: CHANNEL, response_url: `${h.slack.url}/respond/x`, trigger_id: '1.2.3' }).toString();
    const ahead = Math.floor(Date.now() / 1000) + 6 * 60;
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(h.eventsUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-slack-request-timestamp': String(ahead), 'x-slack-signature': signature(ahead, body) },
      }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(status).toBe(401);
  });

  it('refuses a declared body over 1 MB before reading it', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(await openRequest({ 'content-length': String(2 * 1024 * 1024), 'x-slack-request-timestamp': String(now), 'x-slack-signature': 'v0=00' }, 'x')).toBe(413);
  });

  it('still answers a signed command after all that', async () => {
    const outcome = await h.slack.interactions.slashCommand({ user: MARIA, channel: CHANNEL, text: 'help' });
    expect(outcome.delivery.status).toBe(200);
  });
});
