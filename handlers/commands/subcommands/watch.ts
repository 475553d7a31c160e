/** `/stream watch <query|job <id>|pipeline <id>> [#channel]` and `unwatch`: routing overrides. */
import type { WatchTarget } from '../../../src/slack/command-text.js';
import { channelMention, inlineCode, userMention } from '../../../src/slack/mrkdwn.js';
import { checkChannel } from '../../../src/slack/operations/channel-check.js';
import { lookupStream } from '../../../src/slack/operations/stream-lookup.js';
import { replyInChannel, replyPrivately, type CommandContext } from '../command-context.js';

const DATABRICKS_ID = /^[A-Za-z0-9._-]{1,128}$/;

async function resolveTarget(ctx: CommandContext, target: WatchTarget, subcommand: string): Promise<{ ok: true; id: string; label: string } | { ok: false; message: string }> {
  if (target.scope === 'query') {
    const found = await lookupStream(ctx.deps, target.id, ctx.channelId, subcommand);
    if (!found.ok) return found;
    return { ok: true, id: found.stream.queryId, label: `query ${inlineCode(found.stream.name || found.stream.queryId)}` };
  }
  if (!DATABRICKS_ID.test(target.id)) return { ok: false, message: `${inlineCode(target.id)} is not a Databricks ${target.scope} id.` };
  return { ok: true, id: target.id, label: `${target.scope} ${inlineCode(target.id)}` };
}

export async function watchSubcommand(ctx: CommandContext, target: WatchTarget, channel: string | null): Promise<void> {
  const permission = await ctx.deps.permissions.check('watch', ctx.userId);
  if (!permission.allowed) return replyPrivately(ctx, permission.reason);
  const resolved = await resolveTarget(ctx, target, 'watch');
  if (!resolved.ok) return replyPrivately(ctx, resolved.message);
  const destination = channel ?? ctx.channelId;
  const check = await checkChannel(ctx.client, destination, ctx.deps.logger);
  if (check.status === 'not_found') {
    return replyPrivately(
      ctx,
      `StreamDoctor cannot see ${channelMention(destination)} (\`${check.error}\`), so alerts sent there would be lost; nothing changed. Invite the app there (\`/invite @StreamDoctor\`) or pick another channel.`,
    );
  }
  await ctx.deps.store.setRoute(target.scope, resolved.id, destination);
  const note =
    check.status === 'not_member'
      ? ` StreamDoctor is not a member of ${channelMention(destination)} yet: invite it (\`/invite @StreamDoctor\`) or the alerts cannot be posted.`
      : check.status === 'unknown'
        ? ' Make sure the app is a member there.'
        : '';
  await replyInChannel(ctx, `${userMention(ctx.userId)} routed alerts for ${resolved.label} to ${channelMention(destination)}.${note}`);
}

export async function unwatchSubcommand(ctx: CommandContext, target: WatchTarget, channel: string | null): Promise<void> {
  const permission = await ctx.deps.permissions.check('unwatch', ctx.userId);
  if (!permission.allowed) return replyPrivately(ctx, permission.reason);
  const resolved = await resolveTarget(ctx, target, 'unwatch');
  if (!resolved.ok) return replyPrivately(ctx, resolved.message);
  const routes = await ctx.deps.store.routing.listRoutes();
  const route = routes.find((rule) => rule.scope === target.scope && rule.id === resolved.id);
  if (!route) return replyPrivately(ctx, `No \`watch\` routes ${resolved.label}; routes from the watch file are changed there.`);
  if (channel && route.channel !== channel) {
    return replyPrivately(ctx, `${resolved.label} is routed to ${channelMention(route.channel)}, not ${channelMention(channel)}; nothing changed.`);
  }
  await ctx.deps.store.routing.removeRoute(target.scope, resolved.id);
  await replyInChannel(ctx, `${userMention(ctx.userId)} stopped routing ${resolved.label} to ${channelMention(route.channel)}; the watch-file default applies again.`);
}
