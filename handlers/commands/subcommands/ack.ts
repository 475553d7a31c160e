/** `/stream ack <query> [#channel]`: acknowledges the stream's open incidents (same rules as mute). */
import { inlineCode } from '../../../src/slack/mrkdwn.js';
import { lookupForAction } from '../../../src/slack/operations/channel-scope.js';
import { acknowledgeIncident } from '../../../src/slack/operations/incident-actions.js';
import { replyPrivately, scopeOf, type CommandContext } from '../command-context.js';

export async function ackSubcommand(ctx: CommandContext, query: string | null): Promise<void> {
  const permission = await ctx.deps.permissions.check('ack', ctx.userId, ctx.client);
  if (!permission.allowed) return replyPrivately(ctx, permission.reason);
  const found = await lookupForAction(scopeOf(ctx), query, 'ack', (name, channel) => `${ctx.command} ack ${name} ${channel}`);
  if (!found.ok) return replyPrivately(ctx, found.message);
  const open = (await ctx.deps.store.incidents.listForQuery(found.stream.queryId)).filter((record) => record.state === 'open');
  if (open.length === 0) return replyPrivately(ctx, `${inlineCode(found.stream.name || found.stream.queryId)} has no open incident to acknowledge.`);
  const lines: string[] = [];
  for (const record of open.slice(0, 10)) lines.push((await acknowledgeIncident(ctx.client, ctx.deps, record.id, ctx.userId)).message);
  await replyPrivately(ctx, lines.join('\n'));
}
