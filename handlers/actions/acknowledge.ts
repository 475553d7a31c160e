/** The Acknowledge button on an alert. */
import type { SlackDeps } from '../../src/slack/deps.js';
import { acknowledgeIncident } from '../../src/slack/operations/incident-actions.js';
import { scopeRefusal, tellClicker, type BlockActionArgs } from './action-args.js';

export async function acknowledgeAction(args: BlockActionArgs, deps: SlackDeps): Promise<void> {
  await args.ack();
  const action = args.action;
  const incidentId = action.type === 'button' ? action.value : undefined;
  if (!incidentId) return tellClicker(args, 'This button is out of date; nothing was changed.');
  const permission = await deps.permissions.check('ack', args.body.user.id, args.client);
  if (!permission.allowed) return tellClicker(args, permission.reason);
  const record = await deps.store.incidents.get(incidentId);
  if (!record) return tellClicker(args, 'This incident is gone (it expired from the store). Nothing to acknowledge.');
  const refused = await scopeRefusal(args, deps, record.queryId, 'acknowledge');
  if (refused) return tellClicker(args, refused);
  const outcome = await acknowledgeIncident(args.client, deps, incidentId, args.body.user.id);
  // Success shows in the alert itself (who and when) and its thread; only refusals need a word.
  if (!outcome.ok) await tellClicker(args, outcome.message);
}
