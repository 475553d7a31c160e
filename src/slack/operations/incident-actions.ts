/**
 * What people do to incidents from Slack (buttons and commands share these): acknowledge,
 * unacknowledge, silence, unsilence. Each checks the incident is still live and applies the change
 * in the store; the alert is re-rendered, and the action told in its thread, by a notify refresh job
 * (the one writer of alert messages: lock, exactly-once claim, one renderer). Returns the reply for
 * the person.
 */
import type { webApi } from '@slack/bolt';
import type { IncidentRecord, SilenceRecord } from '../../store/types.js';
import { formatDuration } from '../../util/duration.js';
import { nowOf, type SlackDeps } from '../deps.js';
import { inlineCode, slackDate, userMention } from '../mrkdwn.js';
import type { AlertNote } from '../render/alert.js';

export type ActionOutcome = { ok: true; message: string } | { ok: false; message: string };

function name(record: IncidentRecord): string {
  return inlineCode(record.queryName || record.queryId);
}

/** Asks notify to re-render the alert (and post the note in its thread). A failure is logged: the change is stored and shows at the alert's next update. */
async function refreshQuietly(deps: SlackDeps, record: IncidentRecord, reason: string, tag: string | number, note?: AlertNote): Promise<void> {
  if (!deps.alerts) {
    deps.logger.warn({ incidentId: record.id }, 'no notify queue to refresh the alert; it shows the change at its next update');
    return;
  }
  try {
    await deps.alerts.refresh(record.id, reason, tag, note);
  } catch (error) {
    deps.logger.warn({ err: error, incidentId: record.id }, 'could not ask for the alert to be refreshed after a change');
  }
}

function alreadyAcknowledged(record: IncidentRecord, userId: string): string {
  const at = record.acknowledgedAt != null ? ` ${slackDate(record.acknowledgedAt)}` : '';
  return `${record.acknowledgedBy === userId ? 'You' : userMention(record.acknowledgedBy)} already acknowledged this incident${at}.`;
}

export async function acknowledgeIncident(client: webApi.WebClient, deps: SlackDeps, incidentId: string, userId: string): Promise<ActionOutcome> {
  const nowMs = nowOf(deps);
  // One atomic check-and-set: a double click, or two people clicking at once, acknowledges once.
  const outcome = await deps.store.incidents.acknowledgeFirst(incidentId, userId, nowMs);
  switch (outcome.status) {
    case 'missing':
      return { ok: false, message: 'This incident is gone (it expired from the store). Nothing to acknowledge.' };
    case 'resolved':
      return { ok: false, message: `This incident on ${name(outcome.record!)} is already resolved.` };
    case 'unchanged':
      return { ok: false, message: alreadyAcknowledged(outcome.record!, userId) };
    case 'changed':
      await refreshQuietly(deps, outcome.record, 'ack', outcome.record.version, { kind: 'ack', userId, atMs: nowMs });
      return { ok: true, message: `You acknowledged the incident on ${name(outcome.record)}.` };
  }
}

export async function unacknowledgeIncident(client: webApi.WebClient, deps: SlackDeps, incidentId: string, userId: string): Promise<ActionOutcome> {
  const outcome = await deps.store.incidents.unacknowledgeIfSet(incidentId);
  switch (outcome.status) {
    case 'missing':
      return { ok: false, message: 'This incident is gone (it expired from the store).' };
    case 'resolved':
      return { ok: false, message: `This incident on ${name(outcome.record!)} is already resolved.` };
    case 'unchanged':
      return { ok: false, message: 'Nobody has acknowledged this incident.' };
    case 'changed':
      await refreshQuietly(deps, outcome.record, 'unack', outcome.record.version, { kind: 'unack', userId, atMs: nowOf(deps) });
      return { ok: true, message: `You removed the acknowledgement on ${name(outcome.record)}.` };
  }
}

async function openIncidentsOf(deps: SlackDeps, queryId: string): Promise<IncidentRecord[]> {
  return (await deps.store.incidents.listForQuery(queryId)).filter((record) => record.state === 'open');
}

/**
 * The same silence asked for again this soon after (a double click on Silence ▾: two payloads a
 * second or so apart, plus the permission and scope checks each makes before it gets here) changes
 * nothing and is not told twice.
 */
const REPEAT_SILENCE_WITHIN_MS = 10_000;

async function streamLabel(deps: SlackDeps, queryId: string): Promise<{ name: string; label: string }> {
  const name = (await deps.store.streams.get(queryId))?.name || queryId;
  return { name, label: inlineCode(name) };
}

function alreadySilenced(label: string, silence: SilenceRecord, userId: string): string {
  const by = silence.byUser === userId ? '' : ` by ${userMention(silence.byUser)}`;
  return `🔕 ${label} is already silenced${by} until ${slackDate(silence.untilMs)}; nothing changed.`;
}

export async function silenceStream(
  client: webApi.WebClient,
  deps: SlackDeps,
  queryId: string,
  durationMs: number,
  userId: string,
): Promise<ActionOutcome> {
  const nowMs = nowOf(deps);
  const untilMs = nowMs + durationMs;
  const outcome = await deps.store.silences.silenceOnce(queryId, untilMs, userId, nowMs, REPEAT_SILENCE_WITHIN_MS);
  const { name, label } = await streamLabel(deps, queryId);
  if (!outcome.changed) return { ok: false, message: alreadySilenced(label, outcome.record, userId) };
  const open = await openIncidentsOf(deps, queryId);
  // Tagged by the silence's end, not the click's time: a note per silence set, whoever asks.
  for (const record of open.slice(0, 20)) await refreshQuietly(deps, record, 'silence', untilMs, { kind: 'silence', userId, atMs: nowMs, untilMs });
  // The command as it can be typed anywhere: with the stream's name (a bare unmute needs a channel of one incident).
  const unmute = inlineCode(`${deps.command ?? '/stream'} unmute ${name}`);
  return { ok: true, message: `🔕 Silenced ${label} for ${formatDuration(durationMs)}, until ${slackDate(untilMs)}. ${unmute} or Unsilence on its alert ends it early.` };
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/**
 * Ends the stream's silence. `clicked`: the incident whose Unsilence button was clicked; when it has
 * resolved since (a stale button) its thread is told too, as an open one's is, and its alert
 * re-rendered without the button.
 */
export async function unsilenceStream(client: webApi.WebClient, deps: SlackDeps, queryId: string, userId: string, clicked?: IncidentRecord): Promise<ActionOutcome> {
  const nowMs = nowOf(deps);
  const had = await deps.store.silences.unsilence(queryId, nowMs);
  const { label } = await streamLabel(deps, queryId);
  if (!had) return { ok: false, message: `${label} is not silenced: there was no silence to end, so nothing changed.` };
  const open = await openIncidentsOf(deps, queryId);
  // Every open incident goes back to notify: one already shown loses its 🔕, one the silence kept
  // quiet (no message yet) is posted now.
  const held = open.filter((record) => !record.slack);
  for (const record of open) {
    await deps.store.silences.unhold(record.id);
    // A held opening gets no note: its first post comes now.
    await refreshQuietly(deps, record, 'unmuted', nowMs, record.slack ? { kind: 'unsilence', userId, atMs: nowMs } : undefined);
  }
  // Resolved since it was drawn, and shown (alone or in a storm group's message): it has a thread to tell.
  const resolvedClicked = clicked && !open.some((record) => record.id === clicked.id) && (clicked.slack || clicked.groupId) ? clicked : null;
  if (resolvedClicked) await refreshQuietly(deps, resolvedClicked, 'unmuted', nowMs, { kind: 'unsilence', userId, atMs: nowMs });
  const shown = open.length - held.length;
  const noted = (where: string) => (deps.alerts ? ` (noted in ${where})` : '');
  const parts: string[] = [];
  if (held.length > 0 && deps.alerts) parts.push(`${count(held.length, 'open incident')} that opened while silenced will alert now`);
  if (shown > 0) parts.push(`${count(shown, 'open incident')} ${shown === 1 ? 'is' : 'are'} alerting again${noted(shown === 1 ? 'its thread' : 'their threads')}`);
  if (resolvedClicked) parts.push(`this incident had already resolved${noted('its thread')}`);
  return { ok: true, message: `🔔 ${label} is no longer silenced${parts.length > 0 ? `; ${parts.join(', and ')}` : ''}.` };
}
