/**
 * Faults of the local Slack, as Slack's own look on the wire: 429 with Retry-After and nothing done,
 * 500/503 before the method ran, and the three where the method ran but the caller does not learn it
 * (500 after, a slow answer, a reset connection).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalSlack, startLocalSlack } from '../../src/standins/slack/index.js';
import { ALERTS, callApi } from './helpers.js';

let slack: LocalSlack;

beforeEach(async () => {
  slack = await startLocalSlack({ rateLimit: false });
});

afterEach(async () => {
  await slack.close();
});

const post = (text: string) => callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, text });

describe('local Slack faults', () => {
  it('a 429 storm: HTTP 429, Retry-After in whole seconds, error ratelimited, nothing posted; then normal', async () => {
    slack.faults.inject({ kind: 'rate_limit', method: 'chat.postMessage', times: 2, retryAfterSec: 3 });
    for (let i = 0; i < 2; i++) {
      const res = await post('lag');
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('3');
      expect(res.json).toEqual({ ok: false, error: 'ratelimited' });
    }
    expect(slack.messages(ALERTS)).toHaveLength(0);
    expect((await post('lag')).json.ok).toBe(true);
    expect(slack.messages(ALERTS)).toHaveLength(1);
    expect(slack.faults.hitCounts()).toEqual({ rate_limit: 2 });
  });

  it('500 and 503 before the method ran post nothing; other methods and channels are untouched', async () => {
    slack.faults.inject({ kind: 'server_error', method: 'chat.postMessage', channel: ALERTS });
    slack.faults.inject({ kind: 'unavailable', method: 'chat.postMessage', retryAfterSec: 2 });
    expect((await callApi(slack.apiUrl, 'auth.test', {})).json.ok).toBe(true);
    const first = await post('a');
    expect(first).toMatchObject({ status: 500, json: { ok: false, error: 'fatal_error' } });
    const second = await post('b');
    expect(second).toMatchObject({ status: 503, json: { ok: false, error: 'service_unavailable' } });
    expect(second.headers.get('retry-after')).toBe('2');
    expect(slack.messages(ALERTS)).toHaveLength(0);
  });

  it('500 after the method ran, a slow answer and a reset connection all leave the message posted', async () => {
    slack.faults.inject({ kind: 'server_error_after', method: 'chat.postMessage' });
    expect((await post('after')).status).toBe(500);
    expect(slack.messages(ALERTS).map((m) => m.text)).toEqual(['after']);

    slack.faults.inject({ kind: 'slow', method: 'chat.postMessage', delayMs: 300 });
    const started = Date.now();
    expect((await post('slow')).json.ok).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);

    slack.faults.inject({ kind: 'reset_after', method: 'chat.postMessage' });
    await expect(post('reset')).rejects.toThrow();
    expect(slack.messages(ALERTS).map((m) => m.text)).toEqual(['after', 'slow', 'reset']);
    expect(slack.faults.pending()).toEqual([]);
  });
});
