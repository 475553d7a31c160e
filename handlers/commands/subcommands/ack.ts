/** `/stream ack <query>`: acknowledges the stream's open incidents. */
import { inlineCode } from '../../../src/slack/mrkdwn.js';
import { acknowledgeIncident } from '../../../src/slack/operations/incident-actions.js';
import { lookupStream } from '../../../src/slack/operations/stream-lookup.js';
import { replyPrivately, type CommandContext } from '../command-context.js';

export async function ackSubcommand(ctx: CommandContext, query: string | null): Promise<void> {
  const found = await lookupStream(ctx.deps, query, ctx.channelId, 'ack');
  if (!found.ok) return replyPrivately(ctx, found.message);
  const open = (await ctx.deps.store.incidents.listForQuery(found.stream.queryId)).filter((record) => record.state === 'open');
  if (open.length === 0) return replyPrivately(ctx, `${inlineCode(found.stream.name || found.stream.queryId)} has no open incident to acknowledge.`);
  const lines: string[] = [];
  for (const record of open.slice(0, 10)) lines.push((await acknowledgeIncident(ctx.client, ctx.deps, record.id, ctx.userId)).message);
  await replyPrivately(ctx, lines.join('\n'));
}
