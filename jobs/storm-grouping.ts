/**
 * Alert storms, as one unit: when openings in one channel come faster than the storm threshold
 * within the storm window (the store's `StormOptions`: `STREAMDOCTOR_STORM_WINDOW_SECONDS`,
 * `STREAMDOCTOR_STORM_THRESHOLD`), they share one grouped message instead of one each. The first
 * opening of a burst is posted at once (no wait added to the first alert); the group that forms
 * behind it takes that message over (its anchor), and later openings join it. The group's message
 * is rendered by a debounced notify job, so members joining together land in one chat.update.
 * Each stream's silence shows where the stream does: the lead's in the message's own silence line
 * and button (its buttons act on the lead), every other member's beside it in the list.
 */
import type { PipelineMetrics } from '../src/observability/metrics.js';
import { MessageBusyError, type MessagePoster } from '../src/slack/gateway/message-poster.js';
import type { RenderedMessage } from '../src/slack/render/types.js';
import type { RedisStore } from '../src/store/index.js';
import type { IncidentRecord, SilenceRecord, SlackRef, StreamRecord } from '../src/store/types.js';
import { StreamDoctorError } from '../src/util/errors.js';
import { safeJobId } from './job-ids.js';
import type { NotifyRenderer } from './notify-renderer.js';
import type { PipelineQueues } from './queues.js';

export interface StormGroupingDeps {
  store: RedisStore;
  queues: PipelineQueues;
  poster: MessagePoster;
  renderer: NotifyRenderer;
  metrics: PipelineMetrics;
  /**
   * Debounce of grouped-message renders: members joining within it land in one chat.update. Short,
   * because a member is only shown once it runs (it adds to that member's batch→Slack latency).
   * @defaultValue 500
   */
  groupDebounceMs?: number;
  /** @defaultValue Date.now */
  now?: () => number;
  /** Capacity advice in workers for the lead's render. @defaultValue the record as it is */
  inWorkers?: (record: IncidentRecord, stream: StreamRecord | null) => Promise<IncidentRecord>;
}

/** What a group's message job did. */
export type GroupOutcome = 'posted' | 'updated' | 'adopted' | 'gone';

export const DEFAULT_GROUP_DEBOUNCE_MS = 500;

/** A note for a grouped incident came before its group had a message to thread it under; retried. */
export class GroupNotShownError extends StreamDoctorError {
  constructor(readonly groupId: string) {
    super('streamdoctor_group_not_shown', `storm group ${groupId} has no message yet to thread a note under`);
  }
}

/** The poster's message key of a group's message. */
const groupKey = (groupId: string): string => `group.${groupId}`;

export interface StormGrouping {
  /**
   * Classifies an opening about to be shown in `channel`: the id of the storm group it joined (the
   * incident's message is then the group's), or null when it stands alone. A group formed by this
   * opening folds the earlier openings of the window in.
   */
  placeOpening(channel: string, incidentId: string, nowMs: number): Promise<string | null>;
  /** Asks for the group's message to be rendered (debounced: one job per burst of changes). */
  enqueueGroup(channel: string, groupId: string): Promise<void>;
  /** Renders the group's message: its lead (the first critical open member, else the first open one) and the others. */
  processGroup(channel: string, groupId: string, committedAt: number): Promise<GroupOutcome>;
  /**
   * Posts a member's thread line (a person's note) once in the group's thread, under `key`.
   * `memberRef` is the member's recorded message: the thread while the group has not recorded one
   * yet (an anchor's own message, which the group takes over). Throws GroupNotShownError when
   * there is neither.
   */
  tellThread(channel: string, groupId: string, memberRef: SlackRef | null, key: string, render: () => RenderedMessage): Promise<void>;
}

export function createStormGrouping(deps: StormGroupingDeps): StormGrouping {
  const now = deps.now ?? Date.now;
  const debounce = deps.groupDebounceMs ?? DEFAULT_GROUP_DEBOUNCE_MS;
  const inWorkers = deps.inWorkers ?? ((record: IncidentRecord) => Promise.resolve(record));

  /**
   * A group just formed: the earliest opening of the window that has (or is getting) a message of
   * its own becomes the anchor, whose message the group takes over; earlier openings with no message
   * yet (waiting for the channel slot) join; others keep their own message.
   */
  async function foldEarlier(channel: string, groupId: string, earlier: string[], nowMs: number): Promise<void> {
    let anchored = false;
    // Only records that still exist (a write to a vanished one would leave a stray hash behind).
    const present = new Set((await deps.store.incidents.getMany(earlier)).map((r) => r.id));
    for (const id of earlier.filter((e) => present.has(e))) {
      const own = (await deps.poster.hasTrace(channel, id)) || (await deps.poster.isLocked(channel, id));
      if (own && anchored) continue;
      await deps.store.incidents.setGroup(id, groupId);
      await deps.store.storms.join(channel, groupId, id, nowMs);
      if (own) {
        await deps.store.storms.setAnchor(channel, groupId, id);
        anchored = true;
      }
    }
  }

  /**
   * Makes the group's message key point at its anchor's message. Throws MessageBusyError while the
   * anchor's first post is on its way (the job is retried shortly).
   */
  async function adoptAnchor(channel: string, key: string, anchorId: string, render: Parameters<MessagePoster['postOrUpdate']>[2]): Promise<void> {
    if (await deps.poster.messageTs(channel, key)) return;
    let anchorTs = await deps.poster.messageTs(channel, anchorId);
    if (!anchorTs && (await deps.poster.hasTrace(channel, anchorId))) {
      // The anchor's post was interrupted (claim without ts): adopt it, or post it, under its key.
      anchorTs = (await deps.poster.postOrUpdate(channel, anchorId, render)).ts;
    }
    if (anchorTs) await deps.poster.alias(channel, key, anchorTs);
    else if (await deps.poster.isLocked(channel, anchorId)) throw new MessageBusyError(anchorId);
  }

  return {
    async placeOpening(channel, incidentId, nowMs) {
      const decision = await deps.store.storms.classify(channel, incidentId, nowMs);
      if (!decision.grouped) return null;
      await deps.store.incidents.setGroup(incidentId, decision.groupId);
      if (decision.created) await foldEarlier(channel, decision.groupId, decision.earlier, nowMs);
      return decision.groupId;
    },

    async enqueueGroup(channel, groupId) {
      await deps.queues.notify.add(
        'group',
        { kind: 'group', channel, groupId, committedAt: now() },
        { delay: debounce, deduplication: { id: safeJobId('group', channel, groupId), ttl: debounce, extend: false } },
      );
    },

    async processGroup(channel, groupId, committedAt) {
      const group = await deps.store.storms.get(channel, groupId);
      if (!group) return 'gone';
      const members = await deps.store.incidents.getMany(group.incidentIds);
      if (members.length === 0) return 'gone';
      const open = members.filter((m) => m.state === 'open');
      const lead = open.find((m) => m.incident.severity === 'critical') ?? open[0] ?? members[0]!;
      const others = members.filter((m) => m.id !== lead.id);
      const nowMs = now();
      const render = async () => {
        const stream = await deps.store.streams.get(lead.queryId);
        const silences = await silencesOf(members, nowMs);
        const listed = others.map((m) => ({ ...m, silencedUntilMs: silences.get(m.queryId)?.untilMs ?? null }));
        const msg = deps.renderer.incident(await inWorkers(lead, stream), { nowMs, stream, silence: silences.get(lead.queryId) ?? null }, listed);
        return { text: msg.text, blocks: msg.blocks };
      };
      const key = groupKey(groupId);
      if (group.anchorId) await adoptAnchor(channel, key, group.anchorId, render);
      const result = await deps.poster.postOrUpdate(channel, key, render);
      await deps.store.storms.setSlackTs(channel, groupId, result.ts);
      await Promise.all(members.map((m) => deps.store.incidents.setSlackRef(m.id, { channel, ts: result.ts })));
      await deps.store.storms.markNotified(channel, groupId, group.version);
      await deps.store.storms.markShown(channel, groupId, members.map((m) => m.id), now());
      deps.metrics.notificationLatency.observe(Math.max(0, nowMs - committedAt) / 1000);
      deps.metrics.notifications.inc({ outcome: `group_${result.action}` });
      return result.action;
    },

    async tellThread(channel, groupId, memberRef, key, render) {
      const threadTs = (await deps.poster.messageTs(channel, groupKey(groupId))) ?? (memberRef?.channel === channel ? memberRef.ts : null);
      if (!threadTs) throw new GroupNotShownError(groupId);
      await deps.poster.postOrUpdate(channel, key, () => ({ ...render(), threadTs }));
    },
  };

  /** The members' streams silenced now, by query id (one read per stream, sent together). */
  async function silencesOf(members: IncidentRecord[], nowMs: number): Promise<Map<string, SilenceRecord>> {
    const queryIds = [...new Set(members.map((m) => m.queryId))];
    const silences = await Promise.all(queryIds.map((q) => deps.store.silences.get(q)));
    return new Map(silences.filter((s): s is SilenceRecord => s !== null && s.untilMs > nowMs).map((s) => [s.queryId, s]));
  }
}
