/**
 * `/stream watch <query|job <id>|pipeline <id>> [#channel]` and `unwatch`: routing overrides, told
 * where the alerts go and went (announce-change.ts).
 */
import type { WatchTarget } from '../../../src/slack/command-text.js';
import { channelMention, inlineCode, userMention } from '../../../src/slack/mrkdwn.js';
import { checkChannel } from '../../../src/slack/operations/channel-check.js';
import { CallerChannels, channelOf, findVisibleStream } from '../../../src/slack/operations/channel-scope.js';
import { announceChange } from '../announce-change.js';
import { replyPrivately, scopeOf, type CommandContext } from '../command-context.js';

const DATABRICKS_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** `current`: every channel the target's alerts go to now (a job or pipeline may feed several). */
type Resolved = { ok: true; id: string; label: string; current: string[] } | { ok: false; message: string };

/**
 * Channel scope: moving or removing a route takes alerts away from the channel they go to now, so
 * the caller must be in that channel (or type the command there), and in the destination. Routes
 * written by name in the watch file are looked up; anything Slack will not confirm is refused.
 */
async function mayReroute(ctx: CommandContext, channels: CallerChannels, from: readonly string[], to: string | null, label: string, subcommand: string): Promise<string | null> {
  const checks = [...from.map((channel) => [channel, 'alerts in'] as const), [to, 'would alert in'] as const];
  for (const [channel, role] of checks) {
    if (channel == null || channel === ctx.channelId) continue;
    const id = await channels.idOf(channel);
    if (id === ctx.channelId) continue;
    const where = id ? channelMention(id) : inlineCode(channel);
    const member = id ? await channels.isMember(id) : { ok: false as const, reason: 'channel_not_found' };
    if (!member.ok) return `StreamDoctor could not check that you are a member of ${where} (\`${member.reason}\`), so nothing changed. Run \`${ctx.command} ${subcommand}\` in ${where}.`;
    if (!member.member) {
      // A private channel is not named to a non-member: not where, nor that, it alerts there.
      if (!(await channels.maySee(id!))) return `${label} ${role} a channel you are not a member of, and only its members may ${subcommand} it from another channel; nothing changed. Ask someone there to do it.`;
      return `${label} ${role} ${where}, and only its members may ${subcommand} it from another channel; nothing changed. Join ${where} or ask someone there.`;
    }
  }
  return null;
}

/** The known streams of a job or pipeline. */
async function streamsOf(ctx: CommandContext, scope: 'job' | 'pipeline', id: string) {
  const key = scope === 'job' ? 'jobId' : 'pipelineId';
  return (await ctx.deps.store.streams.list()).filter((stream) => stream[key] === id);
}

/**
 * Where a job's or pipeline's alerts go now, by the store's one resolution: each known stream's
 * channel, and the target's own for streams yet to report. A stream a more specific route sends
 * elsewhere counts too: the new route takes over once that route is removed.
 */
async function currentChannels(ctx: CommandContext, scope: 'job' | 'pipeline', id: string): Promise<string[]> {
  const key = scope === 'job' ? 'jobId' : 'pipelineId';
  const streams = await streamsOf(ctx, scope, id);
  // No query id: the target's own route, else the default channel, as a new stream of it would resolve.
  const unseen = ctx.deps.store.routing.resolve({ queryId: '', [key]: id }, ctx.deps.routingDefaults);
  const channels = await Promise.all([...streams.map((stream) => channelOf(ctx.deps, stream)), unseen]);
  return [...new Set(channels.filter((channel): channel is string => channel != null))];
}

/**
 * What a job's or pipeline's new route reaches, when not every stream: none of its streams has
 * reported yet (the route waits for them), or some keep a more specific route (their own).
 */
async function jobRouteReach(ctx: CommandContext, scope: 'job' | 'pipeline', id: string, destination: string): Promise<string> {
  const streams = await streamsOf(ctx, scope, id);
  if (streams.length === 0) return ` No stream of this ${scope} has reported yet: its streams alert in ${channelMention(destination)} once they do.`;
  const elsewhere: string[] = [];
  for (const stream of streams) if ((await channelOf(ctx.deps, stream)) !== destination) elsewhere.push(stream.name || stream.queryId);
  if (elsewhere.length === 0) return '';
  const names = elsewhere.slice(0, 3).map((name) => inlineCode(name)).join(', ') + (elsewhere.length > 3 ? ` and ${elsewhere.length - 3} more` : '');
  return ` ${names} ${elsewhere.length === 1 ? 'keeps its' : 'keep their'} own route, which comes first: \`${ctx.command} watch <query>\` moves ${elsewhere.length === 1 ? 'it' : 'them'}.`;
}

async function resolveTarget(ctx: CommandContext, channels: CallerChannels, target: WatchTarget, subcommand: string): Promise<Resolved> {
  if (target.scope === 'query') {
    const found = await findVisibleStream(scopeOf(ctx), target.id, subcommand, channels);
    if (!found.ok) return found;
    const current = await channelOf(ctx.deps, found.stream);
    return { ok: true, id: found.stream.queryId, label: `query ${inlineCode(found.stream.name || found.stream.queryId)}`, current: current == null ? [] : [current] };
  }
  if (!DATABRICKS_ID.test(target.id)) return { ok: false, message: `${inlineCode(target.id)} is not a Databricks ${target.scope} id.` };
  return { ok: true, id: target.id, label: `${target.scope} ${inlineCode(target.id)}`, current: await currentChannels(ctx, target.scope, target.id) };
}

export async function watchSubcommand(ctx: CommandContext, target: WatchTarget, channel: string | null): Promise<void> {
  const permission = await ctx.deps.permissions.check('watch', ctx.userId, ctx.client);
  if (!permission.allowed) return replyPrivately(ctx, permission.reason);
  const channels = new CallerChannels(scopeOf(ctx));
  const resolved = await resolveTarget(ctx, channels, target, 'watch');
  if (!resolved.ok) return replyPrivately(ctx, resolved.message);
  const destination = channel ?? ctx.channelId;
  const check = await checkChannel(ctx.client, destination, ctx.deps.logger);
  if (check.status === 'not_found') {
    return replyPrivately(
      ctx,
      `StreamDoctor cannot see ${channelMention(destination)} (\`${check.error}\`), so alerts sent there would be lost; nothing changed. Invite the app there (\`/invite @StreamDoctor\`) or pick another channel.`,
    );
  }
  const refused = await mayReroute(ctx, channels, resolved.current, destination, resolved.label, 'watch');
  if (refused) return replyPrivately(ctx, refused);
  // A watch that changes nothing is not news for the channel: answer the caller alone.
  const existing = (await ctx.deps.store.routing.listRoutes()).find((rule) => rule.scope === target.scope && rule.id === resolved.id);
  if (existing?.channel === destination) return replyPrivately(ctx, `${resolved.label} is already routed to ${channelMention(destination)}; nothing changed.`);
  // The watch file routes this very target here: a Slack route would change nothing.
  const fromFile = { query: 'queries', job: 'jobs', pipeline: 'pipelines' } as const;
  if (!existing && ctx.deps.routingDefaults?.[fromFile[target.scope]]?.[resolved.id] === destination) {
    return replyPrivately(ctx, `${resolved.label} is already routed to ${channelMention(destination)} by the watch file; nothing changed.`);
  }
  await ctx.deps.store.routing.setRoute(target.scope, resolved.id, destination);
  const note =
    check.status === 'not_member'
      ? ` StreamDoctor is not a member of ${channelMention(destination)} yet: invite it (\`/invite @StreamDoctor\`) or the alerts cannot be posted.`
      : check.status === 'unknown'
        ? ' Make sure the app is a member there.'
        : '';
  const reach = target.scope === 'query' ? '' : await jobRouteReach(ctx, target.scope, resolved.id, destination);
  // Told where the alerts go now and where they went until now, not where the command was typed.
  const message = `${userMention(ctx.userId)} routed alerts for ${resolved.label} to ${channelMention(destination)}.${reach}${note}`;
  await announceChange(ctx, channels, [destination, ...resolved.current], message);
}

export async function unwatchSubcommand(ctx: CommandContext, target: WatchTarget, channel: string | null): Promise<void> {
  const permission = await ctx.deps.permissions.check('unwatch', ctx.userId, ctx.client);
  if (!permission.allowed) return replyPrivately(ctx, permission.reason);
  const channels = new CallerChannels(scopeOf(ctx));
  const resolved = await resolveTarget(ctx, channels, target, 'unwatch');
  if (!resolved.ok) return replyPrivately(ctx, resolved.message);
  const routes = await ctx.deps.store.routing.listRoutes();
  const route = routes.find((rule) => rule.scope === target.scope && rule.id === resolved.id);
  if (!route) return replyPrivately(ctx, `No \`watch\` routes ${resolved.label}; routes from the watch file are changed there.`);
  if (channel && route.channel !== channel) {
    return replyPrivately(ctx, `${resolved.label} is routed to ${channelMention(route.channel)}, not ${channelMention(channel)}; nothing changed.`);
  }
  const refused = await mayReroute(ctx, channels, [route.channel], null, resolved.label, 'unwatch');
  if (refused) return replyPrivately(ctx, refused);
  await ctx.deps.store.routing.removeRoute(target.scope, resolved.id);
  // Told where the route sent alerts: naming that channel anywhere else could reveal a private one.
  await announceChange(ctx, channels, [route.channel], `${userMention(ctx.userId)} stopped routing ${resolved.label} to ${channelMention(route.channel)}; the watch-file default applies again.`);
}
