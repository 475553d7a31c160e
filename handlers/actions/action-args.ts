/** Shared helpers for block_actions listeners. */
import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { SlackDeps } from '../../src/slack/deps.js';
import { fallbackText, sectionBlock } from '../../src/slack/limits.js';
import { mayActOn } from '../../src/slack/operations/channel-scope.js';

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

/**
 * Why the clicker may not `verb` the stream `queryId`, or null when they may: the commands' channel
 * scope, judged now (the stream may have moved since the alert or Home was drawn). The channel is the
 * one clicked in; the App Home has none, so there only membership counts.
 */
export async function scopeRefusal(args: BlockActionArgs, deps: SlackDeps, queryId: string, verb: string): Promise<string | null> {
  const channel = args.body.channel ?? (args.body.container?.channel_id ? { id: args.body.container.channel_id as string } : undefined);
  const scope = { client: args.client, deps, userId: args.body.user.id, channelId: channel?.id ?? '', channelName: (channel as { name?: string } | undefined)?.name };
  const stream = (await deps.store.streams.get(queryId)) ?? { queryId, name: null };
  const decision = await mayActOn(scope, stream, verb);
  return decision.ok ? null : decision.message;
}
