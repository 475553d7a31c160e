/** Each Web API method and the checks Slack makes: auth, required fields, block limits, rate limits. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalSlack, startLocalSlack } from '../../src/standins/slack/index.js';
import { ALERTS, callApi, LAG_ALERT, MARIA, ManualClock, TOKEN } from './helpers.js';

let slack: LocalSlack;
let clock: ManualClock;

beforeEach(async () => {
  clock = new ManualClock();
  slack = await startLocalSlack({
    now: clock.now,
    rateLimit: false,
    bots: [
      { token: TOKEN, userId: 'U0SDBOT001', botId: 'B0SDBOT001', appId: 'A0SDAPP001', name: 'StreamDoctor' },
      { token: 'xoxb-other-bot', userId: 'U0OTHER001', botId: 'B0OTHER001', appId: 'A0OTHER001', name: 'Other' },
    ],
    channels: [
      { id: ALERTS, name: 'data-alerts' },
      { id: 'C0PRIVATE1', name: 'secret', isPrivate: true, members: [MARIA] },
    ],
  });
});

afterEach(async () => {
  await slack.close();
});

describe('authentication', () => {
  it('answers not_authed without a token and invalid_auth for an unknown one, both with HTTP 200', async () => {
    const none = await callApi(slack.apiUrl, 'auth.test', {}, { token: null });
    expect(none).toMatchObject({ status: 200, json: { ok: false, error: 'not_authed' } });
    const bad = await callApi(slack.apiUrl, 'auth.test', {}, { token: 'xoxb-not-a-real-token' });
    expect(bad.json).toEqual({ ok: false, error: 'invalid_auth' });
  });

  it('accepts the token as a form field but not inside a JSON body', async () => {
    const form = await callApi(slack.apiUrl, 'auth.test', `token=${TOKEN}`, { token: null });
    expect(form.json).toMatchObject({ ok: true, user_id: 'U0SDBOT001', bot_id: 'B0SDBOT001', team_id: 'T0STREAMDR' });
    const json = await callApi(slack.apiUrl, 'auth.test', { token: TOKEN }, { token: null });
    expect(json.json.error).toBe('not_authed');
  });

  it('answers unknown_method for methods it does not implement, and logs calls without the token', async () => {
    const res = await callApi(slack.apiUrl, 'admin.users.list', {});
    expect(res.json.error).toBe('unknown_method');
    await callApi(slack.apiUrl, 'chat.postMessage', `token=${TOKEN}&channel=${ALERTS}&text=hello`, { token: null });
    const [call] = slack.calls('chat.postMessage');
    expect(call).toMatchObject({ ok: true, status: 200, args: { channel: ALERTS, text: 'hello' } });
    expect(JSON.stringify(slack.calls())).not.toContain(TOKEN);
  });
});

describe('chat.postMessage', () => {
  it('stores a realistic alert with Slack-shaped ts, block ids and bot identity (JSON body)', async () => {
    const res = await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, ...LAG_ALERT.open });
    expect(res.json.ok).toBe(true);
    expect(res.json.ts).toMatch(/^\d{10}\.\d{6}$/);
    expect(res.json.message).toMatchObject({ bot_id: 'B0SDBOT001', user: 'U0SDBOT001', text: LAG_ALERT.open.text });
    const [stored] = slack.messages(ALERTS);
    expect(stored?.blocks).toHaveLength(LAG_ALERT.open.blocks.length);
    // Blocks without a block_id get one, as Slack does; given ids are kept.
    expect(stored?.blocks?.every((b) => typeof b.block_id === 'string' && b.block_id.length > 0)).toBe(true);
    expect(stored?.blocks?.find((b) => b.type === 'actions')?.block_id).toBe('incident:a1b2c3d4-orders.lag.1795940000000');
  });

  it('gives interactive elements without an action_id one, and leaves images alone', async () => {
    await callApi(slack.apiUrl, 'chat.postMessage', {
      channel: ALERTS,
      text: 'x',
      blocks: [
        { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open' }, url: 'https://example.com' }] },
        { type: 'section', text: { type: 'mrkdwn', text: 'chart' }, accessory: { type: 'image', image_url: 'https://example.com/a.png', alt_text: 'a' } },
      ],
    });
    const [actions, section] = slack.messages(ALERTS)[0]!.blocks!;
    expect((actions!.elements as { action_id?: string }[])[0]!.action_id).toMatch(/^[A-Za-z0-9]{5}$/);
    expect((section!.accessory as { action_id?: string }).action_id).toBeUndefined();
  });

  it('accepts form bodies with blocks as a JSON string, and resolves #names', async () => {
    const body = new URLSearchParams({ channel: '#data-alerts', text: 'fallback', blocks: JSON.stringify(LAG_ALERT.open.blocks) });
    const res = await callApi(slack.apiUrl, 'chat.postMessage', body.toString());
    expect(res.json).toMatchObject({ ok: true, channel: ALERTS });
  });

  it('gives increasing ts values even within one millisecond', async () => {
    const a = await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, text: 'one' });
    const b = await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, text: 'two' });
    expect(Number(b.json.ts)).toBeGreaterThan(Number(a.json.ts));
  });

  it('checks required fields: channel_not_found, no_text, msg_too_long, not_in_channel', async () => {
    expect((await callApi(slack.apiUrl, 'chat.postMessage', { channel: 'C0NOWHERE1', text: 'x' })).json.error).toBe('channel_not_found');
    expect((await callApi(slack.apiUrl, 'chat.postMessage', { text: 'x' })).json.error).toBe('channel_not_found');
    expect((await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS })).json.error).toBe('no_text');
    expect((await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, text: '   ', blocks: [] })).json.error).toBe('no_text');
    expect((await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, text: 'x'.repeat(40_001) })).json.error).toBe('msg_too_long');
    expect((await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, text: 'x'.repeat(40_000) })).json.ok).toBe(true);
    expect((await callApi(slack.apiUrl, 'chat.postMessage', { channel: 'C0PRIVATE1', text: 'x' })).json.error).toBe('not_in_channel');
    expect((await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, text: 'x', thread_ts: '1700000000.000001' })).json.error).toBe('thread_not_found');
    expect(slack.messages(ALERTS)).toHaveLength(1);
  });

  it('refuses blocks holding more than 12,000 characters of text in all, each block within its limits (msg_blocks_too_long)', async () => {
    const sections = (count: number, chars: number) => Array.from({ length: count }, () => ({ type: 'section', text: { type: 'mrkdwn', text: 'x'.repeat(chars) } }));
    for (const method of ['chat.postMessage', 'chat.postEphemeral'] as const) {
      const over = await callApi(slack.apiUrl, method, { channel: ALERTS, user: MARIA, text: 'x', blocks: sections(5, 2_401) });
      expect(over.json).toMatchObject({ ok: false, error: 'msg_blocks_too_long' });
    }
    const posted = await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, text: 'x', blocks: sections(4, 3_000) });
    expect(posted.json.ok).toBe(true);
    const updated = await callApi(slack.apiUrl, 'chat.update', { channel: ALERTS, ts: posted.json.ts, text: 'x', blocks: sections(5, 2_401) });
    expect(updated.json).toMatchObject({ ok: false, error: 'msg_blocks_too_long' });
  });

  it('rejects invalid blocks with the explanation Slack gives', async () => {
    const tooMany = Array.from({ length: 51 }, () => ({ type: 'divider' }));
    const res = await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, text: 'x', blocks: tooMany });
    expect(res.json).toMatchObject({ ok: false, error: 'invalid_blocks' });
    expect(res.json.response_metadata.messages).toContain('[ERROR] no more than 50 items allowed [json-pointer:/blocks]');
    const long = await callApi(slack.apiUrl, 'chat.postMessage', {
      channel: ALERTS,
      text: 'x',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'a'.repeat(3001) } }],
    });
    expect(long.json.response_metadata.messages).toEqual(['[ERROR] must be less than 3001 characters [json-pointer:/blocks/0/text/text]']);
    const format = await callApi(slack.apiUrl, 'chat.postMessage', `channel=${ALERTS}&text=x&blocks=%5B%7Bnot-json`);
    expect(format.json.error).toBe('invalid_blocks_format');
    expect(slack.messages(ALERTS)).toHaveLength(0);
  });

  it('threads replies under their parent with reply_count and reply_users', async () => {
    const parent = await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, ...LAG_ALERT.open });
    await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, text: 'Time behind now 15m 02s', thread_ts: parent.json.ts });
    const second = await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, text: 'Resolved after 42m', thread_ts: parent.json.ts });
    expect(second.json.message.thread_ts).toBe(parent.json.ts);
    expect(slack.messages(ALERTS)).toHaveLength(1);
    expect(slack.messages(ALERTS)[0]).toMatchObject({ reply_count: 2, reply_users: ['U0SDBOT001'], latest_reply: second.json.ts });
    expect(slack.thread(ALERTS, parent.json.ts).map((m) => m.text)).toEqual([
      LAG_ALERT.open.text,
      'Time behind now 15m 02s',
      'Resolved after 42m',
    ]);
  });
});

describe('chat.update', () => {
  it('replaces text and blocks in place, keeps blocks left out, and refuses other messages', async () => {
    const posted = await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, ...LAG_ALERT.open });
    const updated = await callApi(slack.apiUrl, 'chat.update', { channel: ALERTS, ts: posted.json.ts, ...LAG_ALERT.acknowledged });
    expect(updated.json).toMatchObject({ ok: true, channel: ALERTS, ts: posted.json.ts, text: LAG_ALERT.acknowledged.text });
    expect(JSON.stringify(slack.messages(ALERTS)[0]?.blocks)).toContain('Acknowledged by');
    const textOnly = await callApi(slack.apiUrl, 'chat.update', { channel: ALERTS, ts: posted.json.ts, text: 'new fallback' });
    expect(textOnly.json.ok).toBe(true);
    expect(slack.messages(ALERTS)[0]?.blocks?.length).toBe(LAG_ALERT.acknowledged.blocks.length);

    expect((await callApi(slack.apiUrl, 'chat.update', { channel: ALERTS, ts: '1700000000.000100', text: 'x' })).json.error).toBe('message_not_found');
    const other = await callApi(slack.apiUrl, 'chat.update', { channel: ALERTS, ts: posted.json.ts, text: 'hijack' }, { token: 'xoxb-other-bot' });
    expect(other.json.error).toBe('cant_update_message');
    const userMessage = await slack.interactions.userMessage({ user: MARIA, channel: ALERTS, text: 'looking into it' });
    expect((await callApi(slack.apiUrl, 'chat.update', { channel: ALERTS, ts: userMessage.ts, text: 'x' })).json.error).toBe('cant_update_message');
    expect(slack.messages(ALERTS)[0]?.text).toBe('new fallback');
  });

  it('validates the new blocks too', async () => {
    const posted = await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, text: 'x' });
    const res = await callApi(slack.apiUrl, 'chat.update', {
      channel: ALERTS,
      ts: posted.json.ts,
      blocks: [{ type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } }],
    });
    expect(res.json.error).toBe('invalid_blocks');
    expect(slack.messages(ALERTS)[0]?.text).toBe('x');
  });
});

describe('other methods', () => {
  it('chat.postEphemeral is kept for one user only', async () => {
    const res = await callApi(slack.apiUrl, 'chat.postEphemeral', { channel: ALERTS, user: MARIA, text: 'Only you: silenced for 2h' });
    expect(res.json.message_ts).toMatch(/^\d{10}\.\d{6}$/);
    expect(slack.ephemerals(ALERTS, MARIA).map((e) => e.text)).toEqual(['Only you: silenced for 2h']);
    expect(slack.ephemerals(ALERTS, 'U0DEV00002')).toEqual([]);
    expect(slack.messages(ALERTS)).toEqual([]);
    expect((await callApi(slack.apiUrl, 'chat.postEphemeral', { channel: ALERTS, user: 'U0NOBODY01', text: 'x' })).json.error).toBe('user_not_found');
    expect((await callApi(slack.apiUrl, 'chat.postEphemeral', { channel: 'C0PRIVATE1', user: 'U0DEV00002', text: 'x' })).json.error).toBe('not_in_channel');
  });

  it('conversations.info, conversations.list (paged), users.info, chat.getPermalink', async () => {
    const info = await callApi(slack.apiUrl, 'conversations.info', { channel: ALERTS });
    expect(info.json.channel).toMatchObject({ id: ALERTS, name: 'data-alerts', is_channel: true, is_member: true });
    expect((await callApi(slack.apiUrl, 'conversations.info', { channel: 'C0NOWHERE1' })).json.error).toBe('channel_not_found');
    const page1 = await callApi(slack.apiUrl, 'conversations.list', { types: 'public_channel,private_channel', limit: 1 });
    expect(page1.json.channels).toHaveLength(1);
    const page2 = await callApi(slack.apiUrl, 'conversations.list', { types: 'public_channel,private_channel', limit: 1, cursor: page1.json.response_metadata.next_cursor });
    expect(page2.json.channels[0].id).toBe('C0PRIVATE1');
    expect(page2.json.response_metadata.next_cursor).toBe('');
    const user = await callApi(slack.apiUrl, 'users.info', { user: MARIA });
    expect(user.json.user).toMatchObject({ id: MARIA, name: 'maria', real_name: 'Maria Costa', tz: 'Europe/Lisbon' });
    expect((await callApi(slack.apiUrl, 'users.info', { user: 'U0NOBODY01' })).json.error).toBe('user_not_found');
    const posted = await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, text: 'x' });
    const link = await callApi(slack.apiUrl, 'chat.getPermalink', { channel: ALERTS, message_ts: posted.json.ts });
    expect(link.json.permalink).toBe(`${slack.url}/archives/${ALERTS}/p${String(posted.json.ts).replace('.', '')}`);
  });
});

describe('conversations.history / replies', () => {
  it('finds a message by its metadata only with include_all_metadata, newest first, paged', async () => {
    const metadata = { event_type: 'streamdoctor_message', event_payload: { key: 'incident:orders.lag' } };
    const first = await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, ...LAG_ALERT.open, metadata });
    clock.advance(1000);
    const second = await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, text: 'later' });
    await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, text: 'reply', thread_ts: first.json.ts });
    const plain = await callApi(slack.apiUrl, 'conversations.history', { channel: ALERTS });
    expect(plain.json.messages.map((m: { ts: string }) => m.ts)).toEqual([second.json.ts, first.json.ts]);
    expect(plain.json.messages[1].metadata).toBeUndefined();
    const withMeta = await callApi(slack.apiUrl, 'conversations.history', { channel: ALERTS, include_all_metadata: true, limit: 1 });
    expect(withMeta.json).toMatchObject({ has_more: true });
    const next = await callApi(slack.apiUrl, 'conversations.history', { channel: ALERTS, include_all_metadata: true, limit: 1, cursor: withMeta.json.response_metadata.next_cursor });
    expect(next.json.messages[0].metadata).toEqual(metadata);
    const newer = await callApi(slack.apiUrl, 'conversations.history', { channel: ALERTS, oldest: first.json.ts });
    expect(newer.json.messages.map((m: { ts: string }) => m.ts)).toEqual([second.json.ts]);
    const thread = await callApi(slack.apiUrl, 'conversations.replies', { channel: ALERTS, ts: first.json.ts });
    expect(thread.json.messages.map((m: { text: string }) => m.text)).toEqual([LAG_ALERT.open.text, 'reply']);
    // chat.update can change the metadata too.
    const newMeta = { event_type: 'streamdoctor_message', event_payload: { key: 'incident:orders.lag:v2' } };
    await callApi(slack.apiUrl, 'chat.update', { channel: ALERTS, ts: first.json.ts, text: 'x', metadata: newMeta });
    expect(slack.messages(ALERTS)[0]?.metadata).toEqual(newMeta);
  });
});

describe('rate limit', () => {
  it('answers 429 with Retry-After beyond about one message per second per channel, and recovers', async () => {
    const limited = await startLocalSlack({ now: clock.now, rateLimit: { perSecond: 1, burst: 2 } });
    try {
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      let body: Record<string, unknown> = {};
      for (let i = 0; i < 5; i += 1) {
        const res = await callApi(limited.apiUrl, 'chat.postMessage', { channel: ALERTS, text: `update ${i}` });
        statuses.push(res.status);
        if (res.status === 429) {
          retryAfter = res.headers.get('retry-after');
          body = res.json;
        }
      }
      // 1 + burst 2 accepted at once, then 429s.
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      expect(retryAfter).toBe('1');
      expect(body).toEqual({ ok: false, error: 'ratelimited' });
      // Another channel has its own budget.
      expect((await callApi(limited.apiUrl, 'chat.postMessage', { channel: 'C0STREAMNG', text: 'x' })).status).toBe(200);
      clock.advance(1000);
      expect((await callApi(limited.apiUrl, 'chat.postMessage', { channel: ALERTS, text: 'later' })).status).toBe(200);
      expect(limited.messages(ALERTS).map((m) => m.text)).toEqual(['update 0', 'update 1', 'update 2', 'later']);
      // chat.update is not limited per channel.
      const ts = limited.messages(ALERTS)[0]!.ts;
      expect((await callApi(limited.apiUrl, 'chat.update', { channel: ALERTS, ts, text: 'edited' })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('holds every other method to its tier, per workspace and app: conversations.list (Tier 2) answers 429 on its 21st call in a minute', async () => {
    const limited = await startLocalSlack({ now: clock.now });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 20; i += 1) statuses.push((await callApi(limited.apiUrl, 'conversations.list', {})).status);
      expect(statuses.every((s) => s === 200)).toBe(true);
      const refused = await callApi(limited.apiUrl, 'conversations.list', {});
      expect(refused.status).toBe(429);
      expect(refused.json).toEqual({ ok: false, error: 'ratelimited' });
      expect(Number(refused.headers.get('retry-after'))).toBe(60);
      // Other methods keep their own budgets.
      expect((await callApi(limited.apiUrl, 'conversations.history', { channel: ALERTS })).status).toBe(200);
      clock.advance(60_000);
      expect((await callApi(limited.apiUrl, 'conversations.list', {})).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('takes budgets over the tiers for methods it limits, and refuses a budget for anything else', async () => {
    const limited = await startLocalSlack({ now: clock.now, rateLimit: { methodsPerMinute: { 'conversations.history': 1 } } });
    try {
      expect((await callApi(limited.apiUrl, 'conversations.history', { channel: ALERTS })).status).toBe(200);
      expect((await callApi(limited.apiUrl, 'conversations.history', { channel: ALERTS })).status).toBe(429);
      expect((await callApi(limited.apiUrl, 'conversations.replies', { channel: ALERTS, ts: '1.000001' })).status).toBe(200);
    } finally {
      await limited.close();
    }
    await expect(startLocalSlack({ rateLimit: { methodsPerMinute: { 'chat.postMessage': 5 } } })).rejects.toThrow(/methodsPerMinute names chat.postMessage/);
    await expect(startLocalSlack({ rateLimit: { methodsPerMinute: { 'conversations.list': 0 } } })).rejects.toThrow(/integer >= 1/);
  });
});
