/** app_home_opened: publishes the person's Home (open incidents, silences, watches). */
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { SlackDeps } from '../../src/slack/deps.js';
import { publishHomeOrSayWhy } from '../../src/slack/operations/publish-home.js';

export type AppHomeOpenedArgs = SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs;

export async function appHomeOpened(args: AppHomeOpenedArgs, deps: SlackDeps): Promise<void> {
  if (args.event.tab !== 'home') return;
  await publishHomeOrSayWhy(args.client, deps, args.event.user);
}
