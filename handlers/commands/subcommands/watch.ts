/** `/stream watch <query|job <id>|pipeline <id>> [#channel]` and `unwatch`: routing overrides. */
import type { WatchTarget } from '../../../src/slack/command-text.js';
import { channelMention, inlineCode, userMention } from '../../../src/slack/mrkdwn.js';
import { checkChannel } from '../../../src/slack/operations/channel-check.js';
import { lookupStream } from '../../../src/slack/operations/stream-lookup.js';
import { CallerChannels } from '../../../src/slack/operations/channel-scope.js';
import { replyInChannel, replyPrivately, scopeOf, type CommandContext } from '../command-context.js';

const DATABRICKS_ID = /^[A-Za-z0-9._-]{1,128}$/;

type Resolved = { ok: true; id: string; label: string } | { ok: false; message: string };

/**
 * Channel scope: moving or removing a route takes alerts away from the channel they go to now, so
 * the caller must be in that channel (or type the command there), and in the destination. Routes
 * written by name in the watch file are looked up; anything Slack will not confirm is refused.
 */
async function mayReroute(ctx: CommandContext, channels: CallerChannels, from: string | null, to: string | null, label: string, subcommand: string): Promise<string | null> {
  for (const [channel, role] of [[from, 'alerts in'], [to, 'would alert in']] as const) {
    if (channel == null || channel === ctx.channelId) continue;
    const id = await channels.idOf(channel);
    if (id === ctx.channelId) continue;
    const where = id ? channelMention(id) : inlineCode(channel);
    const member = id ? await channels.isMember(id) : { ok: false as const, reason: 'channel_not_found' };
    if (!member.ok) return `StreamDoctor could not check that you are a member of ${where} (\`${member.reason}\`), so nothing changed. Run \`${ctx.command} ${subcommand}\` in ${where}.`;
    if (!member.member) return `${label} ${role} ${where}, and only its members may ${subcommand} it from another channel; nothing changed. Join ${where} or ask someone there.`;
  }
  return null;
}

async function resolveTarget(ctx: CommandContext, target: WatchTarget, subcommand: string): Promise<Resolved & { current?: string | null }> {
  if (target.scope === 'query') {
    const found = await lookupStream(ctx.deps, target.id, ctx.channelId, subcommand);
    if (!found.ok) return found;
    const current = await ctx.deps.store.routing.resolve(found.stream, ctx.deps.routingDefaults);
    return { ok: true, id: found.stream.queryId, label: `query ${inlineCode(found.stream.name || found.stream.queryId)}`, current };
  }
  if (!DATABRICKS_ID.test(target.id)) return { ok: false, message: `${inlineCode(target.id)} is not a Databricks ${target.scope} id.` };
  const routes = await ctx.deps.store.routing.listRoutes();
  const override = routes.find((rule) => rule.scope === target.scope && rule.id === target.id)?.channel;
  const fromFile = target.scope === 'job' ? ctx.deps.routingDefaults?.jobs?.[target.id] : ctx.deps.routingDefaults?.pipelines?.[target.id];
  return { ok: true, id: target.id, label: `${target.scope} ${inlineCode(target.id)}`, current: override ?? fromFile ?? null };
}

export async function watchSubcommand(ctx: CommandContext, target: WatchTarget, channel: string | null): Promise<void> {
  const permission = await ctx.deps.permissions.check('watch', ctx.userId, ctx.client);
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
  const refused = await mayReroute(ctx, new CallerChannels(scopeOf(ctx)), resolved.current ?? null, destination, resolved.label, 'watch');
  if (refused) return replyPrivately(ctx, refused);
  await ctx.deps.store.routing.setRoute(target.scope, resolved.id, destination);
  const note =
    check.status === 'not_member'
      ? ` StreamDoctor is not a member of ${channelMention(destination)} yet: invite it (\`/invite @StreamDoctor\`) or the alerts cannot be posted.`
      : check.status === 'unknown'
        ? ' Make sure the app is a member there.'
        : '';
  await replyInChannel(ctx, `${userMention(ctx.userId)} routed alerts for ${resolved.label} to ${channelMention(destination)}.${note}`);
}

export async function unwatchSubcommand(ctx: CommandContext, target: WatchTarget, channel: string | null): Promise<void> {
  const permission = await ctx.deps.permissions.check('unwatch', ctx.userId, ctx.client);
  if (!permission.allowed) return replyPrivately(ctx, permission.reason);
  const resolved = await resolveTarget(ctx, target, 'unwatch');
  if (!resolved.ok) return replyPrivately(ctx, resolved.message);
  const routes = await ctx.deps.store.routing.listRoutes();
  const route = routes.find((rule) => rule.scope === target.scope && rule.id === resolved.id);
  if (!route) return replyPrivately(ctx, `No \`watch\` routes ${resolved.label}; routes from the watch file are changed there.`);
  if (channel && route.channel !== channel) {
    return replyPrivately(ctx, `${resolved.label} is routed to ${channelMention(route.channel)}, not ${channelMention(channel)}; nothing changed.`);
  }
  const refused = await mayReroute(ctx, new CallerChannels(scopeOf(ctx)), route.channel, null, resolved.label, 'unwatch');
  if (refused) return replyPrivately(ctx, refused);
  await ctx.deps.store.routing.removeRoute(target.scope, resolved.id);
  await replyInChannel(ctx, `${userMention(ctx.userId)} stopped routing ${resolved.label} to ${channelMention(route.channel)}; the watch-file default applies again.`);
}
