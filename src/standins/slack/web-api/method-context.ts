/**
 * What a Web API method handler gets: the calling bot, its arguments, the state and a few
 * collaborators. Plus the argument helpers every method shares (channel lookup, message content).
 */
import type { ResolvedOptions } from '../options.js';
import type { ChannelRateLimiter } from '../rate-limiter.js';
import type { SlackState } from '../slack-state.js';
import type { TriggerIds } from '../trigger-ids.js';
import type { BotIdentity, FileObject, Json, StoredFile, StoredMessage, WorkspaceChannel } from '../types.js';
import { validateAttachments, validateBlocks } from '../block-validation.js';
import { assignBlockIds } from '../block-ids.js';
import { jsonArg, stringArg } from '../http-body.js';
import { SlackMethodError } from './method-error.js';

export interface MethodContext {
  bot: BotIdentity;
  args: Record<string, unknown>;
  binary: Record<string, Buffer>;
  state: SlackState;
  options: ResolvedOptions;
  triggers: TriggerIds;
  rateLimiter: ChannelRateLimiter | undefined;
  /** Base URL of the stand-in, no trailing slash. */
  baseUrl: string;
  now(): number;
}

export type MethodHandler = (ctx: MethodContext) => Json | Promise<Json>;

/** Slack's hard cap on message text. */
export const MAX_TEXT = 40_000;

/**
 * Text of all a message's blocks together past which Slack answers `msg_blocks_too_long`, however
 * each block keeps its own limits. Undocumented: refusals are reported from about 11,300 to 13,200
 * characters; this stand-in refuses past 12,000.
 */
export const MAX_BLOCKS_TEXT = 12_000;

/** Characters of every mrkdwn and plain_text string in `value`. */
function textLength(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + textLength(item), 0);
  if (!value || typeof value !== 'object') return 0;
  const record = value as Record<string, unknown>;
  if ((record.type === 'mrkdwn' || record.type === 'plain_text') && typeof record.text === 'string') return record.text.length;
  return Object.values(record).reduce((sum: number, item) => sum + textLength(item), 0);
}

export function requireString(ctx: MethodContext, key: string, error = 'invalid_arguments'): string {
  const value = stringArg(ctx.args[key]);
  if (!value) throw new SlackMethodError(error, { response_metadata: { messages: [`[ERROR] missing required field: ${key}`] } });
  return value;
}

/** Whether the bot is in a channel: one that lists no members has everyone in it. */
export function botInChannel(channel: WorkspaceChannel, botUserId: string): boolean {
  return !channel.members || channel.members.includes(botUserId);
}

/**
 * Looks a channel up by id (or #name where Slack takes one: `acceptsName`); `channel_not_found` otherwise. A channel the bot is not in is
 * `not_in_channel`, unless it is public and `publicAccess` names the scope that reaches public
 * channels without joining (`chat:write.public` for posting, `channels:read` for conversations.info)
 * and the bot holds it.
 */
export function requireChannel(ctx: MethodContext, key = 'channel', publicAccess?: string, acceptsName = false): WorkspaceChannel {
  const raw = stringArg(ctx.args[key]);
  if (!raw) throw new SlackMethodError('channel_not_found');
  // Only chat.postMessage takes a channel name (`#data-alerts`); every other method needs its id.
  if (!acceptsName && !/^[CGD][A-Z0-9]+$/.test(raw)) throw new SlackMethodError('channel_not_found');
  const channel = ctx.state.channel(raw);
  if (!channel) throw new SlackMethodError('channel_not_found');
  if (!botInChannel(channel, ctx.bot.userId)) {
    const granted = ctx.bot.scopes;
    if (channel.isPrivate || !publicAccess || (granted && !granted.includes(publicAccess))) throw new SlackMethodError('not_in_channel');
  }
  return channel;
}

export interface MessageContent {
  text: string;
  blocks?: Json[];
  attachments?: Json[];
}

/**
 * text / blocks / attachments of chat.postMessage, chat.update, chat.postEphemeral and response_url
 * bodies, validated as Slack does. `requireSome` gives `no_text` when all are missing.
 */
export function messageContent(args: Record<string, unknown>, requireSome: boolean): MessageContent & { given: Set<string> } {
  const given = new Set<string>();
  const text = stringArg(args.text) ?? '';
  if (args.text !== undefined) given.add('text');
  let blocks: Json[] | undefined;
  let attachments: Json[] | undefined;
  if (args.blocks !== undefined && args.blocks !== '') {
    const parsed = jsonArg(args.blocks);
    if (!parsed.ok) throw new SlackMethodError('invalid_blocks_format');
    const problems = validateBlocks(parsed.value, 'message');
    if (problems.length > 0) throw new SlackMethodError('invalid_blocks', { response_metadata: { messages: problems } });
    if (textLength(parsed.value) > MAX_BLOCKS_TEXT) throw new SlackMethodError('msg_blocks_too_long');
    blocks = assignBlockIds(parsed.value as Json[]);
    given.add('blocks');
  }
  if (args.attachments !== undefined && args.attachments !== '') {
    const parsed = jsonArg(args.attachments);
    if (!parsed.ok) throw new SlackMethodError('invalid_attachments');
    const problems = validateAttachments(parsed.value);
    if (problems.length > 0) throw new SlackMethodError('invalid_attachments', { response_metadata: { messages: problems } });
    attachments = parsed.value as Json[];
    given.add('attachments');
  }
  const empty = text.trim() === '' && !(blocks && blocks.length) && !(attachments && attachments.length);
  if (requireSome && empty) throw new SlackMethodError('no_text');
  if (text.length > MAX_TEXT) throw new SlackMethodError('msg_too_long');
  return { text, blocks, attachments, given };
}

/** A stored message as the Web API returns it (internal bookkeeping stripped). */
export function messageJson(message: StoredMessage, state: SlackState, teamId: string): Json {
  const { postedByToken: _token, channel: _channel, ...rest } = message;
  const out: Json = { ...rest, team: teamId };
  if (message.bot_id) {
    const bot = state.botByUserId(message.user);
    if (bot) out.bot_profile = { id: bot.botId, app_id: bot.appId, name: bot.name, deleted: false, team_id: teamId };
  }
  return out;
}

export function fileJson(file: StoredFile, baseUrl: string, teamId: string): FileObject {
  const name = encodeURIComponent(file.name);
  return {
    id: file.id,
    name: file.name,
    title: file.title,
    mimetype: file.mimetype,
    filetype: file.filetype,
    size: file.size,
    user: file.user,
    created: file.created,
    url_private: `${baseUrl}/files-pri/${teamId}-${file.id}/${name}`,
    url_private_download: `${baseUrl}/files-pri/${teamId}-${file.id}/download/${name}`,
    permalink: `${baseUrl}/files/${file.user}/${file.id}/${name}`,
    is_public: true,
    ...(file.altText ? { alt_txt: file.altText } : {}),
  };
}
