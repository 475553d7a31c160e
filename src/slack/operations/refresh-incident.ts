/**
 * Re-renders an incident's alert in place (chat.update) after a person changed it (ack, silence),
 * and adds one line to its thread. A missing Slack message is not an error: the notify job posts
 * it later with the new state.
 */
import type { webApi } from '@slack/bolt';
import type { IncidentRecord } from '../../store/types.js';
import type { SlackDeps } from '../deps.js';
import { nowOf } from '../deps.js';
import { renderIncidentMessage } from '../render/incident-message.js';
import type { RenderedMessage } from '../render/types.js';
import { databricksUrlFor } from './databricks-url.js';

/** Other members of the storm message this incident leads, so a re-render keeps the list. */
async function groupedWith(deps: SlackDeps, record: IncidentRecord): Promise<IncidentRecord[]> {
  if (!record.groupId || !record.slack) return [];
  const group = await deps.store.storms.get(record.slack.channel, record.groupId);
  if (!group) return [];
  const members = await deps.store.incidents.getMany(group.incidentIds);
  return members.filter((member) => member.id !== record.id);
}

export async function renderForRecord(deps: SlackDeps, record: IncidentRecord): Promise<RenderedMessage> {
  const [stream, silence, grouped] = await Promise.all([
    deps.store.getStream(record.queryId),
    deps.store.silences.get(record.queryId),
    groupedWith(deps, record),
  ]);
  const nowMs = nowOf(deps);
  return renderIncidentMessage(record, {
    ...(grouped.length > 0 ? { grouped } : {}),
    nowMs,
    queryName: stream?.name ?? record.queryName,
    databricksUrl: databricksUrlFor(stream),
    silencedUntilMs: silence && silence.untilMs > nowMs ? silence.untilMs : null,
    silencedBy: silence?.byUser ?? null,
  });
}

export async function refreshIncidentMessage(
  client: webApi.WebClient,
  deps: SlackDeps,
  record: IncidentRecord,
  threadLine?: RenderedMessage,
): Promise<boolean> {
  if (!record.slack) return false;
  const message = await renderForRecord(deps, record);
  await client.chat.update({ channel: record.slack.channel, ts: record.slack.ts, text: message.text, blocks: message.blocks });
  await deps.store.incidents.markNotified(record.id, record.version);
  if (threadLine) {
    await client.chat.postMessage({
      channel: record.slack.channel,
      thread_ts: record.slack.ts,
      text: threadLine.text,
      blocks: threadLine.blocks,
      unfurl_links: false,
      unfurl_media: false,
    });
  }
  return true;
}
