/**
 * The local Slack is as strict as Slack about scopes and channels: each method
 * checks the bot token's scopes (the default bot holds exactly manifest.yml's), history needs
 * channels:history / groups:history and membership (`not_in_channel` for a public channel reached only
 * through chat:write.public), conversations.join lets the bot in, private channels without the bot are
 * `channel_not_found`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_BOT, LocalSlack, startLocalSlack } from '../../src/standins/slack/index.js';
import { manifestBotScopes } from '../../src/standins/slack/web-api/scopes.js';
import { callApi, MARIA } from './helpers.js';

const DEV = 'U0DEV00002';
// The scopes of an app installed from an older manifest: no history, no join.
const OLD_SCOPES = ['commands', 'chat:write', 'chat:write.public', 'files:write', 'files:read', 'channels:read', 'groups:read', 'usergroups:read'];
let slack: LocalSlack;

beforeEach(async () => {
  slack = await startLocalSlack({
    rateLimit: false,
    bots: [DEFAULT_BOT, { token: 'xoxb-old-install', userId: 'U0OLDBOT01', botId: 'B0OLDBOT01', appId: 'A0SDAPP001', name: 'StreamDoctor', scopes: OLD_SCOPES }],
    channels: [
      { id: 'C0DATAALRT', name: 'data-alerts' },
      { id: 'C0NOBOT001', name: 'payments', members: [MARIA, DEV] },
      { id: 'G0HRPRIV01', name: 'hr-private', isPrivate: true, members: [MARIA] },
    ],
  });
});

afterEach(async () => {
  await slack.close();
});

describe('scopes and channels on the local Slack', () => {
  it('the default bot holds exactly the scopes manifest.yml grants', () => {
    expect(DEFAULT_BOT.scopes).toEqual(manifestBotScopes());
    expect(DEFAULT_BOT.scopes).toEqual(expect.arrayContaining(['chat:write', 'chat:write.public', 'channels:history', 'groups:history', 'channels:join']));
  });

  it('conversations.history without channels:history answers missing_scope, as Slack does', async () => {
    const { json } = await callApi(slack.apiUrl, 'conversations.history', { channel: 'C0DATAALRT' }, { token: 'xoxb-old-install' });
    expect(json).toMatchObject({ ok: false, error: 'missing_scope', needed: 'channels:history' });
    const files = await callApi(slack.apiUrl, 'files.getUploadURLExternal', { filename: 'a.png', length: 10 }, { token: 'xoxb-no-such' });
    expect(files.json.error).toBe('invalid_auth');
    const join = await callApi(slack.apiUrl, 'conversations.join', { channel: 'C0NOBOT001' }, { token: 'xoxb-old-install' });
    expect(join.json).toMatchObject({ ok: false, error: 'missing_scope', needed: 'channels:join' });
  });

  it('a public channel the bot never joined: posting works (chat:write.public), history is not_in_channel until it joins', async () => {
    const posted = await callApi(slack.apiUrl, 'chat.postMessage', { channel: 'C0NOBOT001', text: 'Lag · payments' });
    expect(posted.json.ok).toBe(true);
    const updated = await callApi(slack.apiUrl, 'chat.update', { channel: 'C0NOBOT001', ts: posted.json.ts, text: 'Lag · payments (acknowledged)' });
    expect(updated.json.ok).toBe(true);
    expect((await callApi(slack.apiUrl, 'conversations.history', { channel: 'C0NOBOT001' })).json.error).toBe('not_in_channel');
    const info = await callApi(slack.apiUrl, 'conversations.info', { channel: 'C0NOBOT001' });
    expect(info.json.channel).toMatchObject({ id: 'C0NOBOT001', is_member: false });
    const joined = await callApi(slack.apiUrl, 'conversations.join', { channel: 'C0NOBOT001' });
    expect(joined.json).toMatchObject({ ok: true, channel: { id: 'C0NOBOT001', is_member: true } });
    const history = await callApi(slack.apiUrl, 'conversations.history', { channel: 'C0NOBOT001' });
    expect(history.json.messages.map((m: { ts: string }) => m.ts)).toEqual([posted.json.ts]);
  });

  it('a private channel without the bot: not_in_channel for posting and reading, channel_not_found for info and join', async () => {
    for (const method of ['chat.postMessage', 'conversations.history']) {
      const { json } = await callApi(slack.apiUrl, method, { channel: 'G0HRPRIV01', text: 'x' });
      expect(json.error, method).toBe('not_in_channel');
    }
    for (const method of ['conversations.info', 'conversations.join']) {
      const { json } = await callApi(slack.apiUrl, method, { channel: 'G0HRPRIV01' });
      expect(json.error, method).toBe('channel_not_found');
    }
  });
});
