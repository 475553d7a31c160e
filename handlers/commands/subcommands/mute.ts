/** `/stream mute <query> <duration>` and `/stream unmute <query>`. */
import { lookupStream } from '../../../src/slack/operations/stream-lookup.js';
import { silenceStream, unsilenceStream } from '../../../src/slack/operations/incident-actions.js';
import { userMention } from '../../../src/slack/mrkdwn.js';
import { replyInChannel, replyPrivately, type CommandContext } from '../command-context.js';

export async function muteSubcommand(ctx: CommandContext, query: string | null, durationMs: number): Promise<void> {
  const permission = await ctx.deps.permissions.check('mute', ctx.userId);
  if (!permission.allowed) return replyPrivately(ctx, permission.reason);
  const found = await lookupStream(ctx.deps, query, ctx.channelId, 'mute');
  if (!found.ok) return replyPrivately(ctx, found.message);
  const outcome = await silenceStream(ctx.client, ctx.deps, found.stream.queryId, durationMs, ctx.userId);
  await replyInChannel(ctx, `${userMention(ctx.userId)}: ${outcome.message}`);
}

export async function unmuteSubcommand(ctx: CommandContext, query: string | null): Promise<void> {
  const permission = await ctx.deps.permissions.check('unmute', ctx.userId);
  if (!permission.allowed) return replyPrivately(ctx, permission.reason);
  const found = await lookupStream(ctx.deps, query, ctx.channelId, 'unmute');
  if (!found.ok) return replyPrivately(ctx, found.message);
  const outcome = await unsilenceStream(ctx.client, ctx.deps, found.stream.queryId, ctx.userId);
  if (!outcome.ok) return replyPrivately(ctx, outcome.message);
  await replyInChannel(ctx, `${userMention(ctx.userId)}: ${outcome.message}`);
}
