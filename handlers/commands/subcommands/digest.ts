/** `/stream digest`: the channel's digest, now, posted by the digest worker (the one poster). */
import { formatDuration } from '../../../src/util/duration.js';
import { checkChannel } from '../../../src/slack/operations/channel-check.js';
import { streamsRoutedTo } from '../../../src/slack/operations/stream-lookup.js';
import { replyPrivately, type CommandContext } from '../command-context.js';

/**
 * One on-demand digest per channel per 5 minutes. A digest is a public message to everyone in the
 * channel, and what it says changes only as incidents open and resolve: more often floods the channel
 * (anyone may run the command), while 5 minutes is a short wait for someone who just acted on an incident.
 */
export const DIGEST_NOW_EVERY_MS = 5 * 60_000;

export async function digestSubcommand(ctx: CommandContext): Promise<void> {
  if (!ctx.deps.digest) {
    return replyPrivately(ctx, 'This StreamDoctor cannot post a digest on request (no job queue is connected); the daily digest still comes at its time.');
  }
  const permission = await ctx.deps.permissions.check('digest', ctx.userId, ctx.client);
  if (!permission.allowed) return replyPrivately(ctx, permission.reason);
  // The worker posts later, where a refusal is only logged: ask Slack now, while someone reads the answer.
  const check = await checkChannel(ctx.client, ctx.channelId, ctx.deps.logger);
  if (check.status === 'not_found' || check.status === 'not_member') {
    const why = check.status === 'not_member' ? 'is not a member of this channel' : `cannot post in this channel (\`${check.error}\`)`;
    return replyPrivately(ctx, `StreamDoctor ${why}, so no digest can be posted here. Invite the app (\`/invite @StreamDoctor\`) and run \`${ctx.command} digest\` again.`);
  }
  // A digest of nothing is a public message with nothing in it: say so to the one who asked.
  if ((await streamsRoutedTo(ctx.deps, ctx.channelId, ctx.channelName)).length === 0) {
    return replyPrivately(ctx, `No stream alerts in this channel, so its digest would be empty. \`${ctx.command} watch <query|job <id>|pipeline <id>>\` routes one here.`);
  }
  // Atomic across web processes (SET NX PX): two people asking at once get one digest.
  const marker = `digest-now:${ctx.channelId}`;
  if (!(await ctx.deps.store.markers.take(marker, ctx.userId, DIGEST_NOW_EVERY_MS))) {
    const waitMs = Math.ceil((await ctx.deps.store.markers.remainingMs(marker)) / 1000) * 1000;
    return replyPrivately(
      ctx,
      `A digest of this channel was asked for less than ${formatDuration(DIGEST_NOW_EVERY_MS)} ago (one every ${formatDuration(DIGEST_NOW_EVERY_MS)}: each is a message to the whole channel). The next can be asked for in ${formatDuration(Math.max(1000, waitMs))}.`,
    );
  }
  try {
    await ctx.deps.digest.requestNow(ctx.channelId);
  } catch (error) {
    // Not queued: the next request may go ahead.
    await ctx.deps.store.markers.release(marker).catch(() => undefined);
    throw error;
  }
  return replyPrivately(ctx, '📊 The digest is on its way.');
}
