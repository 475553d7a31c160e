/**
 * The digest jobs. `all` fans out once a day (clock scheduler, configured time and time zone, and an
 * hour later for days whose clocks jump over that time; a marker per day keeps the second fire
 * idle): it finds every channel some stream is routed to and enqueues one `channel` digest each, with the
 * job id `digest.<channel>.<day>` so a double fire collapses. A `channel` digest renders the
 * streams routed there and the channel's incidents of the last 24 h, posted once per day (the
 * message key holds the day, so a retry never posts twice). `/stream digest` enqueues a `channel`
 * job with a request id (its own message key): the same poster, the same channel spacing.
 */
import { randomUUID } from 'node:crypto';
import type { Job } from 'bullmq';
import type { DigestRequester } from '../src/slack/deps.js';
import type { Logger } from '../src/observability/logger.js';
import type { PipelineMetrics } from '../src/observability/metrics.js';
import type { RedisStore } from '../src/store/index.js';
import type { RoutingDefaults, StreamRecord } from '../src/store/types.js';
import { safeJobId } from './job-ids.js';
import type { MessagePoster } from '../src/slack/gateway/message-poster.js';
import { channelIdOf } from './notify-processor.js';
import type { SlackChat } from '../src/slack/gateway/slack-chat.js';
import { buildDigestContent } from '../src/slack/operations/post-digest.js';
import { digestJobSchema, jobDataOf, type DigestJobData } from './queue-names.js';
import type { PipelineQueues } from './queues.js';

export interface DigestDeps {
  store: RedisStore;
  queues: PipelineQueues;
  poster: MessagePoster;
  /** Uploads the chart under the digest; without it digests go out without charts. */
  chat?: Pick<SlackChat, 'uploadChart' | 'channelName' | 'channelId'>;
  metrics: PipelineMetrics;
  logger: Logger;
  routing?: RoutingDefaults;
  /** IANA zone the digest day is counted in. @defaultValue 'UTC' */
  timeZone?: string;
  now?: () => number;
}

/** How long a day's fan-out marker is kept: past both of the day's fires, whatever the zone. */
const DIGEST_DAY_MARKER_MS = 3 * 86_400_000;

/** `YYYY-MM-DD` of `ms` in `timeZone`. */
export function dayIn(ms: number, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(ms));
}

/**
 * When a scheduler's job was due (BullMQ keeps it in `opts.prevMillis`); null for a job added by hand.
 * Not `timestamp + delay`: the job is made when the previous one fires, a day earlier, and its
 * `delay` reads 0 once it runs (a retry's backoff after a failure), so that sum names the day before.
 */
function dueAt(job: Job<DigestJobData>): number | null {
  const due = job.opts.prevMillis;
  return job.repeatJobKey && typeof due === 'number' && Number.isFinite(due) ? due : null;
}

/** Streams grouped by the channel they are routed to. */
export async function streamsByChannel(store: RedisStore, routing?: RoutingDefaults): Promise<Map<string, StreamRecord[]>> {
  const out = new Map<string, StreamRecord[]>();
  for (const stream of await store.streams.list()) {
    const channel = await store.routing.resolve(stream, routing);
    if (!channel) continue;
    const list = out.get(channel) ?? [];
    list.push(stream);
    out.set(channel, list);
  }
  return out;
}

/**
 * The channel's name as a route writes it (`#data-alerts` → `data-alerts`), for when Slack does not
 * describe the channel (conversations.info failed): without it, the streams routed by name would be
 * left out of the day's digest. The name → id lookup throws on a Slack failure, so the job retries.
 */
async function nameInRoutes(deps: DigestDeps, channel: string): Promise<string | null> {
  for (const target of (await streamsByChannel(deps.store, deps.routing)).keys()) {
    if (target === channel || !target.startsWith('#')) continue;
    if ((await channelIdOf(deps, target)) === channel) return target.slice(1);
  }
  return null;
}

/**
 * `/stream digest`: the channel's digest now, as a digest job, so it goes through the same poster
 * (exactly-once claim, channel spacing, Slack rate limits) as the daily one. One job per request.
 */
export function queueDigestRequester(queues: PipelineQueues, options: { timeZone?: string; now?: () => number } = {}): DigestRequester {
  const now = options.now ?? Date.now;
  return {
    async requestNow(channel: string) {
      const nowMs = now();
      const requestId = `${nowMs}-${randomUUID().slice(0, 8)}`;
      await queues.digest.add('channel', { kind: 'channel', channel, day: dayIn(nowMs, options.timeZone ?? 'UTC'), requestId }, { jobId: safeJobId('digest-now', channel, requestId) });
    },
  };
}

export function createDigestProcessor(deps: DigestDeps) {
  const now = deps.now ?? Date.now;
  const timeZone = deps.timeZone ?? 'UTC';
  return async function processDigest(job: Job<DigestJobData>): Promise<{ channels?: number; posted?: string }> {
    const data = jobDataOf(digestJobSchema, 'digest', job);
    if (data.kind === 'all') {
      const day = data.day ?? dayIn(dueAt(job) ?? now(), timeZone);
      // The schedule fires twice a day (dailyCron): the first fire of the day fans out, the other
      // finds the day's marker. Given back when the fan-out fails, so the retry does it.
      const marker = `digest-day.${day}`;
      if (!(await deps.store.markers.take(marker, String(job.id ?? ''), DIGEST_DAY_MARKER_MS))) return { channels: 0 };
      try {
        // One digest per channel, by id (a channel routed by id and by name gets one digest).
        const targets = [...(await streamsByChannel(deps.store, deps.routing)).keys()];
        const channels = [...new Set(await Promise.all(targets.map((target) => channelIdOf(deps, target))))];
        await deps.queues.digest.addBulk(
          channels.map((channel) => ({ name: 'channel', data: { kind: 'channel' as const, channel, day }, opts: { jobId: safeJobId('digest', channel, day) } })),
        );
        return { channels: channels.length };
      } catch (error) {
        await deps.store.markers.release(marker).catch(() => undefined);
        throw error;
      }
    }
    const nowMs = now();
    // The Slack engineer's digest content (message + chart); posting goes through the exactly-once poster.
    const name = (await deps.chat?.channelName?.(data.channel).catch(() => null)) ?? (await nameInRoutes(deps, data.channel));
    const content = await buildDigestContent({ store: deps.store, ...(deps.routing ? { routingDefaults: deps.routing } : {}), logger: deps.logger }, data.channel, name, nowMs);
    // The daily digest has one message per day; one asked for with `/stream digest` is a new message.
    const key = data.requestId ? `digest.now.${data.requestId}` : `digest.${data.day}`;
    const result = await deps.poster.postOrUpdate(data.channel, key, () => ({ text: content.message.text, blocks: content.message.blocks }));
    if (content.chart && deps.chat?.uploadChart) {
      // At most once: the marker is taken before the upload and given back only on a definite failure.
      const marker = `digest-chart.${data.channel}.${data.requestId ? `now.${data.requestId}` : data.day}`;
      if (await deps.store.markers.take(marker, result.ts, 3 * 24 * 3_600_000)) {
        try {
          await deps.chat.uploadChart(data.channel, result.ts, content.chart, nowMs);
        } catch (err) {
          await deps.store.markers.release(marker);
          deps.logger.warn({ err, channel: data.channel }, 'digest chart upload failed; will retry with the job');
          throw err;
        }
      }
    }
    deps.metrics.notifications.inc({ outcome: `digest_${result.action}` });
    return { posted: result.ts };
  };
}
