/** Open in Databricks is a URL button: Slack opens the link, but still sends the click, which must be acked. */
import type { BlockActionArgs } from './action-args.js';

export async function openDatabricksAction(args: BlockActionArgs): Promise<void> {
  await args.ack();
}
