/**
 * Renders an incident's alert as notify does (one renderer: src/slack/render/alert.ts), from the
 * store's current state, for tests that post or inspect an alert without running notify. The bot
 * itself never renders an alert outside notify: the Slack app asks the notify worker for a refresh
 * (SlackDeps.alerts), which holds the message lock and the exactly-once claim.
 */
import type { IncidentRecord } from '../../../src/store/types.js';
import type { SlackDeps } from '../../../src/slack/deps.js';
import { adviceOf, nowOf } from '../../../src/slack/deps.js';
import { renderAlert } from '../../../src/slack/render/alert.js';
import type { RenderedMessage } from '../../../src/slack/render/types.js';

/** Other members of the storm message this incident leads, so a render keeps the list. */
async function groupedWith(deps: SlackDeps, record: IncidentRecord): Promise<IncidentRecord[]> {
  if (!record.groupId || !record.slack) return [];
  const group = await deps.store.storms.get(record.slack.channel, record.groupId);
  if (!group) return [];
  const members = await deps.store.incidents.getMany(group.incidentIds);
  return members.filter((member) => member.id !== record.id);
}

export async function renderForRecord(deps: SlackDeps, record: IncidentRecord): Promise<RenderedMessage> {
  const [stream, silence, grouped] = await Promise.all([
    deps.store.streams.get(record.queryId),
    deps.store.silences.get(record.queryId),
    groupedWith(deps, record),
  ]);
  return renderAlert(await adviceOf(deps, record, stream), { nowMs: nowOf(deps), stream, silence, grouped });
}
