/**
 * Exactly-once Slack messages. Each message has a stable key (incident id, group id, digest day).
 * Posting is serialized per key by a short Redis lock, and guarded by a persistent claim written
 * *before* chat.postMessage and removed when the returned ts is recorded. A claim found without a
 * recorded ts means an earlier attempt died in between: the message may exist, so the poster looks
 * it up by its metadata key (conversations.history / replies) and adopts it instead of posting
 * again. A claim is dropped at once when the attempt provably posted nothing (Slack refused it, or
 * the request never left: connection refused); when the lookup is impossible (a scope missing) the
 * poster neither adopts nor posts (MessageLookupError names the fix). After the first post, every
 * change is a chat.update of the same message.
 */
import { StreamDoctorError } from '../../util/errors.js';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { StoreKeys } from '../../store/keys.js';
import { LuaScript } from '../../store/script.js';
import type { ChatMessage, SlackChat } from './slack-chat.js';
import { provablyNotDone } from './slack-chat.js';

/** The message key is being posted by another job right now; retry shortly. */
export class MessageBusyError extends StreamDoctorError {
  constructor(readonly key: string) {
    super('streamdoctor_message_busy', `message ${key} is being posted by another job`);
  }
}

/** The channel spent its posting budget (about one message per second); retry after `waitMs`. */
export class ChannelBusyError extends StreamDoctorError {
  constructor(
    readonly channel: string,
    readonly waitMs: number,
  ) {
    super('streamdoctor_channel_busy', `channel ${channel} posted less than a second ago; wait ${waitMs} ms`);
  }
}

export interface MessagePosterOptions {
  redis: Redis;
  keys: StoreKeys;
  chat: SlackChat;
  /**
   * Minimum gap between two new messages in one channel; 0 turns the spacing off (Slack's own 429s
   * still apply). Negative or non-finite values count as 0.
   * @defaultValue 1000
   */
  channelIntervalMs?: number;
  /** Lock lifetime, renewed every third of it while the job works. @defaultValue 15000 */
  lockMs?: number;
  /** How long message refs are kept. @defaultValue 30 days */
  refTtlMs?: number;
  /** Hook between chat.postMessage and recording its ts (tests use it to kill the process there). */
  afterPost?: (key: string, ts: string) => Promise<void> | void;
  now?: () => number;
}

export interface PostResult {
  ts: string;
  /** What happened: a new message, an update of the known one, or adoption of a lost post. */
  action: 'posted' | 'updated' | 'adopted';
}

const RELEASE = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

// Extends the lock only while this job still holds it.
const EXTEND = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`);

// Takes the channel's posting slot if free; else returns the ms left.
const TAKE_SLOT = new LuaScript(`
if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then return 0 end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then return 1 end
return ttl
`);

export class MessagePoster {
  private readonly redis: Redis;
  private readonly keys: StoreKeys;
  private readonly chat: SlackChat;
  private readonly channelIntervalMs: number;
  private readonly lockMs: number;
  private readonly refTtlMs: number;
  private readonly afterPost?: MessagePosterOptions['afterPost'];
  private readonly now: () => number;

  constructor(options: MessagePosterOptions) {
    this.redis = options.redis;
    this.keys = options.keys;
    this.chat = options.chat;
    const interval = options.channelIntervalMs ?? 1000;
    // Redis refuses a zero or negative PX ("invalid expire time"), so "no spacing" skips the slot.
    this.channelIntervalMs = Number.isFinite(interval) && interval > 0 ? Math.ceil(interval) : 0;
    this.lockMs = options.lockMs ?? 15_000;
    this.refTtlMs = options.refTtlMs ?? 30 * 24 * 3_600_000;
    this.afterPost = options.afterPost;
    this.now = options.now ?? Date.now;
  }

  /** The recorded ts of a message key, if it was posted. */
  async messageTs(channel: string, key: string): Promise<string | null> {
    return this.redis.get(this.keys.messageRef(channel, key));
  }

  /** Whether a message for `key` was posted or may have been (a claim from a lost attempt). */
  async hasTrace(channel: string, key: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.messageRef(channel, key), this.keys.messageClaim(channel, key))) > 0;
  }

  /** Whether a job holds the posting lock of `key` right now (a post may be on its way). */
  async isLocked(channel: string, key: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.lock(`msg.${channel}.${key}`))) > 0;
  }

  /**
   * Makes `key` refer to an existing message (`ts`), so postOrUpdate(key) updates that message
   * instead of posting a new one. Keeps an existing ref; returns the ts `key` now refers to.
   */
  async alias(channel: string, key: string, ts: string): Promise<string> {
    const refKey = this.keys.messageRef(channel, key);
    const set = await this.redis.set(refKey, ts, 'PX', this.refTtlMs, 'NX');
    return set ? ts : ((await this.redis.get(refKey)) ?? ts);
  }

  /**
   * Posts the message for `key` once, or updates it if it exists. `render` is called under the
   * lock, so the content reflects the latest state even when jobs race.
   */
  async postOrUpdate(
    channel: string,
    key: string,
    render: () => Promise<Omit<ChatMessage, 'channel' | 'key'>> | Omit<ChatMessage, 'channel' | 'key'>,
  ): Promise<PostResult> {
    const lockKey = this.keys.lock(`msg.${channel}.${key}`);
    const token = randomUUID();
    const locked = await this.redis.set(lockKey, token, 'PX', this.lockMs, 'NX');
    if (!locked) throw new MessageBusyError(key);
    // Kept alive while this job works: a slow history lookup or post must not let the lock lapse
    // (another job would then find the claim, miss the message still on its way, and post again).
    const keepAlive = setInterval(() => {
      EXTEND.run(this.redis, [lockKey], [token, this.lockMs]).catch(() => undefined);
    }, Math.max(50, Math.floor(this.lockMs / 3)));
    keepAlive.unref();
    try {
      const refKey = this.keys.messageRef(channel, key);
      const claimKey = this.keys.messageClaim(channel, key);
      let ts = await this.redis.get(refKey);
      let adopted = false;
      if (!ts) {
        const claim = await this.redis.get(claimKey);
        if (claim) {
          const claimedAt = Number(claim.split('|')[0]) || this.now() - 3_600_000;
          const threadTs = claim.split('|')[1] || undefined;
          ts = await this.chat.findPosted(channel, key, claimedAt - 60_000, threadTs);
          if (ts) {
            await this.redis.set(refKey, ts, 'PX', this.refTtlMs);
            await this.redis.del(claimKey);
            adopted = true;
          }
        }
      }
      const content = await render();
      if (ts) {
        await this.chat.update({ ...content, channel, key, ts });
        return { ts, action: adopted ? 'adopted' : 'updated' };
      }
      if (this.channelIntervalMs > 0) {
        const wait = Number(await TAKE_SLOT.run(this.redis, [this.keys.channelPostSlot(channel)], [this.channelIntervalMs]));
        if (wait > 0) throw new ChannelBusyError(channel, wait);
      }
      // The claim outlives the lock on purpose: it is the only trace of a post whose ts was lost.
      await this.redis.set(claimKey, `${this.now()}|${content.threadTs ?? ''}`, 'PX', this.refTtlMs);
      let posted: { ts: string };
      try {
        posted = await this.chat.postMessage({ ...content, channel, key });
      } catch (err) {
        // A definite refusal (429, invalid_blocks, channel_not_found…) or a request that never reached
        // Slack (connection refused) posted nothing: the claim is dropped, so the retry posts. A
        // timeout or a reset may have posted: the claim stays and the retry looks the message up.
        if (provablyNotDone(err)) await this.redis.del(claimKey);
        throw err;
      }
      await this.afterPost?.(key, posted.ts);
      await this.redis.multi().set(refKey, posted.ts, 'PX', this.refTtlMs).del(claimKey).exec();
      return { ts: posted.ts, action: 'posted' };
    } finally {
      clearInterval(keepAlive);
      await RELEASE.run(this.redis, [lockKey], [token]).catch(() => undefined);
    }
  }
}
