/** `/stream digest`: the channel's digest, now. */
import { postDigest } from '../../../src/slack/operations/post-digest.js';
import { replyPrivately, type CommandContext } from '../command-context.js';

export async function digestSubcommand(ctx: CommandContext): Promise<void> {
  if (ctx.deps.digest) {
    const outcome = await ctx.deps.digest.requestNow(ctx.channelId);
    return replyPrivately(ctx, outcome === 'queued' ? '📊 The digest is on its way.' : '📊 Digest posted.');
  }
  const result = await postDigest(ctx.client, ctx.deps, ctx.channelId);
  const chart = result.chart === 'uploaded' ? ' with the chart in its thread' : result.chart === 'failed' ? ' (the chart could not be drawn; see the logs)' : '';
  await replyPrivately(ctx, `📊 Digest posted${chart}: ${result.streams} stream${result.streams === 1 ? '' : 's'}, ${result.incidents} incident${result.incidents === 1 ? '' : 's'} in 24 h.`);
}
