/** `/stream digest`: the channel's digest, now, posted by the digest worker (the one poster). */
import { replyPrivately, type CommandContext } from '../command-context.js';

export async function digestSubcommand(ctx: CommandContext): Promise<void> {
  if (!ctx.deps.digest) {
    return replyPrivately(ctx, 'This StreamDoctor cannot post a digest on request (no job queue is connected); the daily digest still comes at its time.');
  }
  await ctx.deps.digest.requestNow(ctx.channelId);
  return replyPrivately(ctx, '📊 The digest is on its way.');
}
