/** The Unsilence button on a silenced alert. */
import type { SlackDeps } from '../../src/slack/deps.js';
import { unsilenceStream } from '../../src/slack/operations/incident-actions.js';
import { scopeRefusal, tellClicker, type BlockActionArgs } from './action-args.js';

export async function unsilenceAction(args: BlockActionArgs, deps: SlackDeps): Promise<void> {
  await args.ack();
  const incidentId = args.action.type === 'button' ? args.action.value : undefined;
  if (!incidentId) return tellClicker(args, 'This button is out of date; nothing was changed.');
  const permission = await deps.permissions.check('unmute', args.body.user.id, args.client);
  if (!permission.allowed) return tellClicker(args, permission.reason);
  const record = await deps.store.incidents.get(incidentId);
  if (!record) return tellClicker(args, 'This incident is gone (it expired from the store).');
  const refused = await scopeRefusal(args, deps, record.queryId, 'unsilence');
  if (refused) return tellClicker(args, refused);
  const outcome = await unsilenceStream(args.client, deps, record.queryId, args.body.user.id, record);
  // Always said: a stale button (the incident resolved, or the silence ended) changes no alert in view.
  await tellClicker(args, outcome.message);
}
