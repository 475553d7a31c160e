/** Modal (view) listeners. */
import type { App, ViewSubmitAction } from '@slack/bolt';
import { VIEW_IDS } from '../../src/slack/action-ids.js';
import type { SlackDeps } from '../../src/slack/deps.js';
import { guardListener } from '../../src/slack/listener-guard.js';
import { shareAdvice, type ViewSubmitArgs } from './share-advice.js';

export function register(app: App, deps: SlackDeps): void {
  app.view<ViewSubmitAction>({ callback_id: VIEW_IDS.adviceModal, type: 'view_submission' }, guardListener<ViewSubmitArgs>('view:advice_modal', deps.logger, (args) => shareAdvice(args, deps)));
}
