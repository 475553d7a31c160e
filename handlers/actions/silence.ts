/** The Silence ▾ select on an alert (30 m, 2 h, 8 h, 24 h). */
import { SILENCE_CHOICES } from '../../src/slack/action-ids.js';
import type { SlackDeps } from '../../src/slack/deps.js';
import { silenceStream } from '../../src/slack/operations/incident-actions.js';
import { incidentIdFromBlockId } from '../../src/slack/render/incident-message.js';
import { scopeRefusal, tellClicker, type BlockActionArgs } from './action-args.js';

export async function silenceAction(args: BlockActionArgs, deps: SlackDeps): Promise<void> {
  await args.ack();
  const action = args.action;
  const picked = action.type === 'static_select' ? Number(action.selected_option?.value) : Number.NaN;
  const choice = SILENCE_CHOICES.find((candidate) => candidate.ms === picked);
  const incidentId = incidentIdFromBlockId(action.block_id);
  if (!choice || !incidentId) return tellClicker(args, 'This menu is out of date; nothing was silenced.');
  const permission = await deps.permissions.check('mute', args.body.user.id, args.client);
  if (!permission.allowed) return tellClicker(args, permission.reason);
  const record = await deps.store.incidents.get(incidentId);
  if (!record) return tellClicker(args, 'This incident is gone (it expired from the store); nothing was silenced.');
  const refused = await scopeRefusal(args, deps, record.queryId, 'silence');
  if (refused) return tellClicker(args, refused);
  if (record.state === 'resolved') return tellClicker(args, 'This incident is already resolved; silence the stream with `/stream mute <query> <duration>` if you still want to.');
  const outcome = await silenceStream(args.client, deps, record.queryId, choice.ms, args.body.user.id);
  await tellClicker(args, outcome.message);
}
