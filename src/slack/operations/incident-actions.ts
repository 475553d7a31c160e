/**
 * What people do to incidents from Slack (buttons and commands share these): acknowledge,
 * unacknowledge, silence, unsilence. Each checks the incident is still live, applies the change in
 * the store, updates the alert in place and adds a thread line. Returns the reply for the person.
 */
import type { webApi } from '@slack/bolt';
import type { IncidentRecord } from '../../store/types.js';
import { formatDuration } from '../../util/duration.js';
import { nowOf, type SlackDeps } from '../deps.js';
import { inlineCode, slackDate, userMention } from '../mrkdwn.js';
import { renderAckReply, renderSilenceReply } from '../render/incident-thread.js';
import { refreshIncidentMessage } from './refresh-incident.js';

export type ActionOutcome = { ok: true; message: string } | { ok: false; message: string };

function name(record: IncidentRecord): string {
  return inlineCode(record.queryName || record.queryId);
}

async function refreshQuietly(client: webApi.WebClient, deps: SlackDeps, record: IncidentRecord, line: Parameters<typeof refreshIncidentMessage>[3]): Promise<void> {
  try {
    await refreshIncidentMessage(client, deps, record, line);
  } catch (error) {
    // The change is stored; the notify job re-renders from the store, so a failed edit is not lost.
    deps.logger.warn({ err: error, incidentId: record.id }, 'could not update the alert message after a change');
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
      await refreshQuietly(client, deps, outcome.record, renderAckReply(userId, nowMs, true));
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
      await refreshQuietly(client, deps, outcome.record, renderAckReply(userId, nowOf(deps), false));
      return { ok: true, message: `You removed the acknowledgement on ${name(outcome.record)}.` };
  }
}

async function openIncidentsOf(deps: SlackDeps, queryId: string): Promise<IncidentRecord[]> {
  return (await deps.store.incidents.listForQuery(queryId)).filter((record) => record.state === 'open');
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
  await deps.store.silences.silence(queryId, untilMs, userId, nowMs);
  const open = await openIncidentsOf(deps, queryId);
  for (const record of open.slice(0, 20)) await refreshQuietly(client, deps, record, renderSilenceReply(userId, untilMs, nowMs));
  const stream = await deps.store.getStream(queryId);
  return { ok: true, message: `🔕 Silenced ${inlineCode(stream?.name || queryId)} for ${formatDuration(durationMs)}, until ${slackDate(untilMs)}. \`/stream unmute\` ends it early.` };
}

export async function unsilenceStream(client: webApi.WebClient, deps: SlackDeps, queryId: string, userId: string): Promise<ActionOutcome> {
  const had = await deps.store.silences.unsilence(queryId);
  const stream = await deps.store.getStream(queryId);
  const label = inlineCode(stream?.name || queryId);
  if (!had) return { ok: false, message: `${label} is not silenced.` };
  const nowMs = nowOf(deps);
  const open = await openIncidentsOf(deps, queryId);
  // Every open incident goes back to notify: one already shown loses its 🔕, one the silence kept
  // quiet (no message yet) is posted now.
  const held = open.filter((record) => !record.slack);
  for (const record of open) {
    await deps.store.silences.unhold(record.id);
    if (deps.alerts) await deps.alerts.refresh(record.id, 'unmuted', nowMs);
    else if (record.slack) await refreshQuietly(client, deps, record, renderSilenceReply(userId, null, nowMs));
  }
  const shown = open.length - held.length;
  const parts: string[] = [];
  if (held.length > 0 && deps.alerts) parts.push(`${held.length} open incident${held.length === 1 ? '' : 's'} that opened while silenced will alert now`);
  if (shown > 0) parts.push(`${shown} open incident${shown === 1 ? ' is' : 's are'} alerting again`);
  return { ok: true, message: `🔔 ${label} is no longer silenced${parts.length > 0 ? `; ${parts.join(', and ')}` : ''}.` };
}
