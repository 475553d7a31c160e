/**
 * Platform rules Slack states and the stand-in enforces, over real HTTP: chat.update's Tier 3 rate
 * limit (50 per minute per workspace and app) and no edits of ephemeral messages, Events API
 * redelivery of an event not answered with a 2xx within 3 s, action_id a string of at most 255
 * characters.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalSlack, startLocalSlack } from '../../src/standins/slack/index.js';
import { ALERTS, callApi, MARIA, ManualClock, TOKEN } from './helpers.js';

const OTHER_TOKEN = 'xoxb-other-bot';
const BOTS = [
  { token: TOKEN, userId: 'U0SDBOT001', botId: 'B0SDBOT001', appId: 'A0SDAPP001', name: 'StreamDoctor' },
  { token: OTHER_TOKEN, userId: 'U0OTHER001', botId: 'B0OTHER001', appId: 'A0OTHER001', name: 'Other' },
];

describe('chat.update', () => {
  let slack: LocalSlack;
  let clock: ManualClock;

  beforeEach(async () => {
    clock = new ManualClock();
    slack = await startLocalSlack({ now: clock.now, bots: BOTS });
  });

  afterEach(async () => {
    await slack.close();
  });

  it('Tier 3: answers the 51st update within a minute (per workspace and app) with 429, Retry-After and ratelimited, changes nothing, and recovers', async () => {
    const posted = await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, text: 'v0' });
    const ts = posted.json.ts as string;
    for (let i = 1; i <= 50; i += 1) {
      clock.advance(1000);
      const res = await callApi(slack.apiUrl, 'chat.update', { channel: ALERTS, ts, text: `v${i}` });
      expect(res.status).toBe(200);
    }
    // 50 updates from 1 s to 50 s: the next one waits until the first leaves the minute, at 61 s.
    const refused = await callApi(slack.apiUrl, 'chat.update', { channel: ALERTS, ts, text: 'too many' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('11');
    expect(refused.json).toEqual({ ok: false, error: 'ratelimited' });
    expect(slack.messages(ALERTS)[0]!.text).toBe('v50');
    // Another app in the workspace has a budget of its own.
    const theirs = await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, text: 'other' }, { token: OTHER_TOKEN });
    expect((await callApi(slack.apiUrl, 'chat.update', { channel: ALERTS, ts: theirs.json.ts, text: 'edited' }, { token: OTHER_TOKEN })).status).toBe(200);
    clock.advance(11_000);
    expect((await callApi(slack.apiUrl, 'chat.update', { channel: ALERTS, ts, text: 'later' })).status).toBe(200);
    expect(slack.messages(ALERTS)[0]!.text).toBe('later');
  });

  it('never edits an ephemeral message: it is not a channel message, so message_not_found', async () => {
    const ephemeral = await callApi(slack.apiUrl, 'chat.postEphemeral', { channel: ALERTS, user: MARIA, text: 'only you' });
    const res = await callApi(slack.apiUrl, 'chat.update', { channel: ALERTS, ts: ephemeral.json.message_ts, text: 'edited' });
    expect(res.json).toEqual({ ok: false, error: 'message_not_found' });
    expect(slack.ephemerals(ALERTS, MARIA).map((e) => e.text)).toEqual(['only you']);
  });

  it('Tier 3 is off with rateLimit: false, like the chat.postMessage limit', async () => {
    const free = await startLocalSlack({ now: clock.now, rateLimit: false });
    try {
      const ts = (await callApi(free.apiUrl, 'chat.postMessage', { channel: ALERTS, text: 'v0' })).json.ts as string;
      for (let i = 1; i <= 60; i += 1) {
        expect((await callApi(free.apiUrl, 'chat.update', { channel: ALERTS, ts, text: `v${i}` })).status).toBe(200);
      }
    } finally {
      await free.close();
    }
  });
});

describe('Events API redelivery', () => {
  let slack: LocalSlack;
  let app: Server;
  let received: { headers: IncomingMessage['headers']; envelope: Record<string, any> }[];
  let answer: (attempt: number) => { status: number; delayMs?: number };

  /** Resolves once `count` deliveries arrived, or after `ms`; then what arrived is checked. */
  async function deliveries(count: number, ms: number): Promise<void> {
    const until = Date.now() + ms;
    while (received.length < count && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
  }

  async function start(eventRetryDelaysMs?: number[]): Promise<void> {
    slack = await startLocalSlack({
      rateLimit: false,
      requestUrl: `http://127.0.0.1:${(app.address() as AddressInfo).port}/slack/events`,
      ...(eventRetryDelaysMs ? { eventRetryDelaysMs } : {}),
    });
  }

  beforeEach(async () => {
    received = [];
    answer = () => ({ status: 200 });
    app = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, envelope: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        const a = answer(received.length);
        setTimeout(() => {
          if (res.destroyed) return;
          res.writeHead(a.status);
          res.end();
        }, a.delayMs ?? 0);
      });
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  });

  afterEach(async () => {
    await slack.close();
    app.closeAllConnections();
    await new Promise<void>((resolve) => app.close(() => resolve()));
  });

  it('retries an event answered with an error 3 more times, numbered, with the same event_id', async () => {
    await start([0, 20, 40]);
    answer = () => ({ status: 500 });
    const outcome = await slack.interactions.event({ type: 'app_home_opened', user: MARIA, tab: 'home' });
    await deliveries(5, 1000);
    expect(received).toHaveLength(4);
    expect(received.map((r) => r.headers['x-slack-retry-num'])).toEqual([undefined, '1', '2', '3']);
    expect(received.slice(1).map((r) => r.headers['x-slack-retry-reason'])).toEqual(['http_error', 'http_error', 'http_error']);
    expect(new Set(received.map((r) => r.envelope.event_id))).toEqual(new Set([outcome.eventId]));
  });

  it('stops once the app answers 2xx, and never retries an event answered at once', async () => {
    await start([0, 20, 40]);
    answer = (attempt) => ({ status: attempt === 1 ? 503 : 200 });
    await slack.interactions.event({ type: 'app_home_opened', user: MARIA, tab: 'home' });
    await deliveries(3, 300);
    expect(received.map((r) => r.headers['x-slack-retry-num'])).toEqual([undefined, '1']);
    received = [];
    answer = () => ({ status: 200 });
    await slack.interactions.event({ type: 'app_home_opened', user: MARIA, tab: 'home' });
    await deliveries(2, 300);
    expect(received).toHaveLength(1);
  });

  it('an answer later than 3 s is a timeout: retried at once with reason http_timeout, the next ones 1 and 5 minutes on', async () => {
    await start();
    answer = (attempt) => ({ status: 200, delayMs: attempt === 1 ? 3300 : 0 });
    const outcome = await slack.interactions.event({ type: 'app_home_opened', user: MARIA, tab: 'home' });
    expect(outcome.error).toBe('operation_timeout');
    // The retry 1 minute on is still pending when the test ends; close() cancels it.
    await deliveries(3, 1000);
    expect(received).toHaveLength(2);
    expect(received[1]!.headers['x-slack-retry-num']).toBe('1');
    expect(received[1]!.headers['x-slack-retry-reason']).toBe('http_timeout');
    expect(slack.options.eventRetryDelaysMs).toEqual([0, 60_000, 300_000]);
  }, 15_000);
});

describe('action_id', () => {
  let slack: LocalSlack;

  beforeEach(async () => {
    slack = await startLocalSlack({ rateLimit: false });
  });

  afterEach(async () => {
    await slack.close();
  });

  it('must be a string (of at most 255 characters), as block_id must', async () => {
    const res = await callApi(slack.apiUrl, 'chat.postMessage', {
      channel: ALERTS,
      text: 'x',
      blocks: [{ type: 'actions', elements: [{ type: 'button', action_id: 42, text: { type: 'plain_text', text: 'Go' } }] }],
    });
    expect(res.json).toMatchObject({ ok: false, error: 'invalid_blocks' });
    expect(res.json.response_metadata.messages).toEqual(['[ERROR] must be a string [json-pointer:/blocks/0/elements/0/action_id]']);
    expect(slack.messages(ALERTS)).toHaveLength(0);
  });
});

describe('slash commands', () => {
  let slack: LocalSlack;
  let app: Server;
  let received = 0;

  beforeEach(async () => {
    received = 0;
    app = createServer((req, res) => {
      received += 1;
      req.resume();
      req.on('end', () => res.end());
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', () => resolve()));
    slack = await startLocalSlack({ rateLimit: false, requestUrl: `http://127.0.0.1:${(app.address() as AddressInfo).port}/slack/events` });
  });

  afterEach(async () => {
    await slack.close();
    await new Promise((resolve) => app.close(resolve));
  });

  it('a command no app registered never reaches the app: Slack says it is not valid', async () => {
    await expect(slack.interactions.slashCommand({ user: MARIA, channel: ALERTS, text: 'status', command: '/streams' })).rejects.toThrow('/streams is not a valid command');
    expect(received).toBe(0);
    expect(slack.ephemerals(ALERTS, MARIA).map((e) => e.text)).toEqual([expect.stringContaining('/streams is not a valid command')]);
    // The app's own command, in any case, is delivered.
    await slack.interactions.slashCommand({ user: MARIA, channel: ALERTS, text: 'status', command: '/Stream' });
    expect(received).toBe(1);
  });
});
