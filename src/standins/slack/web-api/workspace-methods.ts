/** auth.test, conversations.info / list, users.conversations, users.info: reading the configured workspace. */
import { boolArg, stringArg } from '../http-body.js';
import type { SlackState } from '../slack-state.js';
import type { Json, WorkspaceChannel, WorkspaceUser } from '../types.js';
import { requireChannel, type MethodHandler } from './method-context.js';
import { SlackMethodError } from './method-error.js';
import { conversationScope, requireScope } from './scopes.js';

// A fixed creation time keeps answers stable across runs.
const CREATED = 1_700_000_000;

export function channelJson(channel: WorkspaceChannel, state: SlackState, botUserId: string): Json {
  const members = state.channelMembers(channel);
  return {
    id: channel.id,
    name: channel.name,
    name_normalized: channel.name,
    is_channel: !channel.isPrivate,
    is_group: false,
    is_im: false,
    is_mpim: false,
    is_private: channel.isPrivate === true,
    is_archived: channel.isArchived === true,
    is_general: channel.name === 'general',
    is_member: !channel.members || channel.members.includes(botUserId),
    is_shared: false,
    is_ext_shared: false,
    is_org_shared: false,
    created: CREATED,
    creator: state.users()[0]?.id ?? '',
    topic: { value: '', creator: '', last_set: 0 },
    purpose: { value: channel.purpose ?? '', creator: '', last_set: 0 },
    num_members: members.length,
  };
}

export function userJson(user: WorkspaceUser, teamId: string): Json {
  const realName = user.realName ?? user.name;
  return {
    id: user.id,
    team_id: teamId,
    name: user.name,
    real_name: realName,
    deleted: false,
    is_bot: false,
    is_admin: user.isAdmin === true,
    is_owner: false,
    tz: user.tz ?? 'UTC',
    profile: { real_name: realName, display_name: user.name, team: teamId },
  };
}

export const authTest: MethodHandler = (ctx) => ({
  url: `${ctx.baseUrl}/`,
  team: ctx.options.teamDomain,
  user: ctx.bot.name.toLowerCase(),
  team_id: ctx.options.teamId,
  user_id: ctx.bot.userId,
  bot_id: ctx.bot.botId,
  is_enterprise_install: false,
});

export const conversationsInfo: MethodHandler = (ctx) => {
  // A public channel is readable with channels:read without joining; a private one only from inside.
  const raw = stringArg(ctx.args.channel);
  const hidden = raw ? ctx.state.channel(raw) : undefined;
  if (hidden?.isPrivate && !botIsMember(hidden, ctx.bot.userId)) throw new SlackMethodError('channel_not_found');
  const channel = requireChannel(ctx, 'channel', 'channels:read');
  requireScope(ctx.bot, conversationScope(channel, 'read'));
  return { channel: channelJson(channel, ctx.state, ctx.bot.userId) };
};

/** conversations.join (channels:join): the bot joins a public channel; private ones need an invite. */
export const conversationsJoin: MethodHandler = (ctx) => {
  const raw = stringArg(ctx.args.channel);
  const channel = raw ? ctx.state.channel(raw) : undefined;
  if (!channel || (channel.isPrivate && !botIsMember(channel, ctx.bot.userId))) throw new SlackMethodError('channel_not_found');
  if (channel.isPrivate) throw new SlackMethodError('method_not_supported_for_channel_type');
  if (channel.isArchived) throw new SlackMethodError('is_archived');
  const already = botIsMember(channel, ctx.bot.userId);
  if (!already) channel.members = [...(channel.members ?? []), ctx.bot.userId];
  return { channel: channelJson(channel, ctx.state, ctx.bot.userId), ...(already ? { warning: 'already_in_channel' } : {}) };
};

interface ChannelPage {
  limit: number;
  offset: number;
  types: string[];
  excludeArchived: boolean;
}

/** The paging and filter arguments conversations.list and users.conversations share. */
function pageArgs(ctx: Parameters<MethodHandler>[0]): ChannelPage {
  const limit = Math.min(1000, Math.max(1, Number(stringArg(ctx.args.limit) ?? 100) || 100));
  const cursor = stringArg(ctx.args.cursor);
  const offset = cursor ? Number(Buffer.from(cursor, 'base64').toString('utf8').replace(/^offset:/, '')) : 0;
  if (!Number.isInteger(offset) || offset < 0) throw new SlackMethodError('invalid_cursor');
  const types = (stringArg(ctx.args.types) ?? 'public_channel').split(',').map((t) => t.trim());
  const known = ['public_channel', 'private_channel', 'mpim', 'im'];
  if (types.some((t) => !known.includes(t))) throw new SlackMethodError('invalid_types');
  return { limit, offset, types, excludeArchived: boolArg(ctx.args.exclude_archived) };
}

function pageOf(ctx: Parameters<MethodHandler>[0], args: ChannelPage, all: WorkspaceChannel[]): Json {
  const page = all.slice(args.offset, args.offset + args.limit);
  const next = args.offset + args.limit < all.length ? Buffer.from(`offset:${args.offset + args.limit}`).toString('base64') : '';
  return {
    channels: page.map((c) => channelJson(c, ctx.state, ctx.bot.userId)),
    response_metadata: { next_cursor: next },
  };
}

function ofTypes(channel: WorkspaceChannel, args: ChannelPage): boolean {
  if (args.excludeArchived && channel.isArchived) return false;
  return channel.isPrivate ? args.types.includes('private_channel') : args.types.includes('public_channel');
}

/** The app is in a channel that lists no members (every user is in it) or lists the bot user. */
function botIsMember(channel: WorkspaceChannel, botUserId: string): boolean {
  return !channel.members || channel.members.includes(botUserId);
}

/** Scope a bot token needs to list each conversation type. */
const SCOPE_OF_TYPE: Record<string, string> = { public_channel: 'channels:read', private_channel: 'groups:read', mpim: 'mpim:read', im: 'im:read' };

/**
 * users.conversations: the channels a user is in (`user`, else the calling bot). As in Slack, a
 * private channel of another user is listed only when the caller shares it.
 */
export const usersConversations: MethodHandler = (ctx) => {
  const args = pageArgs(ctx);
  const needed = [...new Set(args.types.map((t) => SCOPE_OF_TYPE[t]!))];
  const granted = ctx.bot.scopes;
  if (granted && needed.some((scope) => !granted.includes(scope))) {
    throw new SlackMethodError('missing_scope', { needed: needed.join(','), provided: granted.join(',') });
  }
  const userId = stringArg(ctx.args.user);
  if (userId && !ctx.state.user(userId) && !ctx.state.botByUserId(userId)) throw new SlackMethodError('user_not_found');
  const isMember = (channel: WorkspaceChannel): boolean => {
    if (!userId || userId === ctx.bot.userId) return botIsMember(channel, ctx.bot.userId);
    if (!ctx.state.channelMembers(channel).includes(userId)) return false;
    return !channel.isPrivate || botIsMember(channel, ctx.bot.userId);
  };
  return pageOf(ctx, args, ctx.state.channels().filter((c) => ofTypes(c, args) && isMember(c)));
};

export const conversationsList: MethodHandler = (ctx) => {
  const args = pageArgs(ctx);
  requireScope(ctx.bot, ...new Set(args.types.map((t) => SCOPE_OF_TYPE[t]!)));
  const all = ctx.state.channels().filter((c) => ofTypes(c, args));
  return pageOf(ctx, args, all);
};

export const usersInfo: MethodHandler = (ctx) => {
  const id = stringArg(ctx.args.user);
  const user = id ? ctx.state.user(id) : undefined;
  if (user) return { user: userJson(user, ctx.options.teamId) };
  const bot = id ? ctx.state.botByUserId(id) : undefined;
  if (!bot) throw new SlackMethodError('user_not_found');
  return {
    user: {
      id: bot.userId,
      team_id: ctx.options.teamId,
      name: bot.name.toLowerCase(),
      real_name: bot.name,
      is_bot: true,
      deleted: false,
      profile: { real_name: bot.name, display_name: bot.name, bot_id: bot.botId, api_app_id: bot.appId },
    },
  };
};

/** usergroups.users.list (usergroups:read): the members of a user group. */
export const usergroupsUsersList: MethodHandler = (ctx) => {
  const id = stringArg(ctx.args.usergroup);
  const group = id ? ctx.options.userGroups.find((g) => g.id === id) : undefined;
  if (!group) throw new SlackMethodError('no_such_subteam');
  return { users: [...group.users] };
};
