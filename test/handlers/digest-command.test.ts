/**
 * `/stream digest` checks before it promises: a channel the bot cannot post in gets what to do (the
 * digest worker would only log the failure), the admin policy applies when it lists `digest`, and a
 * channel gets one on-demand digest per 5 minutes (each is a public message). Real app and digest
 * worker, local Slack over HTTP, real Redis.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_BOT, DEFAULT_USERS } from '../../src/standins/slack/index.js';
import type { WorkspaceChannel } from '../../src/standins/slack/types.js';
import type { PermissionPolicy } from '../../src/slack/permissions.js';
import { CHANNEL, DEV, MARIA, startHarness, type Harness } from './helpers/harness.js';
import { seedScenario } from './helpers/seed.js';

const SECRET = 'G0NOBOT001';
const LOBBY = 'C0LOBBY001';
const STREAMING = 'C0STREAMNG';
const BOT = DEFAULT_BOT.userId;
const CHANNELS: WorkspaceChannel[] = [
  { id: CHANNEL, name: 'data-alerts', members: [MARIA, DEV, BOT] },
  { id: STREAMING, name: 'streaming', members: [MARIA, DEV, BOT] },
  // Private without the bot: Slack answers channel_not_found. Public without it: is_member false.
  { id: SECRET, name: 'secret', members: [MARIA, DEV], isPrivate: true },
  { id: LOBBY, name: 'lobby', members: [MARIA, DEV] },
];

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(policy?: PermissionPolicy): Promise<void> {
  h = await startHarness({ ...(policy ? { policy } : {}), slack: { channels: CHANNELS, users: DEFAULT_USERS } });
  const seeded = await seedScenario(h.store, 'kafka-partition-bound');
  await h.store.routing.setRoute('query', seeded.queryId, CHANNEL);
}

async function digest(user: string, channel = CHANNEL): Promise<{ response_type?: string; text: string }> {
  const outcome = await h!.slack.interactions.slashCommand({ user, channel, text: 'digest' });
  expect(outcome.delivery.status).toBe(200);
  const record = await h!.until(() => h!.slack.responses().find((r) => r.url === outcome.responseUrl && r.responses.length > 0));
  return record.responses[0] as { response_type?: string; text: string };
}

const digestsIn = (channel: string) => h!.slack.messages(channel).filter((m) => m.text.startsWith('Daily stream health'));

describe('/stream digest', () => {
  it('in a channel the bot cannot post in, says to invite it and queues nothing', async () => {
    await start();
    const secret = await digest(DEV, SECRET);
    expect(secret.response_type).toBe('ephemeral');
    expect(secret.text).toBe('StreamDoctor cannot post in this channel (`channel_not_found`), so no digest can be posted here. Invite the app (`/invite @StreamDoctor`) and run `/stream digest` again.');
    const lobby = await digest(DEV, LOBBY);
    expect(lobby.text).toBe('StreamDoctor is not a member of this channel, so no digest can be posted here. Invite the app (`/invite @StreamDoctor`) and run `/stream digest` again.');
    // A digest queued after them is posted; none of them reached the worker (it would log not_in_channel).
    expect((await digest(DEV)).text).toBe('📊 The digest is on its way.');
    await h!.until(() => digestsIn(CHANNEL).length === 1);
    expect(h!.logLines.join('')).not.toMatch(/not_in_channel|channel_not_found/);
    expect(h!.slack.messages(SECRET)).toEqual([]);
    expect(h!.slack.messages(LOBBY)).toEqual([]);
  });

  it('posts one digest per channel per 5 minutes and says when the next may be asked for', async () => {
    await start();
    expect((await digest(DEV)).text).toBe('📊 The digest is on its way.');
    const again = await digest(MARIA);
    expect(again.response_type).toBe('ephemeral');
    expect(again.text).toMatch(/^A digest of this channel was asked for less than 5m ago \(one every 5m: each is a message to the whole channel\)\. The next can be asked for in (4m [0-5]\ds|5m)\.$/);
    for (let i = 0; i < 6; i += 1) expect((await digest(DEV)).text).toContain('The next can be asked for in');
    // Another channel has its own allowance.
    await h!.store.streams.upsert({ queryId: 'q-clicks', name: 'clickstream' });
    await h!.store.routing.setRoute('query', 'q-clicks', STREAMING);
    expect((await digest(DEV, STREAMING)).text).toBe('📊 The digest is on its way.');
    await h!.until(() => digestsIn(CHANNEL).length === 1 && digestsIn(STREAMING).length === 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(digestsIn(CHANNEL)).toHaveLength(1);
  });

  it('in a channel no stream alerts in, says so privately instead of posting an empty digest', async () => {
    await start();
    const empty = await digest(DEV, STREAMING);
    expect(empty.response_type).toBe('ephemeral');
    expect(empty.text).toBe('No stream alerts in this channel, so its digest would be empty. `/stream watch <query|job <id>|pipeline <id>>` routes one here.');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(digestsIn(STREAMING)).toEqual([]);
  });

  it('follows the admin policy when it lists digest; open to everyone otherwise, as before', async () => {
    await start({ users: [MARIA], actions: ['mute', 'digest'] });
    const denied = await digest(DEV);
    expect(denied.text).toBe(`Only <@${MARIA}> may digest streams here; ask one of them.`);
    expect((await digest(MARIA)).text).toBe('📊 The digest is on its way.');
    await h!.close();
    await start({ users: [MARIA] });
    expect((await digest(DEV)).text).toBe('📊 The digest is on its way.');
  });
});
