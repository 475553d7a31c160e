/** auth.test, conversations.info / list, users.info: reading the configured workspace. */
import { stringArg } from '../http-body.js';
import type { SlackState } from '../slack-state.js';
import type { Json, WorkspaceChannel, WorkspaceUser } from '../types.js';
import { requireChannel, type MethodHandler } from './method-context.js';
import { SlackMethodError } from './method-error.js';

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
    is_archived: false,
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
  const channel = requireChannel(ctx);
  return { channel: channelJson(channel, ctx.state, ctx.bot.userId) };
};

export const conversationsList: MethodHandler = (ctx) => {
  const limit = Math.min(1000, Math.max(1, Number(stringArg(ctx.args.limit) ?? 100) || 100));
  const cursor = stringArg(ctx.args.cursor);
  const offset = cursor ? Number(Buffer.from(cursor, 'base64').toString('utf8').replace(/^offset:/, '')) : 0;
  if (!Number.isInteger(offset) || offset < 0) throw new SlackMethodError('invalid_cursor');
  const types = (stringArg(ctx.args.types) ?? 'public_channel').split(',').map((t) => t.trim());
  const all = ctx.state
    .channels()
    .filter((c) => (c.isPrivate ? types.includes('private_channel') : types.includes('public_channel')));
  const page = all.slice(offset, offset + limit);
  const next = offset + limit < all.length ? Buffer.from(`offset:${offset + limit}`).toString('base64') : '';
  return {
    channels: page.map((c) => channelJson(c, ctx.state, ctx.bot.userId)),
    response_metadata: { next_cursor: next },
  };
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
