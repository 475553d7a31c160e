/**
 * What the stand-in sends into an app: signed bodies shaped as Slack's, trigger_ids valid 3 s and
 * once, response_urls valid 5 times in 30 min, Events API envelopes with retry headers.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { computeSlackSignature, LocalSlack, startLocalSlack, verifySlackSignature } from '../../src/standins/slack/index.js';
import { ALERTS, callApi, LAG_ALERT, MARIA, ManualClock } from './helpers.js';

interface Received {
  headers: IncomingMessage['headers'];
  raw: string;
}

const SECRET = 'delivery-secret';
let slack: LocalSlack;
let clock: ManualClock;
let app: Server;
let received: Received[];
let answer: (r: Received) => { status: number; body: string; type?: string };

beforeEach(async () => {
  clock = new ManualClock(Date.now());
  received = [];
  answer = () => ({ status: 200, body: '' });
  app = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') };
      received.push(r);
      const a = answer(r);
      res.writeHead(a.status, { 'content-type': a.type ?? 'text/plain' });
      res.end(a.body);
    });
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  slack = await startLocalSlack({
    signingSecret: SECRET,
    now: clock.now,
    rateLimit: false,
    requestUrl: `http://127.0.0.1:${(app.address() as AddressInfo).port}/slack/events`,
  });
});

afterEach(async () => {
  await slack.close();
  await new Promise<void>((resolve) => app.close(() => resolve()));
});

function payloadOf(r: Received): Record<string, any> {
  return JSON.parse(new URLSearchParams(r.raw).get('payload')!);
}

describe('signing', () => {
  it('signs v0:{ts}:{raw body} with HMAC-SHA256 so an app can verify it', async () => {
    await slack.interactions.slashCommand({ user: MARIA, channel: ALERTS, text: 'status orders' });
    const [r] = received;
    expect(r!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(r!.headers['x-slack-request-timestamp']).toBe(String(Math.floor(clock.ms / 1000)));
    expect(
      verifySlackSignature({
        signingSecret: SECRET,
        rawBody: r!.raw,
        signature: r!.headers['x-slack-signature'] as string,
        timestampSec: r!.headers['x-slack-request-timestamp'] as string,
        nowMs: clock.ms,
      }),
    ).toBe(true);
    expect(verifySlackSignature({ signingSecret: 'wrong', rawBody: r!.raw, signature: r!.headers['x-slack-signature'] as string, timestampSec: r!.headers['x-slack-request-timestamp'] as string, nowMs: clock.ms })).toBe(false);
  });

  it('matches the documented example signature', () => {
    // Slack's published example: secret, timestamp and body from the "Verifying requests" guide.
    const body =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    expect(computeSlackSignature('8f742231b10e8888abcd99yyyzzz85a5', 1531420618, body)).toBe(
      'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
    );
  });
});

describe('slash commands', () => {
  it('sends the form fields Slack sends, with a response_url back to the stand-in', async () => {
    const outcome = await slack.interactions.slashCommand({ user: MARIA, channel: ALERTS, text: 'mute orders-enrich 2h' });
    const form = new URLSearchParams(received[0]!.raw);
    expect(Object.fromEntries(form)).toMatchObject({
      team_id: 'T0STREAMDR',
      team_domain: 'streamdoctor-demo',
      channel_id: ALERTS,
      channel_name: 'data-alerts',
      user_id: MARIA,
      user_name: 'maria',
      command: '/stream',
      text: 'mute orders-enrich 2h',
      api_app_id: 'A0SDAPP001',
      response_url: outcome.responseUrl,
      trigger_id: outcome.triggerId,
    });
    expect(outcome.responseUrl.startsWith(`${slack.url}/response/`)).toBe(true);
  });

  it('shows a JSON ack in_channel as a channel message from the app', async () => {
    answer = () => ({ status: 200, type: 'application/json', body: JSON.stringify({ response_type: 'in_channel', text: 'orders-enrich muted for 2h by <@U0MARIA001>' }) });
    await slack.interactions.slashCommand({ user: MARIA, channel: ALERTS, text: 'mute orders-enrich 2h' });
    expect(slack.messages(ALERTS).map((m) => m.text)).toEqual(['orders-enrich muted for 2h by <@U0MARIA001>']);
  });

  it('tells the person when the app is unreachable or times out', async () => {
    slack.setRequestUrl('http://127.0.0.1:9/slack/events');
    const out = await slack.interactions.slashCommand({ user: MARIA, channel: ALERTS, text: 'status' });
    expect(out).toMatchObject({ error: 'dispatch_failed', delivery: { status: 0, failure: 'unreachable' } });
    slack.setRequestUrl(undefined);
    const none = await slack.interactions.slashCommand({ user: MARIA, channel: ALERTS, text: 'status' });
    expect(none.delivery.failure).toBe('no_request_url');
  });
});

describe('response_url', () => {
  it('records every use: ephemeral by default, in_channel, replace_original of the ephemeral; 5 uses at most', async () => {
    const { responseUrl } = await slack.interactions.slashCommand({ user: MARIA, channel: ALERTS, text: 'status' });
    const post = (body: unknown): Promise<Response> =>
      fetch(responseUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post({ text: 'Working on it…' })).status).toBe(200);
    expect(slack.ephemerals(ALERTS, MARIA).map((e) => e.text)).toEqual(['Working on it…']);
    expect((await post({ replace_original: true, text: '3 streams: 2 healthy, 1 falling behind' })).status).toBe(200);
    expect(slack.ephemerals(ALERTS, MARIA).map((e) => e.text)).toEqual(['3 streams: 2 healthy, 1 falling behind']);
    expect((await post({ response_type: 'in_channel', ...LAG_ALERT.open })).status).toBe(200);
    expect(slack.messages(ALERTS)).toHaveLength(1);
    const invalid = await post({ text: 'x', blocks: [{ type: 'nonsense' }] });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ ok: false, error: 'invalid_blocks' });
    expect((await post({ delete_original: true })).status).toBe(200);
    expect(slack.ephemerals(ALERTS, MARIA)).toEqual([]);
    const sixth = await post({ text: 'one too many' });
    expect(sixth.status).toBe(404);
    expect(await sixth.json()).toEqual({ ok: false, error: 'used_url' });
    const record = slack.responses().find((r) => r.url === responseUrl)!;
    expect(record.uses).toBe(5);
    expect(record.responses).toHaveLength(5);
  });

  it('expires after 30 minutes', async () => {
    const { responseUrl } = await slack.interactions.slashCommand({ user: MARIA, channel: ALERTS, text: 'status' });
    clock.advance(30 * 60_000 + 1);
    const res = await fetch(responseUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"late"}' });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ ok: false, error: 'expired_url' });
  });
});

describe('block_actions', () => {
  it('carries the clicked button, the message, the container, a trigger_id and a response_url', async () => {
    const posted = await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, ...LAG_ALERT.open });
    await slack.interactions.messageAction({ user: MARIA, channel: ALERTS, messageTs: posted.json.ts, actionId: 'incident_acknowledge' });
    const payload = payloadOf(received[0]!);
    expect(payload).toMatchObject({
      type: 'block_actions',
      user: { id: MARIA, username: 'maria', team_id: 'T0STREAMDR' },
      api_app_id: 'A0SDAPP001',
      team: { id: 'T0STREAMDR' },
      container: { type: 'message', message_ts: posted.json.ts, channel_id: ALERTS, is_ephemeral: false },
      channel: { id: ALERTS, name: 'data-alerts' },
      message: { ts: posted.json.ts, bot_id: 'B0SDBOT001' },
      actions: [{ type: 'button', action_id: 'incident_acknowledge', block_id: 'incident:a1b2c3d4-orders.lag.1795940000000', value: 'a1b2c3d4-orders.lag.1795940000000', style: 'primary' }],
    });
    expect(payload.trigger_id).toMatch(/^\d+\.\d+\.[0-9a-f]{32}$/);
    expect(payload.response_url.startsWith(`${slack.url}/response/`)).toBe(true);
  });

  it('reports the picked option of a static_select and refuses options the menu does not offer', async () => {
    const posted = await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, ...LAG_ALERT.open });
    await slack.interactions.messageAction({ user: MARIA, channel: ALERTS, messageTs: posted.json.ts, actionId: 'incident_silence', selected: String(2 * 3_600_000) });
    const action = payloadOf(received[0]!).actions[0];
    expect(action).toMatchObject({ type: 'static_select', action_id: 'incident_silence', selected_option: { value: '7200000', text: { text: 'Silence 2 hours' } } });
    await expect(
      slack.interactions.messageAction({ user: MARIA, channel: ALERTS, messageTs: posted.json.ts, actionId: 'incident_silence', selected: 'forever' }),
    ).rejects.toThrow('option "forever" is not offered');
  });
});

describe('trigger_id and modals', () => {
  it('lets views.open use a trigger_id once within 3 seconds', async () => {
    const view = { type: 'modal', title: { type: 'plain_text', text: 'Tuning advice' }, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*maxOffsetsPerTrigger* = 1100000' } }] };
    const first = await slack.interactions.slashCommand({ user: MARIA, channel: ALERTS, text: 'tune orders' });
    expect((await callApi(slack.apiUrl, 'views.open', { trigger_id: first.triggerId, view })).json.ok).toBe(true);
    expect(slack.modals(MARIA)).toHaveLength(1);
    expect((await callApi(slack.apiUrl, 'views.open', { trigger_id: first.triggerId, view })).json.error).toBe('exchanged_trigger_id');
    const second = await slack.interactions.slashCommand({ user: MARIA, channel: ALERTS, text: 'tune orders' });
    clock.advance(3001);
    expect((await callApi(slack.apiUrl, 'views.open', { trigger_id: second.triggerId, view })).json.error).toBe('expired_trigger_id');
    expect((await callApi(slack.apiUrl, 'views.open', { trigger_id: '123.456.abc', view })).json.error).toBe('invalid_trigger_id');
  });

  it('validates views: modal title length, 100 blocks, home type; views.update checks the hash', async () => {
    const { triggerId } = await slack.interactions.slashCommand({ user: MARIA, channel: ALERTS, text: 'tune' });
    const longTitle = await callApi(slack.apiUrl, 'views.open', { trigger_id: triggerId, view: { type: 'modal', title: { type: 'plain_text', text: 'A title longer than 24 chars' }, blocks: [] } });
    expect(longTitle.json).toMatchObject({ ok: false, error: 'invalid_arguments' });
    expect(longTitle.json.response_metadata.messages[0]).toContain('/view/title/text');
    const blocks = Array.from({ length: 101 }, () => ({ type: 'divider' }));
    const home = await callApi(slack.apiUrl, 'views.publish', { user_id: MARIA, view: { type: 'home', blocks } });
    expect(home.json).toMatchObject({ ok: false, error: 'invalid_blocks' });
    const ok = await callApi(slack.apiUrl, 'views.publish', { user_id: MARIA, view: { type: 'home', blocks: blocks.slice(0, 100) } });
    expect(ok.json.view).toMatchObject({ type: 'home' });
    const stale = await callApi(slack.apiUrl, 'views.update', { view_id: ok.json.view.id, hash: 'stale', view: { type: 'home', blocks: [] } });
    expect(stale.json.error).toBe('hash_conflict');
    const fresh = await callApi(slack.apiUrl, 'views.update', { view_id: ok.json.view.id, hash: ok.json.view.hash, view: { type: 'home', blocks: [{ type: 'divider' }] } });
    expect(fresh.json.view.id).toBe(ok.json.view.id);
    expect(slack.homeView(MARIA)?.blocks).toHaveLength(1);
    expect((await callApi(slack.apiUrl, 'views.publish', { user_id: 'U0NOBODY01', view: { type: 'home', blocks: [] } })).json.error).toBe('user_not_found');
  });
});

describe('events', () => {
  it('wraps events in the Events API envelope, as JSON, with retry headers when asked', async () => {
    await slack.interactions.event({ type: 'app_home_opened', user: MARIA, tab: 'home' }, { retryNum: 1, retryReason: 'http_timeout' });
    const r = received[0]!;
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['x-slack-retry-num']).toBe('1');
    expect(r.headers['x-slack-retry-reason']).toBe('http_timeout');
    const envelope = JSON.parse(r.raw);
    expect(envelope).toMatchObject({
      type: 'event_callback',
      team_id: 'T0STREAMDR',
      api_app_id: 'A0SDAPP001',
      event: { type: 'app_home_opened', user: MARIA },
      authorizations: [{ team_id: 'T0STREAMDR', user_id: 'U0SDBOT001', is_bot: true }],
    });
    expect(envelope.event_id).toMatch(/^Ev[0-9A-Z]+$/);
  });

  it('a shared file becomes a message and a file_shared event, and the app can download it', async () => {
    const progress = '{"id":"a1b2","runId":"r1","batchId":18423,"numInputRows":1970000}\n';
    const shared = await slack.interactions.shareFile({ user: MARIA, channel: ALERTS, name: 'progress.jsonl', bytes: Buffer.from(progress) });
    const events = received.map((r) => JSON.parse(r.raw).event);
    expect(events.map((e) => e.type)).toEqual(['message', 'file_shared']);
    expect(events[1]).toMatchObject({ file_id: shared.fileId, channel_id: ALERTS, user_id: MARIA });
    const info = await callApi(slack.apiUrl, 'files.info', { file: shared.fileId });
    const download = await fetch(info.json.file.url_private_download, { headers: { authorization: 'Bearer xoxb-local-streamdoctor' } });
    expect(await download.text()).toBe(progress);
  });
});
