/** Refresh on the App Home. */
import type { SlackDeps } from '../../src/slack/deps.js';
import { publishHomeOrSayWhy } from '../../src/slack/operations/publish-home.js';
import type { BlockActionArgs } from './action-args.js';

export async function homeRefreshAction(args: BlockActionArgs, deps: SlackDeps): Promise<void> {
  await args.ack();
  await publishHomeOrSayWhy(args.client, deps, args.body.user.id);
}
