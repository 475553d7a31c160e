/**
 * The notify job: bring Slack in line with an incident record (or a storm group). Renders the
 * record's latest version, so jobs that run late or out of order converge on the same message.
 * New messages go through MessagePoster (exactly once, about one per second per channel); later
 * changes update the same message; resolving adds one thread reply. Openings inside an alert
 * storm join a grouped message instead of posting their own; the first opening of a burst is posted
 * at once and the group that forms behind it takes that message over (one top-level message per
 * burst, no group_wait added to the first alert). A severity change of an open incident adds one
 * thread line too ("Escalated to critical" / "Down to warning").
 */
import { UnrecoverableError, type Job } from 'bullmq';
import type { CapacityAdvisor } from '../src/capacity/capacity-advisor.js';
import type { Logger } from '../src/observability/logger.js';
import type { AlertRefresher } from '../src/slack/deps.js';
import { renderAlertNote, type AlertNote } from '../src/slack/render/alert.js';
import { stallIncidentId } from '../src/slack/render/incident-message.js';
import { renderRelapseReply, renderSeverityReply } from '../src/slack/render/incident-thread.js';
import type { RenderedMessage } from '../src/slack/render/types.js';
import type { PipelineMetrics } from '../src/observability/metrics.js';
import type { Severity } from '../src/diagnosis/types.js';
import type { RedisStore } from '../src/store/index.js';
import type { IncidentRecord, RoutingDefaults, SilenceRecord, StreamRecord } from '../src/store/types.js';
import { safeJobId } from './job-ids.js';
import { MessageBusyError, ThreadGoneError, type MessagePoster, type PostResult } from '../src/slack/gateway/message-poster.js';
import type { NotifyRenderer } from './notify-renderer.js';
import type { SlackChat } from '../src/slack/gateway/slack-chat.js';
import { jobDataOf, notifyJobSchema, type NotifyJobData } from './queue-names.js';
import type { PipelineQueues } from './queues.js';
import { createStormGrouping } from './storm-grouping.js';

export interface NotifyDeps {
  store: RedisStore;
  queues: PipelineQueues;
  poster: MessagePoster;
  renderer: NotifyRenderer;
  metrics: PipelineMetrics;
  logger: Logger;
  /** Routing defaults from the watch file. */
  routing?: RoutingDefaults;
  /**
   * Says capacity advice in workers of the stream's job cluster when it is known (src/capacity).
   * @defaultValue none: the engine's wording
   */
  advisor?: CapacityAdvisor;
  /**
   * Turns a route written by name into the channel id (Slack needs ids to update and read), and links
   * a catch-up's alert to the alert of the stall it follows.
   */
  chat?: Pick<SlackChat, 'channelId' | 'permalink'>;
  /**
   * Debounce of grouped-message renders: members joining within it land in one chat.update. Short,
   * because a member is only shown once it runs (it adds to that member's batch→Slack latency).
   * @defaultValue 500
   */
  groupDebounceMs?: number;
  now?: () => number;
}

export type NotifyOutcome = 'posted' | 'updated' | 'adopted' | 'grouped' | 'stale' | 'unrouted' | 'silenced' | 'gone' | 'skipped';

/**
 * Enqueues a refresh of an incident's message: notify renders the record as it is now (posting it
 * if nothing was shown yet and nothing keeps it quiet). `reason` + `tag` make the job id, so one
 * event (an ack, an unmute, the end of one silence) enqueues one job however often it is asked.
 */
export async function requestRefresh(
  queues: PipelineQueues,
  incidentId: string,
  reason: string,
  tag: string | number,
  options: { delayMs?: number; nowMs?: number; note?: AlertNote } = {},
): Promise<void> {
  const noteKey = safeJobId('note', reason, String(tag));
  await queues.notify.add(
    'refresh',
    { kind: 'refresh', incidentId, committedAt: options.nowMs ?? Date.now(), ...(options.note ? { note: options.note, noteKey } : {}) },
    { jobId: safeJobId(reason, incidentId, String(tag)), ...(options.delayMs && options.delayMs > 0 ? { delay: Math.ceil(options.delayMs) } : {}) },
  );
}

/** The Slack app's way to ask for refreshes: notify jobs on these queues. */
export function queueAlertRefresher(queues: PipelineQueues, now: () => number = Date.now): AlertRefresher {
  return {
    refresh: (incidentId, reason, tag, note) => requestRefresh(queues, incidentId, reason, tag, { nowMs: now(), ...(note ? { note } : {}) }),
  };
}

/** Slack after the silence ends: a margin so the job finds the silence key expired. */
const SILENCE_END_MARGIN_MS = 250;

/**
 * The id of a route target (the watch file may name `#data-alerts`): every message of the incident
 * then lives under the id, which chat.update, history and uploads need. Unknown names stay as
 * written (the post reports channel_not_found); a lookup that fails is retried with the job.
 */
export async function channelIdOf(deps: { chat?: Pick<SlackChat, 'channelId'> }, target: string): Promise<string> {
  if (!deps.chat?.channelId) return target;
  return (await deps.chat.channelId(target)) ?? target;
}

/**
 * Severity lines in an alert's thread. Neither the record nor the outbox keeps the previous severity
 * (a change is just 'updated'), so notify keeps its own memory: a marker saying the level the
 * incident was first shown at (taken under the alert's lock, as it renders), and the thread's message
 * keys `<id>.severity.<n>`, the n-th change told. Levels alternate, so line n always means the same
 * level: a retried job posts (or adopts) the same key, never a second line.
 */
const SEVERITIES: readonly Severity[] = ['warning', 'critical'];
const firstShownMarker = (incidentId: string, severity: Severity): string => `severity-shown.${incidentId}.${severity}`;
/** As long as the poster keeps message refs: the lines are counted against the same span. */
const FIRST_SHOWN_TTL_MS = 30 * 24 * 3_600_000;
const severityLineKey = (incidentId: string, n: number): string => `${incidentId}.severity.${n}`;
/** Bound on the lines read back: far more changes than one incident ever has. */
const MAX_SEVERITY_LINES = 100;

/** What showing an incident's own message did, and the record it rendered. */
interface Shown {
  result: PostResult;
  rendered: IncidentRecord;
}

/**
 * The channel of an incident's existing message, attached to an error from delivering its change
 * there: a permanent refusal (channel deleted, archived) then says the message stays where it is.
 */
const existingMessageOf = new WeakMap<object, { channel: string; incidentId: string }>();

/** Where the incident whose delivery failed with `err` already has its message, or null. */
export function existingAlertOf(err: unknown): { channel: string; incidentId: string } | null {
  return err && typeof err === 'object' ? (existingMessageOf.get(err) ?? null) : null;
}

/** Thrown from the move of an unshown incident once done (under the old channel's lock): nothing is posted. */
class MovedSignal extends Error {}

/** Thrown from a render when the incident joined a storm group meanwhile: nothing is posted. */
class JoinedGroupSignal extends Error {
  constructor(readonly groupId: string) {
    super(`incident joined storm group ${groupId}`);
  }
}

export function createNotifyProcessor(deps: NotifyDeps) {
  const now = deps.now ?? Date.now;
  const inWorkers = (record: IncidentRecord, stream: StreamRecord | null): Promise<IncidentRecord> =>
    deps.advisor ? deps.advisor.inWorkers(record, stream) : Promise.resolve(record);
  const storms = createStormGrouping({ ...deps, now, inWorkers });

  async function processIncident(incidentId: string, change: string | null, committedAt: number, note?: { note: AlertNote; key: string }, jobId?: string): Promise<NotifyOutcome> {
    const record = await readRecord(incidentId);
    if (!record) return 'gone';
    await deps.store.incidents.index(record.record);
    // A refresh (change null) renders even when the version was shown: a silence that began or
    // ended changes the message, or lets a held opening through, without a new version. A version
    // that is no count cannot say it was shown: rendered again (an update at worst).
    if (change !== null && !record.versionUnknown && record.record.notifiedVersion >= record.record.version) return 'stale';
    return showIncident(record.record, change, committedAt, note, jobId);
  }

  /**
   * The record, or null when there is none (expired). One that can never be rendered fails the job
   * at once, saying what is wrong and what to do; one read around a fault is shown, with a warning.
   */
  async function readRecord(incidentId: string): Promise<{ record: IncidentRecord; versionUnknown: boolean } | null> {
    const read = await deps.store.incidents.read(incidentId);
    const key = deps.store.incidents.keyFor(incidentId);
    if (!read.record) {
      if (!read.problem) return null;
      const fix = `the incident's next change rewrites the record and notifies again; or delete ${key} to drop it`;
      deps.logger.error({ incidentId, key, problem: read.problem, fix }, 'incident record cannot be rendered: its alert is not sent');
      throw new UnrecoverableError(`streamdoctor_incident_unreadable: incident ${incidentId} cannot be rendered (${read.problem}); ${fix}`);
    }
    if (read.problem) {
      const fix = read.versionUnknown ? `set its version field to a count (HSET ${key} version <n>): until then its changes cannot be committed` : undefined;
      deps.logger.warn({ incidentId, key, problem: read.problem, ...(fix ? { fix } : {}) }, 'incident record read around a fault');
    }
    return { record: read.record, versionUnknown: read.versionUnknown };
  }

  async function showIncident(record: IncidentRecord, change: string | null, committedAt: number, note: { note: AlertNote; key: string } | undefined, jobId: string | undefined): Promise<NotifyOutcome> {
    const nowMs = now();
    const stream = await deps.store.streams.get(record.queryId);
    let channel = record.channel;
    // Shown nowhere yet: it follows its route as it is now (fixed after a channel was deleted, or
    // changed while a silence held it). A message that exists stays where it is.
    if (channel && !record.slack && !record.groupId) channel = await rerouteUnshown(record, channel, stream, nowMs);
    if (!channel) {
      const routed = await deps.store.routing.resolve(stream ?? { queryId: record.queryId }, deps.routing);
      if (!routed) {
        deps.logger.info({ incidentId: record.id, queryId: record.queryId }, 'incident not routed to any channel');
        await deps.store.incidents.markNotified(record.id, record.version);
        return 'unrouted';
      }
      channel = await deps.store.incidents.assignChannel(record, await channelIdOf(deps, routed), nowMs);
    }
    const silence = await readSilence(record.queryId, nowMs);
    // A message recorded on the incident but unknown to the poster (its ref expired, or it was posted
    // before the poster kept refs) is the one to update: never a second top-level message.
    if (record.slack && record.slack.channel === channel && !record.groupId) await deps.poster.alias(channel, record.id, record.slack.ts);
    const hasMessage = record.slack !== null || (await deps.poster.hasTrace(channel, record.id));
    let groupId = record.groupId;
    if (!hasMessage && !groupId) {
      // A slow repartition is reported after the fact (its batch ends when it is over), so it often
      // resolves within the same detect run: people still need to hear that it happened.
      const afterTheFact = record.kind === 'slow_repartition';
      if ((record.state === 'resolved' && !afterTheFact) || silence) {
        // Nothing was shown yet: a silenced opening stays quiet, and an incident that resolved before
        // it was ever posted is not worth a message of its own.
        if (silence && record.state === 'open') {
          // Held until the silence ends: a delayed refresh at its end (a later silence re-holds),
          // the held index for the sweep (backstop) and for unmute.
          await deps.store.silences.hold(record.id, silence.untilMs);
          // Never under the id of the job running now (a refresh that found the silence on): it
          // would be taken for a duplicate and skipped.
          const tag = safeJobId('unsilenced', record.id, String(silence.untilMs)) === jobId ? `${silence.untilMs}.${nowMs}` : silence.untilMs;
          await requestRefresh(deps.queues, record.id, 'unsilenced', tag, {
            delayMs: silence.untilMs - nowMs + SILENCE_END_MARGIN_MS,
            nowMs: silence.untilMs, // latency counts from the silence's end
          });
        } else {
          await deps.store.silences.unhold(record.id);
        }
        await deps.store.incidents.markNotified(record.id, record.version);
        return silence ? 'silenced' : 'skipped';
      }
      groupId = await storms.placeOpening(channel, record.id, nowMs);
    }
    await deps.store.silences.unhold(record.id);
    const toGroup = async (id: string): Promise<NotifyOutcome> => {
      await deps.store.storms.touch(channel, id);
      await storms.enqueueGroup(channel, id);
      // The thread is every member's: its lines name the stream.
      const subjectOf = async () => (await deps.store.streams.get(record.queryId))?.name || record.queryName || record.queryId;
      // A severity change goes to the group's thread.
      await rememberFirstShown(record);
      const severityKey = await untoldSeverity(channel, record);
      if (severityKey) {
        const subject = await subjectOf();
        await storms.tellThread(channel, id, record.slack, severityKey, () => severityLine(record, subject));
      }
      // The person acted on the group's message: the note goes to its thread.
      if (note) {
        const subject = await subjectOf();
        await storms.tellThread(channel, id, record.slack, `${record.id}.${note.key}`, () => noteLine({ ...note.note, subject }));
      }
      await deps.store.incidents.markNotified(record.id, record.version);
      deps.metrics.notifications.inc({ outcome: 'grouped' });
      return 'grouped';
    };
    if (groupId) return toGroup(groupId);
    // Read the job's cluster spec (cached) before taking the message lock, not while holding it.
    await inWorkers(record, stream);
    let shown: Shown;
    try {
      shown = await showAlert(channel, record, stream, silence, nowMs);
      try {
        await tellThread(channel, record.id, shown, change, note, nowMs);
      } catch (err) {
        if (!(err instanceof ThreadGoneError)) throw err;
        // The alert was deleted in Slack between its update and its replies: post it anew, then
        // carry on in the new message's thread.
        await deps.poster.forget(channel, record.id, err.threadTs);
        shown = await showAlert(channel, record, stream, silence, nowMs);
        await tellThread(channel, record.id, shown, change, note, nowMs);
      }
    } catch (err) {
      if (err instanceof JoinedGroupSignal) return toGroup(err.groupId);
      if (hasMessage && err && typeof err === 'object') existingMessageOf.set(err, { channel, incidentId: record.id });
      throw err;
    }
    await deps.store.incidents.markNotified(record.id, shown.rendered.version);
    deps.metrics.notificationLatency.observe(Math.max(0, now() - committedAt) / 1000);
    deps.metrics.notifications.inc({ outcome: shown.result.action });
    return shown.result.action;
  }

  /**
   * Posts or updates the incident's own message (posted anew when it was deleted in Slack: the
   * poster does that) and makes its ts the incident's, so later updates and replies go to it.
   * Throws JoinedGroupSignal when the incident joined a storm group meanwhile.
   */
  async function showAlert(channel: string, record: IncidentRecord, stream: StreamRecord | null, silence: SilenceRecord | null, nowMs: number): Promise<Shown> {
    let rendered: IncidentRecord = record;
    const result = await deps.poster.postOrUpdate(channel, record.id, async () => {
      // Re-read under the lock: a racing job may have moved the record on, or folded it into a
      // storm group that formed meanwhile (then the group's message shows it, not this one).
      rendered = (await deps.store.incidents.get(record.id)) ?? record;
      if (rendered.groupId) throw new JoinedGroupSignal(rendered.groupId);
      // Moved to its new route meanwhile (rerouteUnshown): shown there by this job's next run.
      if (rendered.channel && rendered.channel !== channel) throw new MessageBusyError(record.id);
      // Under the lock, so a racing job of a later version cannot take its level for the first.
      await rememberFirstShown(rendered);
      const stallUrl = await stallAlertUrl(rendered);
      const msg = deps.renderer.incident(await inWorkers(rendered, stream), { nowMs, stream, silence, ...(stallUrl ? { stallUrl } : {}) });
      return { text: msg.text, blocks: msg.blocks };
    });
    if (result.ts !== record.slack?.ts || record.slack.channel !== channel) await deps.store.incidents.setSlackRef(record.id, { channel, ts: result.ts });
    // A group that formed while this post was on its way takes the message over: render it again.
    const regrouped = (await deps.store.incidents.get(record.id))?.groupId;
    if (regrouped) await storms.enqueueGroup(channel, regrouped);
    return { result, rendered };
  }

  /**
   * The channel an incident never shown belongs in now: its route's, when that differs and nothing
   * was posted or claimed in the old one. Moved under the old channel's message lock (a render that
   * throws, so nothing is posted), so no job is posting it there meanwhile.
   */
  async function rerouteUnshown(record: IncidentRecord, channel: string, stream: StreamRecord | null, nowMs: number): Promise<string> {
    const routed = await deps.store.routing.resolve(stream ?? { queryId: record.queryId }, deps.routing);
    const target = routed ? await channelIdOf(deps, routed) : null;
    if (!target || target === channel || (await deps.poster.hasTrace(channel, record.id))) return channel;
    try {
      await deps.poster.postOrUpdate(channel, record.id, async () => {
        if (!(await deps.poster.hasTrace(channel, record.id))) await deps.store.incidents.moveUnshown(record, channel, target, nowMs);
        throw new MovedSignal();
      });
    } catch (err) {
      if (!(err instanceof MovedSignal)) throw err;
    }
    const moved = (await deps.store.incidents.get(record.id))?.channel ?? channel;
    if (moved !== channel) deps.logger.info({ incidentId: record.id, from: channel, to: moved }, 'incident not shown yet moved to the channel its route names now');
    return moved;
  }

  /** The silence in effect, its record's faults logged (the store reads them around). */
  async function readSilence(queryId: string, nowMs: number): Promise<SilenceRecord | null> {
    const { record, problem } = await deps.store.silences.read(queryId, nowMs);
    if (problem) deps.logger.warn({ queryId, problem }, 'silence record read around a fault; re-silence the stream to rewrite it');
    return record;
  }

  /** The link to the alert of the stall a catch-up follows, when that alert was posted; else null. */
  async function stallAlertUrl(record: IncidentRecord): Promise<string | null> {
    const stallId = stallIncidentId(record);
    if (!stallId || !deps.chat?.permalink) return null;
    const ref = (await deps.store.incidents.get(stallId))?.slack;
    return ref ? deps.chat.permalink(ref.channel, ref.ts) : null;
  }

  /**
   * The alert's thread: a relapse's "Back" line, a severity change, the resolve reply, a person's
   * note. A message posted anew (the old one was deleted in Slack) gets what the change being
   * delivered brings, not a replay of the old thread: the new message itself shows the incident's state (a resolved one reads
   * "Resolved"), so replies follow their usual rules and one still recorded is updated where it is
   * (posted anew under this message only if it was deleted too). Replaying would repeat lines people
   * already saw, for no information the message lacks.
   */
  async function tellThread(channel: string, incidentId: string, shown: Shown, change: string | null, note: { note: AlertNote; key: string } | undefined, nowMs: number): Promise<void> {
    const { rendered, result } = shown;
    // A relapse (the engine re-opened the incident in its cool-down) is told once in the thread; each
    // resolution has its own reply, so the one after a relapse is not taken for the first.
    const relapses = rendered.incident.relapses ?? 0;
    const relapseKey = `${incidentId}.relapse.${relapses}`;
    // "Already told" means a recorded reply (messageTs), not any trace: a claim alone is a post that
    // was interrupted (a worker died between claim and record) and may never have reached Slack. Its
    // own job can be stale by the time it is retried (this job marks the version notified), so this
    // job settles it through the poster: adopt it if it was posted, post it if it was not.
    if (rendered.state === 'open' && relapses > 0 && !(await deps.poster.messageTs(channel, relapseKey))) {
      await deps.poster.postOrUpdate(channel, relapseKey, () => {
        const reply = (deps.renderer.relapseReply ?? renderRelapseReply)(rendered, nowMs);
        return { text: reply.text, blocks: reply.blocks, threadTs: result.ts };
      });
    }
    // A severity change since the thread last told one (or since the alert was first shown). Also
    // when resolved: the job that carried the change may have found its version already shown (a
    // retry after the resolve), and the line still belongs before the resolve reply.
    const severityKey = await untoldSeverity(channel, rendered);
    if (severityKey) {
      await deps.poster.postOrUpdate(channel, severityKey, () => ({ ...severityLine(rendered), threadTs: result.ts }));
    }
    // The resolve reply goes with the resolving change, or with any later job while it is missing (an
    // incident first shown already resolved: its 'resolved' job found nothing new to do).
    const replyKey = relapses > 0 ? `${incidentId}.resolved.${relapses}` : `${incidentId}.resolved`;
    if (rendered.state === 'resolved' && (change === 'resolved' || change === null || !(await deps.poster.messageTs(channel, replyKey)))) {
      await deps.poster.postOrUpdate(channel, replyKey, () => {
        const reply = deps.renderer.resolvedReply(rendered, nowMs);
        return { text: reply.text, blocks: reply.blocks, threadTs: result.ts };
      });
    }
    if (note) {
      // A person's action, told once in the thread (its own message key: a retry updates, never repeats).
      await deps.poster.postOrUpdate(channel, `${incidentId}.${note.key}`, () => ({ ...noteLine(note.note), threadTs: result.ts }));
    }
  }

  /** The level an incident was first shown at, once (later calls keep the first). */
  async function firstShown(incidentId: string): Promise<Severity | null> {
    for (const level of SEVERITIES) if ((await deps.store.markers.remainingMs(firstShownMarker(incidentId, level))) > 0) return level;
    return null;
  }

  async function rememberFirstShown(record: IncidentRecord): Promise<void> {
    if (!(await firstShown(record.id))) await deps.store.markers.take(firstShownMarker(record.id, record.incident.severity), '1', FIRST_SHOWN_TTL_MS);
  }

  /** The key of the severity line `record` is due, or null when the thread already tells its level. */
  async function untoldSeverity(channel: string, record: IncidentRecord): Promise<string | null> {
    const current = record.incident.severity;
    let told = await firstShown(record.id);
    if (!told) return null;
    let n = 1;
    for (; n <= MAX_SEVERITY_LINES && (await deps.poster.messageTs(channel, severityLineKey(record.id, n))); n++) told = told === 'critical' ? 'warning' : 'critical';
    return told === current || n > MAX_SEVERITY_LINES ? null : severityLineKey(record.id, n);
  }

  function severityLine(record: IncidentRecord, subject?: string): RenderedMessage {
    const line = (deps.renderer.severityReply ?? renderSeverityReply)(record, subject);
    return { text: line.text, blocks: line.blocks };
  }

  function noteLine(note: AlertNote): RenderedMessage {
    const line = (deps.renderer.note ?? renderAlertNote)(note);
    return { text: line.text, blocks: line.blocks };
  }

  return async function processNotify(job: Job<NotifyJobData>): Promise<NotifyOutcome> {
    const data = jobDataOf(notifyJobSchema, 'notify', job);
    if (data.kind === 'group') return storms.processGroup(data.channel, data.groupId, data.committedAt);
    if (data.kind === 'refresh') return processIncident(data.incidentId, null, data.committedAt, data.note ? { note: data.note, key: data.noteKey ?? safeJobId('note', job.id ?? data.committedAt) } : undefined, job.id);
    // An intent whose change was lost in the outbox is judged as an update: its version still says whether it was shown.
    return processIncident(data.incidentId, data.change ?? 'updated', data.committedAt, undefined, job.id);
  };
}
