/**
 * A Web API method Slack refused for its rate is held for every process until its Retry-After
 * (a Redis key), and a call of it meanwhile is refused here without reaching Slack; other methods
 * go on, and chat.postMessage (budgeted per channel) holds no method. Real Redis, a scripted chat.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { MethodCooldownChat } from '../../src/slack/gateway/method-cooldown-chat.js';
import { SlackRateLimitedError, type SlackChat } from '../../src/slack/gateway/slack-chat.js';
import { StoreKeys } from '../../src/store/keys.js';
import { deletePrefix, TEST_REDIS_URL, testRedis } from '../helpers/redis.js';
import { uniquePrefix } from '../pipeline/helpers/harness.js';

let redis: Redis | undefined;
let prefix: string | undefined;
afterEach(async () => {
  if (prefix) await deletePrefix(TEST_REDIS_URL, prefix);
  await redis?.quit();
  redis = prefix = undefined;
});

/** A chat whose calls are counted; `refuse` names a method to answer 429 for 20 s once. */
function scripted(refuse: string | null) {
  const calls: string[] = [];
  let refused = false;
  const run = async <T>(method: string, value: T): Promise<T> => {
    calls.push(method);
    if (method === refuse && !refused) {
      refused = true;
      throw new SlackRateLimitedError(20_000, method);
    }
    return value;
  };
  const chat: SlackChat = {
    postMessage: () => run('chat.postMessage', { ts: '1.000001' }),
    update: () => run('chat.update', undefined),
    findPosted: (_channel, _key, _window, threadTs) => run(threadTs ? 'conversations.replies' : 'conversations.history', null),
    channelId: (target) => run('conversations.list', target),
  };
  return { chat, calls };
}

function setup(refuse: string | null) {
  prefix = uniquePrefix('cooldown').prefix;
  redis = testRedis();
  const keys = new StoreKeys(prefix);
  const inner = scripted(refuse);
  return { keys, calls: inner.calls, chat: new MethodCooldownChat({ chat: inner.chat, redis, keys }) };
}

const message = { channel: 'C0DATAALRT', text: 'Lag · payments', key: 'k1' };
const window = { oldestMs: 0, latestMs: 1 };

describe('MethodCooldownChat', () => {
  it('holds a refused method until its Retry-After without calling Slack, and lets other methods through', async () => {
    const { keys, calls, chat } = setup('conversations.history');
    await expect(chat.findPosted('C0DATAALRT', 'k1', window)).rejects.toBeInstanceOf(SlackRateLimitedError);
    expect(await redis!.pttl(keys.slackMethodCooldown('conversations.history'))).toBeGreaterThan(15_000);
    // Held: refused with the time left, and Slack is not asked.
    const again = await chat.findPosted('C0DATAALRT', 'k1', window).catch((err: unknown) => err);
    expect(again).toBeInstanceOf(SlackRateLimitedError);
    expect((again as SlackRateLimitedError).method).toBe('conversations.history');
    expect((again as SlackRateLimitedError).retryAfterMs).toBeGreaterThan(15_000);
    // Held here, not answered by Slack (only Slack's answers count as API errors).
    expect((again as SlackRateLimitedError).held).toBe(true);
    expect(calls.filter((m) => m === 'conversations.history')).toHaveLength(1);
    // Others go on: a thread lookup, an update, a post, a channel lookup.
    expect(await chat.findPosted('C0DATAALRT', 'k1', window, '1.000001')).toBeNull();
    await chat.update({ ...message, ts: '1.000001' });
    expect(await chat.postMessage(message)).toEqual({ ts: '1.000001' });
    expect(await chat.channelId!('#data-alerts')).toBe('#data-alerts');
    // Once the cooldown is gone, the method is called again.
    await redis!.del(keys.slackMethodCooldown('conversations.history'));
    expect(await chat.findPosted('C0DATAALRT', 'k1', window)).toBeNull();
    expect(calls.filter((m) => m === 'conversations.history')).toHaveLength(2);
  });

  it('holds no channel lookup back: an id, or a name the directory holds, needs no call', async () => {
    const { keys, calls, chat } = setup(null);
    await redis!.set(keys.slackMethodCooldown('conversations.list'), '1', 'PX', 30_000);
    expect(await chat.channelId!('C0DATAALRT')).toBe('C0DATAALRT');
    expect(calls).toEqual(['conversations.list']);
  });

  it('records a refused channel lookup', async () => {
    const { keys, chat } = setup('conversations.list');
    const err = await chat.channelId!('#data-alerts').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SlackRateLimitedError);
    expect((err as SlackRateLimitedError).held).toBe(false);
    expect(await redis!.pttl(keys.slackMethodCooldown('conversations.list'))).toBeGreaterThan(15_000);
  });

  it('holds no method for a refused post: chat.postMessage is budgeted per channel', async () => {
    const { keys, chat } = setup('chat.postMessage');
    await expect(chat.postMessage(message)).rejects.toBeInstanceOf(SlackRateLimitedError);
    expect(await redis!.exists(keys.slackMethodCooldown('chat.postMessage'))).toBe(0);
    expect(await chat.postMessage(message)).toEqual({ ts: '1.000001' });
  });

  it('leaves out the calls the chat it wraps lacks', () => {
    const { chat } = setup(null);
    expect(chat.permalink).toBeUndefined();
    expect(chat.uploadChart).toBeUndefined();
    expect(typeof chat.channelId).toBe('function');
  });
});
