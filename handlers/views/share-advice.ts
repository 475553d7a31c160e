/**
 * Submitting the advice modal ("Share in thread") posts the advice in the alert's thread. Slack
 * gives a view submission 3 s: the submit is acked before any I/O (a slow store would otherwise fail
 * it with a connection error and lose the advice), and what fails after is told ephemerally.
 */
import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { adviceOf, nowOf, type SlackDeps } from '../../src/slack/deps.js';
import { userMention } from '../../src/slack/mrkdwn.js';
import { contextBlock, fallbackText, plainText, sectionBlock } from '../../src/slack/limits.js';
import { userFacingError } from '../../src/slack/listener-guard.js';
import { databricksUrlFor } from '../../src/slack/operations/databricks-url.js';
import { renderAdviceMessage } from '../../src/slack/render/advice.js';

export type ViewSubmitArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

/** What the Tuning advice button put in the modal: the incident, and the channel clicked in (newer modals). */
function metadataOf(args: ViewSubmitArgs): { incidentId?: string; channel?: string } {
  try {
    const parsed = JSON.parse(args.view.private_metadata || '{}') as { incidentId?: unknown; channel?: unknown };
    return { ...(typeof parsed.incidentId === 'string' ? { incidentId: parsed.incidentId } : {}), ...(typeof parsed.channel === 'string' ? { channel: parsed.channel } : {}) };
  } catch {
    return {};
  }
}

/** The modal is closed by now: an ephemeral in the channel is the one place left to say what happened. */
async function tellSubmitter(args: ViewSubmitArgs, deps: SlackDeps, channel: string | null, message: string): Promise<void> {
  if (!channel) {
    deps.logger.warn({ user: args.body.user.id }, `could not tell the user, no channel known: ${message}`);
    return;
  }
  try {
    await args.client.chat.postEphemeral({ channel, user: args.body.user.id, text: fallbackText(message), blocks: [sectionBlock(message)] });
  } catch (error) {
    deps.logger.warn({ err: error, channel, user: args.body.user.id }, 'could not tell the user why the advice was not shared');
  }
}

export async function shareAdvice(args: ViewSubmitArgs, deps: SlackDeps): Promise<void> {
  const { incidentId, channel: clickedIn } = metadataOf(args);
  if (!incidentId) {
    // Decided without I/O, so the modal can still say it.
    await args.ack({
      response_action: 'update',
      view: { type: 'modal', title: plainText('Tuning advice', 24), close: plainText('Close', 24), blocks: [sectionBlock('This incident or its alert is gone, so there is no thread to share the advice in.')] },
    });
    return;
  }
  await args.ack();
  let channel = clickedIn ?? null;
  try {
    const record = await deps.store.incidents.get(incidentId);
    if (!record?.slack) return tellSubmitter(args, deps, channel, 'This incident or its alert is gone, so there is no thread to share the advice in; nothing was posted.');
    channel ??= record.slack.channel;
    const stream = await deps.store.streams.get(record.queryId);
    const message = renderAdviceMessage(await adviceOf(deps, record, stream), { nowMs: nowOf(deps), queryName: stream?.name ?? record.queryName, databricksUrl: databricksUrlFor(stream) });
    await args.client.chat.postMessage({
      channel: record.slack.channel,
      thread_ts: record.slack.ts,
      text: message.text,
      blocks: [...message.blocks.slice(0, 48), contextBlock([`Shared by ${userMention(args.body.user.id)}`])],
      unfurl_links: false,
      unfurl_media: false,
    });
  } catch (error) {
    deps.logger.warn({ err: error, incidentId }, 'could not share the advice in the thread');
    await tellSubmitter(args, deps, channel, `The advice was not shared in the thread. ${userFacingError(error)}`);
  }
}
