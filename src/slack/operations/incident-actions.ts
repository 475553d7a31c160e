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

export async function acknowledgeIncident(client: webApi.WebClient, deps: SlackDeps, incidentId: string, userId: string): Promise<ActionOutcome> {
  const current = await deps.store.getIncident(incidentId);
  if (!current) return { ok: false, message: 'This incident is gone (it expired from the store). Nothing to acknowledge.' };
  if (current.state === 'resolved') return { ok: false, message: `This incident on ${name(current)} is already resolved.` };
  if (current.acknowledgedBy) {
    const at = current.acknowledgedAt != null ? ` ${slackDate(current.acknowledgedAt)}` : '';
    return { ok: false, message: `${userMention(current.acknowledgedBy)} already acknowledged this incident${at}.` };
  }
  const nowMs = nowOf(deps);
  const updated = await deps.store.incidents.acknowledge(incidentId, userId, nowMs);
  if (!updated) return { ok: false, message: 'This incident is gone. Nothing to acknowledge.' };
  await refreshQuietly(client, deps, updated, renderAckReply(userId, nowMs, true));
  return { ok: true, message: `You acknowledged the incident on ${name(updated)}.` };
}

export async function unacknowledgeIncident(client: webApi.WebClient, deps: SlackDeps, incidentId: string, userId: string): Promise<ActionOutcome> {
  const current = await deps.store.getIncident(incidentId);
  if (!current) return { ok: false, message: 'This incident is gone (it expired from the store).' };
  if (current.state === 'resolved') return { ok: false, message: `This incident on ${name(current)} is already resolved.` };
  if (!current.acknowledgedBy) return { ok: false, message: 'Nobody has acknowledged this incident.' };
  const updated = await deps.store.incidents.unacknowledge(incidentId);
  if (!updated) return { ok: false, message: 'This incident is gone.' };
  await refreshQuietly(client, deps, updated, renderAckReply(userId, nowOf(deps), false));
  return { ok: true, message: `You removed the acknowledgement on ${name(updated)}.` };
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
  const open = await openIncidentsOf(deps, queryId);
  for (const record of open.slice(0, 20)) await refreshQuietly(client, deps, record, renderSilenceReply(userId, null, nowOf(deps)));
  return { ok: true, message: `🔔 ${label} is no longer silenced${open.length > 0 ? `; ${open.length} open incident${open.length === 1 ? '' : 's'} will alert again` : ''}.` };
}
