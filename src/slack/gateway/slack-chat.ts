/**
 * The Slack calls notify needs, behind a small interface so the poster's exactly-once logic is
 * independent of the SDK. `WebClientChat` adapts @slack/web-api's WebClient, configured to reject
 * rate-limited calls (a 429 becomes a delayed job instead of a sleeping job holding a lock).
 */
import { StreamDoctorError } from '../../util/errors.js';
import { webApi } from '@slack/bolt';
import type { KnownBlock } from '@slack/types';
import type { RenderedChart } from '../chart/time-behind-chart.js';

export interface ChatMessage {
  channel: string;
  text: string;
  blocks?: KnownBlock[];
  threadTs?: string;
  /** Marks the message so a retry can find it after a crash (Slack message metadata). */
  key: string;
}

/** When a message can have been posted, epoch ms. */
export interface PostWindow {
  oldestMs: number;
  latestMs: number;
}

export interface SlackChat {
  postMessage(message: ChatMessage): Promise<{ ts: string }>;
  update(message: ChatMessage & { ts: string }): Promise<void>;
  /**
   * The ts of a message we posted with `key` in the channel (or in the thread `threadTs`) between
   * `window.oldestMs` and `window.latestMs` (inclusive), or null. Reads at most 2,000 messages of
   * that window, newest first.
   */
  findPosted(channel: string, key: string, window: PostWindow, threadTs?: string): Promise<string | null>;
  /**
   * The id of a route target: an id as is, a name (`#data-alerts`, as the watch file writes it) looked
   * up (conversations.list), null when Slack knows no such channel. Slack takes a name only in
   * chat.postMessage; updates, history and uploads need the id. Absent = targets are used as written.
   */
  channelId?(target: string): Promise<string | null>;
  /** A link to the message (chat.getPermalink), or null when Slack gives none; absent = no links. */
  permalink?(channel: string, ts: string): Promise<string | null>;
  /** The channel's name without `#` (conversations.info), or null; absent = digests show the id. */
  channelName?(channel: string): Promise<string | null>;
  /** Uploads the digest chart into a thread (files.uploadV2); absent = digests go without charts. */
  uploadChart?(channel: string, threadTs: string, chart: RenderedChart, nowMs: number): Promise<void>;
}

/**
 * Thrown when Slack answers 429; `retryAfterMs` comes from its Retry-After header. `method` is the
 * Web API method refused: Slack's limits are per method (chat.update's Tier 3 budget is the
 * workspace's, chat.postMessage's is per channel), so what must wait depends on it. `held`: not
 * Slack's answer but a call held back while its method cools down after one (MethodCooldownChat).
 */
export class SlackRateLimitedError extends StreamDoctorError {
  constructor(
    readonly retryAfterMs: number,
    readonly method: string,
    readonly held = false,
  ) {
    super('streamdoctor_slack_rate_limited', held ? `${method} is cooling down after a Slack 429; retry after ${retryAfterMs} ms` : `Slack rate limited ${method}; retry after ${retryAfterMs} ms`);
  }
}

/**
 * A message that may have been posted cannot be looked up (a scope missing, the channel gone): the
 * poster must not guess, so it neither adopts nor posts again. The message says what to grant.
 */
export class MessageLookupError extends StreamDoctorError {
  constructor(
    readonly channel: string,
    readonly slackError: string,
  ) {
    super(
      'streamdoctor_slack_lookup_impossible',
      slackError === 'missing_scope'
        ? `cannot look up a possibly posted alert in ${channel}: the bot token lacks channels:history / groups:history (or channels:join); reinstall the Slack app from manifest.yml`
        : `cannot look up a possibly posted alert in ${channel} (${slackError}); invite the app to the channel (/invite @StreamDoctor)`,
      {
        fix: slackError === 'missing_scope' ? 'reinstall the Slack app from manifest.yml' : 'invite the app to the channel (/invite @StreamDoctor)',
      },
    );
  }
}

/** Connection errors raised before a request reached Slack: nothing was posted. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** True when a failed Slack call provably did nothing: a platform refusal, a 429, or no connection at all. */
export function provablyNotDone(err: unknown): boolean {
  if (err instanceof SlackRateLimitedError) return true;
  const e = err as { code?: string; original?: { code?: string; cause?: { code?: string } } } | null;
  if (e?.code === 'slack_webapi_platform_error') return true;
  if (e?.code === 'slack_webapi_request_error') {
    const code = e.original?.code ?? e.original?.cause?.code;
    return code !== undefined && NOT_SENT.has(code);
  }
  return false;
}

function platformError(err: unknown): string | null {
  const e = err as { code?: string; data?: { error?: string } } | null;
  return e?.code === 'slack_webapi_platform_error' ? (e.data?.error ?? 'unknown') : null;
}

export const METADATA_EVENT_TYPE = 'streamdoctor_message';

export interface WebClientChatOptions {
  token: string;
  /** Web API base URL (local Slack stand-in in tests and the demo). @defaultValue 'https://slack.com/api/' */
  slackApiUrl?: string;
  /** Per-call timeout. @defaultValue 10000 */
  timeoutMs?: number;
}

function rateLimited(err: unknown, method: string): SlackRateLimitedError | null {
  if (err && typeof err === 'object' && (err as { code?: string }).code === webApi.ErrorCode.RateLimitedError) {
    const seconds = Number((err as { retryAfter?: number }).retryAfter ?? 1);
    return new SlackRateLimitedError(Math.max(1, seconds) * 1000, method);
  }
  return null;
}

export class WebClientChat implements SlackChat {
  private readonly client: InstanceType<typeof webApi.WebClient>;

  constructor(options: WebClientChatOptions) {
    this.client = new webApi.WebClient(options.token, {
      ...(options.slackApiUrl ? { slackApiUrl: options.slackApiUrl } : {}),
      rejectRateLimitedCalls: true,
      timeout: options.timeoutMs ?? 10_000,
      // Retries belong to BullMQ (durable, visible); the SDK must not retry behind its back.
      retryConfig: { retries: 0 },
    });
  }

  private async call<T>(method: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw rateLimited(err, method) ?? err;
    }
  }

  async postMessage(message: ChatMessage): Promise<{ ts: string }> {
    const res = await this.call('chat.postMessage', () =>
      this.client.chat.postMessage({
        channel: message.channel,
        text: message.text,
        ...(message.blocks ? { blocks: message.blocks } : {}),
        ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
        unfurl_links: false,
        unfurl_media: false,
        metadata: { event_type: METADATA_EVENT_TYPE, event_payload: { key: message.key } },
      }),
    );
    if (!res.ts) throw new StreamDoctorError('streamdoctor_slack_no_ts', 'streamdoctor_slack_no_ts: chat.postMessage answered without a ts');
    return { ts: res.ts };
  }

  async update(message: ChatMessage & { ts: string }): Promise<void> {
    await this.call('chat.update', () =>
      this.client.chat.update({
        channel: message.channel,
        ts: message.ts,
        text: message.text,
        ...(message.blocks ? { blocks: message.blocks } : {}),
        metadata: { event_type: METADATA_EVENT_TYPE, event_payload: { key: message.key } },
      }),
    );
  }

  private directory: { byName: Map<string, string>; at: number } | null = null;

  async channelId(target: string): Promise<string | null> {
    if (/^[CGD][A-Z0-9]+$/.test(target)) return target;
    const name = target.replace(/^#/, '').toLowerCase();
    const fresh = this.directory && Date.now() - this.directory.at < 600_000;
    // A name not in a fresh directory is looked up again at most once a minute (a new channel).
    if (!fresh || (!this.directory!.byName.has(name) && Date.now() - this.directory!.at > 60_000)) {
      const byName = new Map<string, string>();
      let cursor: string | undefined;
      for (let page = 0; page < 10; page++) {
        const res = await this.call('conversations.list', () =>
          this.client.conversations.list({ types: 'public_channel,private_channel', exclude_archived: true, limit: 1000, ...(cursor ? { cursor } : {}) }),
        );
        for (const c of res.channels ?? []) if (c.id && c.name) byName.set(c.name.toLowerCase(), c.id);
        cursor = res.response_metadata?.next_cursor || undefined;
        if (!cursor) break;
      }
      this.directory = { byName, at: Date.now() };
    }
    return this.directory!.byName.get(name) ?? null;
  }

  async permalink(channel: string, ts: string): Promise<string | null> {
    try {
      const res = await this.client.chat.getPermalink({ channel, message_ts: ts });
      return typeof res.permalink === 'string' ? res.permalink : null;
    } catch {
      // A link is a convenience: the alert names the incident either way.
      return null;
    }
  }

  async channelName(channel: string): Promise<string | null> {
    try {
      const info = await this.client.conversations.info({ channel });
      return (info.channel as { name?: string } | undefined)?.name ?? null;
    } catch {
      return null;
    }
  }

  async uploadChart(channel: string, threadTs: string, chart: RenderedChart, nowMs: number): Promise<void> {
    const day = new Date(nowMs).toISOString().slice(0, 10);
    await this.call('files.uploadV2', () =>
      this.client.files.uploadV2({
        channel_id: channel,
        thread_ts: threadTs,
        file: chart.png,
        filename: `time-behind-${day}.png`,
        title: `Time behind per stream, 24 h to ${day}`,
        alt_text: `Line chart of time behind for ${chart.drawn.length} stream(s) over the last 24 hours`,
      }),
    );
  }

  async findPosted(channel: string, key: string, window: PostWindow, threadTs?: string): Promise<string | null> {
    try {
      return await this.searchHistory(channel, key, window, threadTs);
    } catch (err) {
      const error = platformError(err);
      if (error === 'not_in_channel') {
        // A public channel reached through chat:write.public: join it (channels:join), then read.
        try {
          await this.call('conversations.join', () => this.client.conversations.join({ channel }));
        } catch (joinErr) {
          // Refused for its rate: the lookup waits out Retry-After, it is not a missing invitation.
          if (joinErr instanceof SlackRateLimitedError) throw joinErr;
          throw new MessageLookupError(channel, platformError(joinErr) ?? 'not_in_channel');
        }
        try {
          return await this.searchHistory(channel, key, window, threadTs);
        } catch (again) {
          const retryError = platformError(again);
          if (retryError) throw new MessageLookupError(channel, retryError);
          throw again;
        }
      }
      if (error && ['missing_scope', 'channel_not_found', 'is_archived', 'not_authed'].includes(error)) throw new MessageLookupError(channel, error);
      throw err;
    }
  }

  private async searchHistory(channel: string, key: string, window: PostWindow, threadTs?: string): Promise<string | null> {
    let cursor: string | undefined;
    const oldest = (window.oldestMs / 1000).toFixed(6);
    const latest = (window.latestMs / 1000).toFixed(6);
    for (let page = 0; page < 10; page++) {
      const args = { channel, oldest, latest, inclusive: true, include_all_metadata: true, limit: 200, ...(cursor ? { cursor } : {}) };
      const res = await this.call(threadTs ? 'conversations.replies' : 'conversations.history', () =>
        threadTs ? this.client.conversations.replies({ ...args, ts: threadTs }) : this.client.conversations.history(args),
      );
      for (const m of res.messages ?? []) {
        const meta = (m as { metadata?: { event_type?: string; event_payload?: { key?: string } } }).metadata;
        if (meta?.event_type === METADATA_EVENT_TYPE && meta.event_payload?.key === key && m.ts) return m.ts;
      }
      cursor = res.response_metadata?.next_cursor || undefined;
      if (!cursor) break;
    }
    return null;
  }
}
