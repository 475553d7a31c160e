/** What every `/stream` subcommand gets: who, where, how to answer, and the app's collaborators. */
import type { RespondArguments, RespondFn, webApi } from '@slack/bolt';
import type { SlackDeps } from '../../src/slack/deps.js';
import type { CallerScope } from '../../src/slack/operations/channel-scope.js';
import type { RenderedMessage } from '../../src/slack/render/types.js';
import { fallbackText, sectionBlock } from '../../src/slack/limits.js';

export interface CommandContext {
  userId: string;
  channelId: string;
  /** Channel name as Slack sent it (no #), for routes the watch file wrote by name. */
  channelName?: string;
  client: webApi.WebClient;
  respond: RespondFn;
  deps: SlackDeps;
  /** Bot token from authorize, for downloading shared files. */
  botToken?: string;
  /** The slash command as typed, e.g. `/stream`. */
  command: string;
}

/** Who asks from where, for the channel-scope checks. */
export function scopeOf(ctx: CommandContext): CallerScope {
  return { client: ctx.client, deps: ctx.deps, userId: ctx.userId, channelId: ctx.channelId, channelName: ctx.channelName };
}

/** An answer only the person sees. */
export async function replyPrivately(ctx: CommandContext, message: RenderedMessage | string): Promise<void> {
  await ctx.respond(toArgs(message, 'ephemeral'));
}

/** An answer the channel sees (changes to alerting others should know about). */
export async function replyInChannel(ctx: CommandContext, message: RenderedMessage | string): Promise<void> {
  await ctx.respond(toArgs(message, 'in_channel'));
}

function toArgs(message: RenderedMessage | string, responseType: 'ephemeral' | 'in_channel'): RespondArguments {
  if (typeof message === 'string') {
    return { response_type: responseType, replace_original: false, text: fallbackText(message), blocks: [sectionBlock(message)] };
  }
  return { response_type: responseType, replace_original: false, text: message.text, blocks: message.blocks };
}
