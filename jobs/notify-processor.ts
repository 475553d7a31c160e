/**
 * The notify job: bring Slack in line with an incident record (or a storm group). Renders the
 * record's latest version, so jobs that run late or out of order converge on the same message.
 * New messages go through MessagePoster (exactly once, about one per second per channel); later
 * changes update the same message; resolving adds one thread reply. Openings inside an alert
 * storm join a grouped message instead of posting their own.
 */
import type { Job } from 'bullmq';
import type { Logger } from '../src/observability/logger.js';
import type { PipelineMetrics } from '../src/observability/metrics.js';
import type { RedisStore } from '../src/store/index.js';
import type { IncidentRecord, RoutingDefaults } from '../src/store/types.js';
import { safeJobId } from './job-ids.js';
import type { MessagePoster } from './message-poster.js';
import type { NotifyRenderer } from './notify-renderer.js';
import type { NotifyJobData } from './queue-names.js';
import type { PipelineQueues } from './queues.js';

export interface NotifyDeps {
  store: RedisStore;
  queues: PipelineQueues;
  poster: MessagePoster;
  renderer: NotifyRenderer;
  metrics: PipelineMetrics;
  logger: Logger;
  /** Routing defaults from the watch file. */
  routing?: RoutingDefaults;
  /** Debounce of grouped-message renders. @defaultValue 2000 */
  groupDebounceMs?: number;
  now?: () => number;
}

export type NotifyOutcome = 'posted' | 'updated' | 'adopted' | 'grouped' | 'stale' | 'unrouted' | 'silenced' | 'gone' | 'skipped';

/** Enqueues a re-render of an incident's message (after an ack or silence from Slack). */
export async function requestRefresh(queues: PipelineQueues, incidentId: string, version: number): Promise<void> {
  await queues.notify.add('refresh', { kind: 'refresh', incidentId, committedAt: Date.now() }, { jobId: safeJobId('refresh', incidentId, `v${version}`) });
}

export function createNotifyProcessor(deps: NotifyDeps) {
  const now = deps.now ?? Date.now;
  const debounce = deps.groupDebounceMs ?? 2000;

  async function enqueueGroup(channel: string, groupId: string): Promise<void> {
    await deps.queues.notify.add(
      'group',
      { kind: 'group', channel, groupId, committedAt: now() },
      { delay: debounce, deduplication: { id: safeJobId('group', channel, groupId), ttl: debounce, extend: false } },
    );
  }

  async function processGroup(channel: string, groupId: string, committedAt: number): Promise<NotifyOutcome> {
    const group = await deps.store.storms.get(channel, groupId);
    if (!group) return 'gone';
    const members = await deps.store.incidents.getMany(group.incidentIds);
    if (members.length === 0) return 'gone';
    const open = members.filter((m) => m.state === 'open');
    const lead = open.find((m) => m.incident.severity === 'critical') ?? open[0] ?? members[0]!;
    const others = members.filter((m) => m.id !== lead.id);
    const nowMs = now();
    const result = await deps.poster.postOrUpdate(channel, `group.${groupId}`, async () => {
      const msg = deps.renderer.incident(lead, { nowMs, stream: await deps.store.streams.get(lead.queryId), silence: null }, others);
      return { text: msg.text, blocks: msg.blocks };
    });
    await deps.store.storms.setSlackTs(channel, groupId, result.ts);
    await Promise.all(members.map((m) => deps.store.incidents.setSlackRef(m.id, { channel, ts: result.ts })));
    await deps.store.storms.markNotified(channel, groupId, group.version);
    deps.metrics.notificationLatency.observe(Math.max(0, nowMs - committedAt) / 1000);
    deps.metrics.notifications.inc({ outcome: `group_${result.action}` });
    return result.action;
  }

  async function processIncident(incidentId: string, change: string | null, committedAt: number): Promise<NotifyOutcome> {
    const record = await deps.store.incidents.get(incidentId);
    if (!record) return 'gone';
    await deps.store.incidents.index(record);
    if (record.notifiedVersion >= record.version) return 'stale';
    const nowMs = now();
    const stream = await deps.store.streams.get(record.queryId);
    let channel = record.channel;
    if (!channel) {
      const routed = await deps.store.routing.resolve(stream ?? { queryId: record.queryId }, deps.routing);
      if (!routed) {
        deps.logger.info({ incidentId, queryId: record.queryId }, 'incident not routed to any channel');
        await deps.store.incidents.markNotified(record.id, record.version);
        return 'unrouted';
      }
      channel = await deps.store.incidents.assignChannel(record, routed, nowMs);
    }
    const silence = await deps.store.silences.get(record.queryId);
    const hasMessage = record.slack !== null || (await deps.poster.hasTrace(channel, record.id));
    let groupId = record.groupId;
    if (!hasMessage && !groupId) {
      // A slow repartition is reported after the fact (its batch ends when it is over), so it often
      // resolves within the same detect run: people still need to hear that it happened.
      const afterTheFact = record.kind === 'slow_repartition';
      if ((record.state === 'resolved' && !afterTheFact) || silence) {
        // Nothing was shown yet: a silenced opening stays quiet, and an incident that resolved before
        // it was ever posted is not worth a message of its own.
        await deps.store.incidents.markNotified(record.id, record.version);
        return silence ? 'silenced' : 'skipped';
      }
      const decision = await deps.store.storms.classify(channel, record.id, nowMs);
      if (decision.grouped) {
        groupId = decision.groupId;
        await deps.store.incidents.setGroup(record.id, groupId);
      }
    }
    if (groupId) {
      await deps.store.storms.touch(channel, groupId);
      await enqueueGroup(channel, groupId);
      await deps.store.incidents.markNotified(record.id, record.version);
      deps.metrics.notifications.inc({ outcome: 'grouped' });
      return 'grouped';
    }
    let rendered: IncidentRecord = record;
    const result = await deps.poster.postOrUpdate(channel, record.id, async () => {
      // Re-read under the lock: a racing job may have moved the record on.
      rendered = (await deps.store.incidents.get(record.id)) ?? record;
      const msg = deps.renderer.incident(rendered, { nowMs, stream, silence });
      return { text: msg.text, blocks: msg.blocks };
    });
    if (result.action !== 'updated' || !record.slack) await deps.store.incidents.setSlackRef(record.id, { channel, ts: result.ts });
    // The resolve reply goes with the resolving change, or with any later job while it is missing (an
    // incident first shown already resolved: its 'resolved' job found nothing new to do).
    const replyKey = `${record.id}.resolved`;
    if (rendered.state === 'resolved' && (change === 'resolved' || change === null || !(await deps.poster.hasTrace(channel, replyKey)))) {
      await deps.poster.postOrUpdate(channel, replyKey, () => {
        const reply = deps.renderer.resolvedReply(rendered, nowMs);
        return { text: reply.text, blocks: reply.blocks, threadTs: result.ts };
      });
    }
    await deps.store.incidents.markNotified(record.id, rendered.version);
    deps.metrics.notificationLatency.observe(Math.max(0, now() - committedAt) / 1000);
    deps.metrics.notifications.inc({ outcome: result.action });
    return result.action;
  }

  return async function processNotify(job: Job<NotifyJobData>): Promise<NotifyOutcome> {
    const data = job.data;
    if (data.kind === 'group') return processGroup(data.channel, data.groupId, data.committedAt);
    if (data.kind === 'refresh') return processIncident(data.incidentId, null, data.committedAt);
    return processIncident(data.incidentId, data.change, data.committedAt);
  };
}
