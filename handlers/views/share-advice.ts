/** Submitting the advice modal ("Share in thread") posts the advice in the alert's thread. */
import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { adviceOf, nowOf, type SlackDeps } from '../../src/slack/deps.js';
import { userMention } from '../../src/slack/mrkdwn.js';
import { contextBlock, plainText, sectionBlock } from '../../src/slack/limits.js';
import { databricksUrlFor } from '../../src/slack/operations/databricks-url.js';
import { renderAdviceMessage } from '../../src/slack/render/advice.js';

export type ViewSubmitArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

export async function shareAdvice(args: ViewSubmitArgs, deps: SlackDeps): Promise<void> {
  let incidentId: string | undefined;
  try {
    incidentId = (JSON.parse(args.view.private_metadata || '{}') as { incidentId?: string }).incidentId;
  } catch {
    incidentId = undefined;
  }
  const record = incidentId ? await deps.store.incidents.get(incidentId) : null;
  if (!record?.slack) {
    await args.ack({
      response_action: 'update',
      view: { type: 'modal', title: plainText('Tuning advice', 24), close: plainText('Close', 24), blocks: [sectionBlock('This incident or its alert is gone, so there is no thread to share the advice in.')] },
    });
    return;
  }
  await args.ack();
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
}
