/**
 * The Tuning advice button: opens a modal with the full advice. The trigger_id lives 3 s, so the
 * modal opens right after one store read; if that fails the advice comes as an ephemeral message.
 */
import { adviceOf, nowOf, type SlackDeps } from '../../src/slack/deps.js';
import { databricksUrlFor } from '../../src/slack/operations/databricks-url.js';
import { renderAdviceMessage, renderAdviceModal } from '../../src/slack/render/advice.js';
import { tellClicker, type BlockActionArgs } from './action-args.js';

export async function tuningAdviceAction(args: BlockActionArgs, deps: SlackDeps): Promise<void> {
  await args.ack();
  const incidentId = args.action.type === 'button' ? args.action.value : undefined;
  const stored = incidentId ? await deps.store.incidents.get(incidentId) : null;
  if (!stored) return tellClicker(args, 'This incident is gone (it expired from the store), so its advice is too. `/stream tune <query>` shows the latest.');
  const stream = await deps.store.streams.get(stored.queryId);
  // Cached job cluster specs, bounded wait: the trigger_id still has most of its 3 s.
  const record = await adviceOf(deps, stored, stream);
  // The latest figures beside the incident's, which date from its last update.
  const options = { nowMs: nowOf(deps), queryName: stream?.name ?? record.queryName, databricksUrl: databricksUrlFor(stream), live: stream?.snapshot ?? null };
  try {
    const view = renderAdviceModal(record, { ...options, shareable: record.slack != null });
    // The channel clicked in: "Share in thread" answers after the modal closed, ephemerally there.
    const channel = args.body.channel?.id;
    await args.client.views.open({ trigger_id: args.body.trigger_id, view: channel ? { ...view, private_metadata: JSON.stringify({ incidentId: record.id, channel }) } : view });
  } catch (error) {
    deps.logger.warn({ err: error, incidentId: record.id }, 'could not open the advice modal; answering ephemerally');
    const message = renderAdviceMessage(record, options);
    await args.respond({ response_type: 'ephemeral', replace_original: false, text: message.text, blocks: message.blocks });
  }
}
