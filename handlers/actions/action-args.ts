/** Shared helpers for block_actions listeners. */
import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { fallbackText, sectionBlock } from '../../src/slack/limits.js';

export type BlockActionArgs = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;

/** Ephemeral answer to the person who clicked; never replaces the alert, never posts in the channel. */
export async function tellClicker(args: BlockActionArgs, message: string): Promise<void> {
  const text = fallbackText(message);
  if (args.body.response_url || args.respond) {
    await args.respond({ response_type: 'ephemeral', replace_original: false, text, blocks: [sectionBlock(message)] });
    return;
  }
  const channel = args.body.channel?.id ?? args.body.container?.channel_id;
  if (channel) await args.client.chat.postEphemeral({ channel, user: args.body.user.id, text, blocks: [sectionBlock(message)] });
}
