/**
 * `/stream mute <query> [#channel] <duration>` and `/stream unmute <query> [#channel]` (channel scope:
 * channel-scope.ts). The change is told where the stream alerts (announce-change.ts).
 */
import { CallerChannels, lookupForAction } from '../../../src/slack/operations/channel-scope.js';
import { silenceStream, unsilenceStream } from '../../../src/slack/operations/incident-actions.js';
import { userMention } from '../../../src/slack/mrkdwn.js';
import { announceChange } from '../announce-change.js';
import { replyPrivately, scopeOf, type CommandContext } from '../command-context.js';

export async function muteSubcommand(ctx: CommandContext, query: string | null, durationMs: number, durationText = '2h'): Promise<void> {
  const permission = await ctx.deps.permissions.check('mute', ctx.userId, ctx.client);
  if (!permission.allowed) return replyPrivately(ctx, permission.reason);
  const channels = new CallerChannels(scopeOf(ctx));
  const found = await lookupForAction(scopeOf(ctx), query, 'mute', (name, channel) => `${ctx.command} mute ${name} ${channel} ${durationText}`, channels);
  if (!found.ok) return replyPrivately(ctx, found.message);
  const outcome = await silenceStream(ctx.client, ctx.deps, found.stream.queryId, durationMs, ctx.userId);
  if (!outcome.ok) return replyPrivately(ctx, outcome.message);
  // A stream that alerts nowhere: this channel, as before.
  await announceChange(ctx, channels, [found.channel ?? ctx.channelId], `${userMention(ctx.userId)}: ${outcome.message}`);
}

export async function unmuteSubcommand(ctx: CommandContext, query: string | null): Promise<void> {
  const permission = await ctx.deps.permissions.check('unmute', ctx.userId, ctx.client);
  if (!permission.allowed) return replyPrivately(ctx, permission.reason);
  const channels = new CallerChannels(scopeOf(ctx));
  const found = await lookupForAction(scopeOf(ctx), query, 'unmute', (name, channel) => `${ctx.command} unmute ${name} ${channel}`, channels);
  if (!found.ok) return replyPrivately(ctx, found.message);
  const outcome = await unsilenceStream(ctx.client, ctx.deps, found.stream.queryId, ctx.userId);
  if (!outcome.ok) return replyPrivately(ctx, outcome.message);
  await announceChange(ctx, channels, [found.channel ?? ctx.channelId], `${userMention(ctx.userId)}: ${outcome.message}`);
}
