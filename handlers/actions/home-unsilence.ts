/**
 * Unsilence from the App Home list of silenced streams; the Home is re-published after. The Home may
 * be hours old, so the channel scope is judged again at the click. When the store cannot be reached,
 * the Home says so (it has no other way to answer).
 */
import type { SlackDeps } from '../../src/slack/deps.js';
import { unsilenceStream } from '../../src/slack/operations/incident-actions.js';
import { publishHome, sayWhyOnHome } from '../../src/slack/operations/publish-home.js';
import { scopeRefusal, type BlockActionArgs } from './action-args.js';

export async function homeUnsilenceAction(args: BlockActionArgs, deps: SlackDeps): Promise<void> {
  await args.ack();
  const userId = args.body.user.id;
  try {
    await publishHome(args.client, deps, userId, await unsilenceNotice(args, deps, userId));
  } catch (error) {
    await sayWhyOnHome(args.client, userId, error);
    throw error;
  }
}

/** What the click did, for the line under the Home's title. */
async function unsilenceNotice(args: BlockActionArgs, deps: SlackDeps, userId: string): Promise<string> {
  const queryId = args.action.type === 'button' ? args.action.value : undefined;
  if (!queryId) return 'That button is out of date.';
  const permission = await deps.permissions.check('unmute', userId, args.client);
  if (!permission.allowed) return permission.reason;
  return (await scopeRefusal(args, deps, queryId, 'unsilence')) ?? (await unsilenceStream(args.client, deps, queryId, userId)).message;
}
