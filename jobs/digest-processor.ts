/**
 * The digest jobs. `all` runs once a day (clock scheduler, configured time and time zone): it
 * finds every channel some stream is routed to and enqueues one `channel` digest each, with the
 * job id `digest.<channel>.<day>` so a double fire collapses. A `channel` digest renders the
 * streams routed there and the channel's incidents of the last 24 h, posted once per day (the
 * message key holds the day, so a retry never posts twice).
 */
import type { Job } from 'bullmq';
import type { Logger } from '../src/observability/logger.js';
import type { PipelineMetrics } from '../src/observability/metrics.js';
import { renderDigest } from '../src/slack/render/digest.js';
import type { StreamView } from '../src/slack/render/types.js';
import type { RedisStore } from '../src/store/index.js';
import type { RoutingDefaults, StreamRecord } from '../src/store/types.js';
import { safeJobId } from './job-ids.js';
import type { MessagePoster } from './message-poster.js';
import type { DigestJobData } from './queue-names.js';
import type { PipelineQueues } from './queues.js';

export interface DigestDeps {
  store: RedisStore;
  queues: PipelineQueues;
  poster: MessagePoster;
  metrics: PipelineMetrics;
  logger: Logger;
  routing?: RoutingDefaults;
  /** IANA zone the digest day is counted in. @defaultValue 'UTC' */
  timeZone?: string;
  now?: () => number;
}

/** `YYYY-MM-DD` of `ms` in `timeZone`. */
export function dayIn(ms: number, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(ms));
}

export function streamView(stream: StreamRecord, silencedUntilMs: number | null, openIncidents: number): StreamView {
  const s = stream.snapshot;
  return {
    queryId: stream.queryId,
    name: stream.name,
    health: stream.health,
    timeBehindSec: s?.timeBehindSec ?? null,
    batchDurationMs: s?.batchDurationMs ?? null,
    triggerMs: s?.triggerMs ?? null,
    stateRows: s?.stateRows ?? null,
    lastProgressAt: s?.lastProgressAt ?? stream.lastObservedAt,
    lastBatchId: s?.lastBatchId ?? stream.lastObservedBatchId,
    runPageUrl: stream.runPageUrl ?? null,
    silencedUntilMs,
    openIncidents,
  };
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

export function createDigestProcessor(deps: DigestDeps) {
  const now = deps.now ?? Date.now;
  const timeZone = deps.timeZone ?? 'UTC';
  return async function processDigest(job: Job<DigestJobData>): Promise<{ channels?: number; posted?: string }> {
    const data = job.data;
    if (data.kind === 'all') {
      // A scheduler job is created one period ahead as a delayed job: its fire time is timestamp + delay.
      const fireMs = job.timestamp ? job.timestamp + (job.delay ?? 0) : now();
      const day = data.day ?? dayIn(fireMs, timeZone);
      const channels = [...(await streamsByChannel(deps.store, deps.routing)).keys()];
      await deps.queues.digest.addBulk(
        channels.map((channel) => ({ name: 'channel', data: { kind: 'channel' as const, channel, day }, opts: { jobId: safeJobId('digest', channel, day) } })),
      );
      return { channels: channels.length };
    }
    const nowMs = now();
    const streams = (await streamsByChannel(deps.store, deps.routing)).get(data.channel) ?? [];
    const entries = await deps.store.incidents.listForChannel(data.channel, nowMs - 24 * 3_600_000);
    const incidents = await deps.store.incidents.getMany(entries.map((e) => e.incidentId));
    const silences = new Map((await deps.store.silences.list(nowMs)).map((s) => [s.queryId, s.untilMs]));
    const openByQuery = new Map<string, number>();
    for (const i of incidents) if (i.state === 'open') openByQuery.set(i.queryId, (openByQuery.get(i.queryId) ?? 0) + 1);
    const message = renderDigest({
      channelLabel: data.channel,
      nowMs,
      streams: streams.map((s) => streamView(s, silences.get(s.queryId) ?? null, openByQuery.get(s.queryId) ?? 0)),
      incidents,
    });
    const result = await deps.poster.postOrUpdate(data.channel, `digest.${data.day}`, () => ({ text: message.text, blocks: message.blocks }));
    deps.metrics.notifications.inc({ outcome: `digest_${result.action}` });
    return { posted: result.ts };
  };
}
