/**
 * Unsilence from the App Home list of silenced streams; the Home is re-published after. The Home may
 * be hours old, so the channel scope is judged again at the click.
 */
import type { SlackDeps } from '../../src/slack/deps.js';
import { unsilenceStream } from '../../src/slack/operations/incident-actions.js';
import { publishHome } from '../../src/slack/operations/publish-home.js';
import { scopeRefusal, type BlockActionArgs } from './action-args.js';

export async function homeUnsilenceAction(args: BlockActionArgs, deps: SlackDeps): Promise<void> {
  await args.ack();
  const queryId = args.action.type === 'button' ? args.action.value : undefined;
  const userId = args.body.user.id;
  const permission = await deps.permissions.check('unmute', userId, args.client);
  const refused = queryId && permission.allowed ? await scopeRefusal(args, deps, queryId, 'unsilence') : null;
  const notice = !queryId
    ? 'That button is out of date.'
    : !permission.allowed
      ? permission.reason
      : (refused ?? (await unsilenceStream(args.client, deps, queryId, userId)).message);
  await publishHome(args.client, deps, userId, notice);
}
