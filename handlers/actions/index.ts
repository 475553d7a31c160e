/** Button and select listeners, keyed by the action ids the renderers put on elements. */
import type { App } from '@slack/bolt';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import type { SlackDeps } from '../../src/slack/deps.js';
import { guardListener } from '../../src/slack/listener-guard.js';
import { acknowledgeAction } from './acknowledge.js';
import type { BlockActionArgs } from './action-args.js';
import { homeRefreshAction } from './home-refresh.js';
import { homeUnsilenceAction } from './home-unsilence.js';
import { openDatabricksAction } from './open-databricks.js';
import { silenceAction } from './silence.js';
import { tuningAdviceAction } from './tuning-advice.js';
import { unacknowledgeAction } from './unacknowledge.js';
import { unsilenceAction } from './unsilence.js';

export function register(app: App, deps: SlackDeps): void {
  const on = (actionId: string, listener: (args: BlockActionArgs, deps: SlackDeps) => Promise<void>) =>
    app.action<import('@slack/bolt').BlockAction>({ action_id: actionId }, guardListener<BlockActionArgs>(`action:${actionId}`, deps.logger, (args) => listener(args, deps)));
  on(ACTION_IDS.acknowledge, acknowledgeAction);
  on(ACTION_IDS.unacknowledge, unacknowledgeAction);
  on(ACTION_IDS.silence, silenceAction);
  on(ACTION_IDS.unsilence, unsilenceAction);
  on(ACTION_IDS.tuningAdvice, tuningAdviceAction);
  on(ACTION_IDS.openDatabricks, (args) => openDatabricksAction(args));
  on(ACTION_IDS.homeUnsilence, homeUnsilenceAction);
  on(ACTION_IDS.homeRefresh, homeRefreshAction);
}
