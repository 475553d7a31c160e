/**
 * Slack budgets each Web API method per workspace (Tier 2 about 20 calls a minute, Tier 3 about 50,
 * Tier 4 about 100; conversations.history far fewer for some apps), and every worker process
 * spends the same budget. A 429 on one method therefore holds that method, and only that one, for
 * every process until its Retry-After: the refused method's cooldown is written to Redis, and a
 * call of a method still cooling down is refused here without spending a call (SlackRateLimitedError
 * with the time left). The job that meets it waits that long; jobs that need other methods go on.
 * chat.postMessage is budgeted per channel, not per workspace: the poster holds the channel.
 */
import type { Redis } from 'ioredis';
import type { StoreKeys } from '../../store/keys.js';
import type { RenderedChart } from '../chart/time-behind-chart.js';
import { SlackRateLimitedError, type ChatMessage, type PostWindow, type SlackChat } from './slack-chat.js';

export interface MethodCooldownChatOptions {
  /** The chat that makes the calls. */
  chat: SlackChat;
  redis: Redis;
  keys: StoreKeys;
}

export class MethodCooldownChat implements SlackChat {
  private readonly chat: SlackChat;
  private readonly redis: Redis;
  private readonly keys: StoreKeys;
  readonly channelId?: (target: string) => Promise<string | null>;
  readonly permalink?: (channel: string, ts: string) => Promise<string | null>;
  readonly channelName?: (channel: string) => Promise<string | null>;
  readonly uploadChart?: (channel: string, threadTs: string, chart: RenderedChart, nowMs: number) => Promise<void>;

  constructor(options: MethodCooldownChatOptions) {
    this.chat = options.chat;
    this.redis = options.redis;
    this.keys = options.keys;
    // The optional calls stay absent when the inner chat lacks them (their callers check). A link
    // and a channel's name are conveniences that answer null on any failure: passed through.
    const inner = this.chat;
    // A channel id, or a name the chat's directory already holds, needs no call: only a refused
    // conversations.list is recorded, nothing is held back before it.
    if (inner.channelId) this.channelId = (target) => this.guarded([], () => inner.channelId!(target));
    if (inner.permalink) this.permalink = (channel, ts) => inner.permalink!(channel, ts);
    if (inner.channelName) this.channelName = (channel) => inner.channelName!(channel);
    if (inner.uploadChart) this.uploadChart = (channel, threadTs, chart, nowMs) => this.guarded(['files.uploadV2'], () => inner.uploadChart!(channel, threadTs, chart, nowMs));
  }

  postMessage(message: ChatMessage): Promise<{ ts: string }> {
    // Per channel (MessagePoster holds a refused channel); only a rate-limit answer is recorded.
    return this.guarded([], () => this.chat.postMessage(message));
  }

  update(message: ChatMessage & { ts: string }): Promise<void> {
    return this.guarded(['chat.update'], () => this.chat.update(message));
  }

  findPosted(channel: string, key: string, window: PostWindow, threadTs?: string): Promise<string | null> {
    // A lookup may also join a public channel first.
    const read = threadTs ? 'conversations.replies' : 'conversations.history';
    return this.guarded([read, 'conversations.join'], () => this.chat.findPosted(channel, key, window, threadTs));
  }

  /**
   * Refuses at once while one of `methods` cools down (`held`); records the cooldown of a method
   * Slack refused for its rate (chat.postMessage aside: its budget is the channel's).
   */
  private async guarded<T>(methods: readonly string[], call: () => Promise<T>): Promise<T> {
    if (methods.length > 0) {
      const left = await Promise.all(methods.map((method) => this.redis.pttl(this.keys.slackMethodCooldown(method))));
      let longest = 0;
      let method = methods[0]!;
      left.forEach((ms, i) => {
        if (ms > longest) [longest, method] = [ms, methods[i]!];
      });
      if (longest > 0) throw new SlackRateLimitedError(longest, method, true);
    }
    try {
      return await call();
    } catch (err) {
      if (err instanceof SlackRateLimitedError && err.method !== 'chat.postMessage') {
        // Best effort: the job waits out the 429 either way; Redis failing here must not hide it.
        await this.redis.set(this.keys.slackMethodCooldown(err.method), '1', 'PX', err.retryAfterMs).catch(() => undefined);
      }
      throw err;
    }
  }
}
