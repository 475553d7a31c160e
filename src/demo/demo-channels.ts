/**
 * The demo workspace's channels: where the demo routes incidents, plus #general so the chat view
 * looks like a workspace. Ids look like Slack's because the local Slack checks them.
 */
import type { WorkspaceChannel } from '../standins/slack/index.js';

export const DEMO_CHANNELS: WorkspaceChannel[] = [
  { id: 'C0DATAALRT', name: 'data-alerts', purpose: 'Streaming incidents from StreamDoctor' },
  { id: 'C0STRMORDR', name: 'stream-orders', purpose: 'The orders pipeline: orders_enrichment and friends' },
  { id: 'C0GENERAL1', name: 'general', purpose: 'Everything else' },
];
