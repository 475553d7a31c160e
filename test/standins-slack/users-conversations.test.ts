/**
 * users.conversations on the local Slack, as Slack documents it: the channels a user (or the calling
 * bot) is in; types, exclude_archived, limit and cursor paging (response_metadata.next_cursor);
 * private channels of another user only when the bot shares them; missing_scope / user_not_found.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalSlack, startLocalSlack } from '../../src/standins/slack/index.js';
import { ALERTS, callApi, MARIA, TOKEN } from './helpers.js';

const DEV = 'U0DEV00002';
const SAM = 'U0SAM00003';
const BOT = 'U0SDBOT001';
let slack: LocalSlack;

beforeEach(async () => {
  slack = await startLocalSlack({
    rateLimit: false,
    bots: [
      { token: TOKEN, userId: BOT, botId: 'B0SDBOT001', appId: 'A0SDAPP001', name: 'StreamDoctor' },
      { token: 'xoxb-no-groups', userId: 'U0NOGROUP1', botId: 'B0NOGROUP1', appId: 'A0NOGROUP1', name: 'Narrow', scopes: ['channels:read', 'chat:write'] },
    ],
    channels: [
      { id: ALERTS, name: 'data-alerts' }, // everyone, the bot included
      { id: 'C0STREAMNG', name: 'streaming', members: [MARIA, SAM, BOT] },
      { id: 'C0OLDALERT', name: 'old-alerts', members: [MARIA, DEV, BOT], isArchived: true },
      { id: 'C0NOBOT001', name: 'random', members: [MARIA, DEV] },
      { id: 'G0OPSPRIV1', name: 'ops-private', isPrivate: true, members: [MARIA, BOT] },
      { id: 'G0HRPRIV01', name: 'hr-private', isPrivate: true, members: [MARIA] },
    ],
  });
});

afterEach(async () => {
  await slack.close();
});

async function ids(body: Record<string, unknown>, token = TOKEN): Promise<string[]> {
  const { json } = await callApi(slack.apiUrl, 'users.conversations', body, { token });
  expect(json.ok).toBe(true);
  return (json.channels as { id: string }[]).map((c) => c.id);
}

describe('users.conversations', () => {
  it('lists the public channels a user is in by default, archived ones included unless excluded', async () => {
    expect(await ids({ user: DEV })).toEqual([ALERTS, 'C0OLDALERT', 'C0NOBOT001']);
    expect(await ids({ user: DEV, exclude_archived: true })).toEqual([ALERTS, 'C0NOBOT001']);
    const { json } = await callApi(slack.apiUrl, 'users.conversations', { user: DEV }, {});
    const old = (json.channels as { id: string; is_archived: boolean; is_private: boolean }[]).find((c) => c.id === 'C0OLDALERT')!;
    expect(old).toMatchObject({ is_archived: true, is_private: false, name: 'old-alerts' });
  });

  it('private channels need types=private_channel and, for another user, the bot in them', async () => {
    expect(await ids({ user: MARIA, types: 'public_channel,private_channel', exclude_archived: 'true' })).toEqual([ALERTS, 'C0STREAMNG', 'C0NOBOT001', 'G0OPSPRIV1']);
    expect(await ids({ user: MARIA, types: 'private_channel' })).toEqual(['G0OPSPRIV1']);
    // Without user: the bot's own channels.
    expect(await ids({ types: 'public_channel,private_channel' })).toEqual([ALERTS, 'C0STREAMNG', 'C0OLDALERT', 'G0OPSPRIV1']);
  });

  it('pages by limit with response_metadata.next_cursor until it is empty', async () => {
    const seen: string[] = [];
    let cursor = '';
    let pages = 0;
    for (; pages < 10; pages += 1) {
      const { json } = await callApi(slack.apiUrl, 'users.conversations', { user: MARIA, types: 'public_channel,private_channel', limit: 2, ...(cursor ? { cursor } : {}) }, {});
      expect(json.ok).toBe(true);
      expect(json.channels.length).toBeLessThanOrEqual(2);
      seen.push(...json.channels.map((c: { id: string }) => c.id));
      cursor = json.response_metadata.next_cursor;
      if (!cursor) break;
    }
    expect(pages).toBe(2);
    expect(seen).toEqual([ALERTS, 'C0STREAMNG', 'C0OLDALERT', 'C0NOBOT001', 'G0OPSPRIV1']);
  });

  it('answers the errors Slack answers', async () => {
    const unknown = await callApi(slack.apiUrl, 'users.conversations', { user: 'U0NOBODY01' }, {});
    expect(unknown.json).toEqual({ ok: false, error: 'user_not_found' });
    const cursor = await callApi(slack.apiUrl, 'users.conversations', { user: DEV, cursor: 'bm90LWFuLW9mZnNldA==' }, {});
    expect(cursor.json).toEqual({ ok: false, error: 'invalid_cursor' });
    const types = await callApi(slack.apiUrl, 'users.conversations', { user: DEV, types: 'public_channel,shared' }, {});
    expect(types.json).toEqual({ ok: false, error: 'invalid_types' });
    const scope = await callApi(slack.apiUrl, 'users.conversations', { user: DEV, types: 'public_channel,private_channel' }, { token: 'xoxb-no-groups' });
    expect(scope.json).toEqual({ ok: false, error: 'missing_scope', needed: 'channels:read,groups:read', provided: 'channels:read,chat:write' });
    expect(await ids({ user: DEV }, 'xoxb-no-groups')).toEqual([ALERTS, 'C0OLDALERT', 'C0NOBOT001']);
  });

  it('refuses a message in an archived channel as Slack does (is_archived), the bot a member or not', async () => {
    for (const method of ['chat.postMessage', 'chat.postEphemeral']) {
      const res = await callApi(slack.apiUrl, method, { channel: 'C0OLDALERT', user: MARIA, text: 'hello' });
      expect(res.json).toEqual({ ok: false, error: 'is_archived' });
    }
    expect(slack.messages('C0OLDALERT')).toEqual([]);
  });
});
