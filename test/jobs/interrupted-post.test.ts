/**
 * An interrupted first post: the poster's claim outlives a crash between
 * chat.postMessage and recording the ts; the retry finds the message by its metadata and adopts it,
 * also in a public channel the bot reached only through chat:write.public (it joins, then reads). A
 * claim is dropped at once when the attempt provably posted nothing (the request never reached
 * Slack), so the retry posts; when the lookup is impossible (an install without the history scopes)
 * the poster neither adopts nor posts again, and says what to grant. Local Slack over real HTTP, with
 * the scopes of manifest.yml; real Redis.
 */
import { createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { MessagePoster } from '../../src/slack/gateway/message-poster.js';
import { MessageLookupError, SlackRateLimitedError, WebClientChat } from '../../src/slack/gateway/slack-chat.js';
import { DEFAULT_BOT, startLocalSlack, type LocalSlack } from '../../src/standins/slack/index.js';
import { StoreKeys } from '../../src/store/keys.js';
import { deletePrefix, REDIS_URL, uniquePrefix } from '../pipeline/helpers/harness.js';
import { testRedis } from '../helpers/redis.js';

const PAYMENTS = 'C0PAYMENTS'; // public, the bot never joined it
const OLD_SCOPES = ['commands', 'chat:write', 'chat:write.public', 'files:write', 'files:read', 'channels:read', 'groups:read', 'usergroups:read'];
let slack: LocalSlack | undefined;
let redis: Redis | undefined;
let prefix: string | undefined;

afterEach(async () => {
  await slack?.close();
  redis?.disconnect();
  if (prefix) await deletePrefix(REDIS_URL, prefix);
  slack = redis = prefix = undefined;
});

async function setup(scopes?: string[], now?: () => number) {
  prefix = uniquePrefix('interrupted').prefix;
  redis = testRedis();
  const bot = scopes ? { ...DEFAULT_BOT, scopes } : DEFAULT_BOT;
  slack = await startLocalSlack({
    ...(now ? { now } : {}),
    rateLimit: false,
    bots: [bot],
    channels: [{ id: PAYMENTS, name: 'payments', members: ['U0MARIA001', 'U0DEV00002'] }],
  });
  const keys = new StoreKeys(prefix);
  const chat = new WebClientChat({ token: DEFAULT_BOT.token, slackApiUrl: slack.apiUrl });
  return { keys, chat, redis };
}

const render = () => ({ text: 'Lag · payments_ledger' });

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A worker that dies right after chat.postMessage, before recording the ts. */
function crashingPoster(keys: StoreKeys, chat: WebClientChat, r: Redis): MessagePoster {
  return new MessagePoster({
    redis: r,
    keys,
    chat,
    channelIntervalMs: 0,
    afterPost: () => {
      throw new Error('worker killed');
    },
  });
}

describe('an interrupted first post', () => {
  it('is adopted in a public channel the bot reached through chat:write.public (join, then history)', async () => {
    const { keys, chat, redis: r } = await setup();
    await expect(crashingPoster(keys, chat, r).postOrUpdate(PAYMENTS, 'inc-1', render)).rejects.toThrow('worker killed');
    expect(await r.exists(keys.messageClaim(PAYMENTS, 'inc-1'))).toBe(1);
    const poster = new MessagePoster({ redis: r, keys, chat, channelIntervalMs: 0 });
    const retried = await poster.postOrUpdate(PAYMENTS, 'inc-1', () => ({ text: 'Lag · payments_ledger (updated)' }));
    expect(retried.action).toBe('adopted');
    const messages = slack!.messages(PAYMENTS);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.ts).toBe(retried.ts);
    expect(messages[0]!.text).toContain('(updated)');
    expect(await r.exists(keys.messageClaim(PAYMENTS, 'inc-1'))).toBe(0);
  });

  it('waits out a join refused for its rate (Retry-After), instead of asking for an invitation', async () => {
    const { keys, chat, redis: r } = await setup();
    await expect(crashingPoster(keys, chat, r).postOrUpdate(PAYMENTS, 'inc-join', render)).rejects.toThrow('worker killed');
    slack!.faults.inject({ kind: 'rate_limit', method: 'conversations.join', retryAfterSec: 7 });
    const poster = new MessagePoster({ redis: r, keys, chat, channelIntervalMs: 0 });
    const err = await poster.postOrUpdate(PAYMENTS, 'inc-join', render).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SlackRateLimitedError);
    expect((err as SlackRateLimitedError).method).toBe('conversations.join');
    expect((err as SlackRateLimitedError).retryAfterMs).toBe(7_000);
    // Nothing was posted twice meanwhile, and the claim still says a message may exist.
    expect(slack!.messages(PAYMENTS)).toHaveLength(1);
    expect(await r.exists(keys.messageClaim(PAYMENTS, 'inc-join'))).toBe(1);
  });

  it('is adopted in a busy channel, whatever was posted there after its window', async () => {
    let clock = Date.now();
    const { keys, chat, redis: r } = await setup(undefined, () => clock);
    await expect(crashingPoster(keys, chat, r).postOrUpdate(PAYMENTS, 'inc-busy', render)).rejects.toThrow('worker killed');
    // The retry comes late: 2,100 messages have been posted since, more than a lookup reads.
    clock += 20 * 60_000;
    for (let i = 0; i < 2_100; i += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, j) => chat.postMessage({ channel: PAYMENTS, key: `other-${i + j}`, text: `other ${i + j}` })));
    }
    const poster = new MessagePoster({ redis: r, keys, chat, channelIntervalMs: 0 });
    const retried = await poster.postOrUpdate(PAYMENTS, 'inc-busy', () => ({ text: 'Lag · payments_ledger (updated)' }));
    expect(retried.action).toBe('adopted');
    expect(slack!.messages(PAYMENTS).filter((m) => m.text.startsWith('Lag'))).toHaveLength(1);
  });

  it('with an install lacking the history scopes: no guess, no second post, an error naming what to grant', async () => {
    const { keys, chat, redis: r } = await setup(OLD_SCOPES);
    await expect(crashingPoster(keys, chat, r).postOrUpdate(PAYMENTS, 'inc-2', render)).rejects.toThrow('worker killed');
    const poster = new MessagePoster({ redis: r, keys, chat, channelIntervalMs: 0 });
    const failure = await poster.postOrUpdate(PAYMENTS, 'inc-2', render).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(MessageLookupError);
    expect((failure as Error).message).toContain('channels:history');
    expect(slack!.messages(PAYMENTS)).toHaveLength(1);
    expect(await r.exists(keys.messageClaim(PAYMENTS, 'inc-2'))).toBe(1); // kept: the post may exist
  });

  it('a post whose request never reached Slack leaves no claim, so the retry posts once', async () => {
    const { keys, redis: r } = await setup();
    // Nothing listens on this port: connection refused before any byte reached Slack.
    const dead = new WebClientChat({ token: DEFAULT_BOT.token, slackApiUrl: `http://127.0.0.1:${await closedPort()}/api/` });
    const down = new MessagePoster({ redis: r, keys, chat: dead, channelIntervalMs: 0 });
    await expect(down.postOrUpdate(PAYMENTS, 'inc-3', render)).rejects.toThrow();
    expect(await r.exists(keys.messageClaim(PAYMENTS, 'inc-3'))).toBe(0);
    const chat = new WebClientChat({ token: DEFAULT_BOT.token, slackApiUrl: slack!.apiUrl });
    const up = new MessagePoster({ redis: r, keys, chat, channelIntervalMs: 0 });
    expect((await up.postOrUpdate(PAYMENTS, 'inc-3', render)).action).toBe('posted');
    expect(slack!.messages(PAYMENTS)).toHaveLength(1);
  });
});

describe('the poster lock', () => {
  it('stays held through a slow post, so a second job cannot post the same message again', async () => {
    const { keys, chat, redis: r } = await setup();
    // Slack takes far longer than the lock's lifetime to answer the first post.
    const slow = Object.create(chat) as WebClientChat;
    slow.postMessage = async (message) => {
      await new Promise((resolve) => setTimeout(resolve, 1200));
      return chat.postMessage(message);
    };
    const first = new MessagePoster({ redis: r, keys, chat: slow, channelIntervalMs: 0, lockMs: 300 });
    const second = new MessagePoster({ redis: r, keys, chat, channelIntervalMs: 0, lockMs: 300 });
    const posting = first.postOrUpdate(PAYMENTS, 'inc-4', render);
    await new Promise((resolve) => setTimeout(resolve, 600));
    const racing = await second.postOrUpdate(PAYMENTS, 'inc-4', render).catch((err: unknown) => err);
    expect((racing as { code?: string }).code).toBe('streamdoctor_message_busy');
    expect((await posting).action).toBe('posted');
    expect(slack!.messages(PAYMENTS)).toHaveLength(1);
  });
});
