/** `/stream tune <query>`: the full advice for the stream's latest incident, or why it needs none. */
import { adviceOf, nowOf } from '../../../src/slack/deps.js';
import { formatBatchVsTrigger, formatSeconds } from '../../../src/slack/format.js';
import { inlineCode } from '../../../src/slack/mrkdwn.js';
import { databricksUrlFor } from '../../../src/slack/operations/databricks-url.js';
import { lookupForReading } from '../../../src/slack/operations/channel-scope.js';
import { renderAdviceMessage } from '../../../src/slack/render/advice.js';
import { replyPrivately, scopeOf, type CommandContext } from '../command-context.js';

export async function tuneSubcommand(ctx: CommandContext, query: string | null): Promise<void> {
  const found = await lookupForReading(scopeOf(ctx), query, 'tune');
  if (!found.ok) return replyPrivately(ctx, found.message);
  const { stream } = found;
  const incidents = await ctx.deps.store.incidents.listForQuery(stream.queryId);
  // Open incidents first (the store sorts them so), newest first within each group.
  const latest = incidents.find((record) => record.incident.advice.length > 0) ?? incidents[0];
  if (!latest) {
    const snapshot = stream.snapshot;
    const numbers = snapshot
      ? ` Time behind ${formatSeconds(snapshot.timeBehindSec)}, batch ${formatBatchVsTrigger(snapshot.batchDurationMs, snapshot.triggerMs)}.`
      : ' No progress has been read for it yet.';
    return replyPrivately(ctx, `🟢 ${inlineCode(stream.name || stream.queryId)} has had no incidents, so there is nothing to tune.${numbers}`);
  }
  await replyPrivately(
    ctx,
    renderAdviceMessage(await adviceOf(ctx.deps, latest, stream), {
      nowMs: nowOf(ctx.deps),
      queryName: stream.name,
      databricksUrl: databricksUrlFor(stream),
      // Asked now: the latest figures beside the incident's, which date from its last update.
      live: stream.snapshot,
    }),
  );
}
