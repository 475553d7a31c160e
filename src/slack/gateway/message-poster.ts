/**
 * Exactly-once Slack messages. Each message has a stable key (incident id, group id, digest day).
 * Posting is serialized per key by a short Redis lock, and guarded by a persistent claim written
 * *before* chat.postMessage and removed when the returned ts is recorded. A claim found without a
 * recorded ts means an earlier attempt died in between: the message may exist, so the poster looks
 * it up by its metadata key (conversations.history / replies) and adopts it instead of posting
 * again. A claim is dropped at once when the attempt provably posted nothing (Slack refused it, or
 * the request never left: connection refused); when the lookup is impossible (a scope missing) the
 * poster neither adopts nor posts (MessageLookupError names the fix). After the first post, every
 * change is a chat.update of the same message; a message deleted in Slack meanwhile is posted anew
 * through the same claim (so a retry adopts the new one rather than posting it twice).
 */
import { StreamDoctorError } from '../../util/errors.js';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { StoreKeys } from '../../store/keys.js';
import { LuaScript } from '../../store/script.js';
import type { ChatMessage, SlackChat } from './slack-chat.js';
import { provablyNotDone, SlackRateLimitedError } from './slack-chat.js';

/** The message key is being posted by another job right now; retry shortly. */
export class MessageBusyError extends StreamDoctorError {
  constructor(readonly key: string) {
    super('streamdoctor_message_busy', `message ${key} is being posted by another job`);
  }
}

/**
 * A thread reply's parent was deleted in Slack: nothing was posted. The parent's own key must be
 * posted anew (forget it, then postOrUpdate) before its thread can take the reply.
 */
export class ThreadGoneError extends StreamDoctorError {
  constructor(
    readonly channel: string,
    readonly threadTs: string,
  ) {
    super('streamdoctor_slack_thread_gone', `message ${threadTs} in ${channel} was deleted in Slack; its thread takes no replies`);
  }
}

/** Slack's answer when the message, or a reply's parent, was deleted. */
const DELETED_IN_SLACK = new Set(['message_not_found', 'thread_not_found']);

function deletedInSlack(err: unknown): boolean {
  const e = err as { code?: string; data?: { error?: string } } | null;
  return e?.code === 'slack_webapi_platform_error' && DELETED_IN_SLACK.has(e.data?.error ?? '');
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
  /**
   * How long after its claim a lost post can have reached Slack: the window a retry searches the
   * channel's history in (its start a minute before the claim, for clock skew). It covers the chat
   * call's timeout (10 s) with a wide margin; bounded so a busy channel's newer messages cannot push
   * the lost one past the lookup's 2,000 messages.
   * @defaultValue 300000 (5 minutes)
   */
  lookupWindowMs?: number;
  /** Hook between chat.postMessage and recording its ts (tests use it to kill the process there). */
  afterPost?: (key: string, ts: string) => Promise<void> | void;
  now?: () => number;
}

export interface PostResult {
  ts: string;
  /**
   * What happened: a new message (also one posted anew because the known one was deleted in Slack),
   * an update of the known one, or adoption of a lost post.
   */
  action: 'posted' | 'updated' | 'adopted';
}

type Content = Omit<ChatMessage, 'channel' | 'key'>;

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
  private readonly lookupWindowMs: number;
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
    this.lookupWindowMs = options.lookupWindowMs ?? 300_000;
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
   * Forgets that `key` is the message `ts` (deleted in Slack), so the next postOrUpdate posts it anew.
   * A ref that moved on meanwhile (another job already posted it anew) is kept.
   */
  async forget(channel: string, key: string, ts: string): Promise<void> {
    // RELEASE is a compare-and-delete: the ref goes only while it still names the deleted message.
    await RELEASE.run(this.redis, [this.keys.messageRef(channel, key)], [ts]);
  }

  /**
   * Posts the message for `key` once, or updates it if it exists. `render` is called under the
   * lock, so the content reflects the latest state even when jobs race.
   */
  async postOrUpdate(
    channel: string,
    key: string,
    render: () => Promise<Content> | Content,
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
      let known = await this.located(channel, key);
      const content = await render();
      if (known) {
        if (await this.updatedUnlessDeleted(channel, key, known.ts, content)) return { ts: known.ts, action: known.adopted ? 'adopted' : 'updated' };
        // Deleted in Slack (its ref is forgotten): a claim left by an interrupted re-post is adopted
        // first, so a retried job never posts it twice; otherwise it is posted anew below.
        known = await this.located(channel, key);
        if (known) {
          await this.update(channel, key, known.ts, content);
          return { ts: known.ts, action: 'adopted' };
        }
      }
      return await this.post(channel, key, content);
    } finally {
      clearInterval(keepAlive);
      await RELEASE.run(this.redis, [lockKey], [token]).catch(() => undefined);
    }
  }

  /** The message `key` refers to: its recorded ts, or the one a lost attempt posted (adopted now). */
  private async located(channel: string, key: string): Promise<{ ts: string; adopted: boolean } | null> {
    const refKey = this.keys.messageRef(channel, key);
    const claimKey = this.keys.messageClaim(channel, key);
    const ts = await this.redis.get(refKey);
    if (ts) return { ts, adopted: false };
    const claim = await this.redis.get(claimKey);
    if (!claim) return null;
    const claimedAt = Number(claim.split('|')[0]) || this.now() - 3_600_000;
    const threadTs = claim.split('|')[1] || undefined;
    const found = await this.chat.findPosted(channel, key, { oldestMs: claimedAt - 60_000, latestMs: claimedAt + this.lookupWindowMs }, threadTs);
    if (!found) return null;
    await this.redis.set(refKey, found, 'PX', this.refTtlMs);
    await this.redis.del(claimKey);
    return { ts: found, adopted: true };
  }

  /** chat.update of the known message; false when it was deleted in Slack (its ref is then forgotten). */
  private async updatedUnlessDeleted(channel: string, key: string, ts: string, content: Content): Promise<boolean> {
    try {
      await this.update(channel, key, ts, content);
      return true;
    } catch (err) {
      if (!deletedInSlack(err)) throw err;
      await this.forget(channel, key, ts);
      return false;
    }
  }

  /** chat.update (a method Slack refused for its rate waits out its Retry-After: MethodCooldownChat). */
  private async update(channel: string, key: string, ts: string, content: Content): Promise<void> {
    await this.chat.update({ ...content, channel, key, ts });
  }

  /** A new message under a claim; the claim is the only trace of a post whose ts gets lost. */
  private async post(channel: string, key: string, content: Content): Promise<PostResult> {
    const refKey = this.keys.messageRef(channel, key);
    const claimKey = this.keys.messageClaim(channel, key);
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
      // The channel's budget is spent: its slot is held until Retry-After, so every process's next
      // post there waits (ChannelBusyError) instead of spending calls on more 429s.
      if (err instanceof SlackRateLimitedError) await this.redis.set(this.keys.channelPostSlot(channel), '1', 'PX', err.retryAfterMs);
      if (content.threadTs && deletedInSlack(err)) throw new ThreadGoneError(channel, content.threadTs);
      throw err;
    }
    await this.afterPost?.(key, posted.ts);
    await this.redis.multi().set(refKey, posted.ts, 'PX', this.refTtlMs).del(claimKey).exec();
    return { ts: posted.ts, action: 'posted' };
  }
}
