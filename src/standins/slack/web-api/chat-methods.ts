/** chat.postMessage, chat.update, chat.delete, chat.postEphemeral, chat.getPermalink. */
import { boolArg, jsonArg, stringArg } from '../http-body.js';
import { TS_PATTERN } from '../message-ts-clock.js';
import type { StoredMessage } from '../types.js';
import {
  messageContent,
  messageJson,
  requireChannel,
  requireString,
  type MethodContext,
  type MethodHandler,
} from './method-context.js';
import { SlackMethodError } from './method-error.js';
import { SlackRateLimitedError } from './rate-limited-error.js';

function threadTs(ctx: MethodContext, channel: string): string | undefined {
  const raw = stringArg(ctx.args.thread_ts);
  if (!raw) return undefined;
  // Slack quietly posts to the channel when the parent does not exist; we are stricter to catch bugs.
  if (!TS_PATTERN.test(raw) || !ctx.state.findMessage(channel, raw)) throw new SlackMethodError('thread_not_found');
  const parent = ctx.state.findMessage(channel, raw)!;
  // A reply to a reply goes to the root's thread.
  return parent.thread_ts && parent.thread_ts !== parent.ts ? parent.thread_ts : parent.ts;
}

export const postMessage: MethodHandler = (ctx) => {
  // chat:write.public reaches public channels the bot never joined; a channel name is accepted here only.
  const channel = requireChannel(ctx, 'channel', 'chat:write.public', true);
  // An archived channel takes no new messages, from members or not.
  if (channel.isArchived) throw new SlackMethodError('is_archived');
  const content = messageContent(ctx.args, true);
  const thread = threadTs(ctx, channel.id);
  if (ctx.rateLimiter) {
    const decision = ctx.rateLimiter.take(channel.id);
    if (!decision.allowed) throw new SlackRateLimitedError(decision.retryAfterSec);
  }
  const metadata = jsonArg(ctx.args.metadata);
  const message: StoredMessage = {
    type: 'message',
    channel: channel.id,
    ts: ctx.state.nextTs(ctx.now()),
    text: content.text,
    ...(content.blocks ? { blocks: content.blocks } : {}),
    ...(content.attachments ? { attachments: content.attachments } : {}),
    user: ctx.bot.userId,
    bot_id: ctx.bot.botId,
    app_id: ctx.bot.appId,
    ...(thread ? { thread_ts: thread } : {}),
    ...(thread && boolArg(ctx.args.reply_broadcast) ? { reply_broadcast: true } : {}),
    ...(metadata.ok && metadata.value && typeof metadata.value === 'object' ? { metadata: metadata.value as Record<string, unknown> } : {}),
    postedByToken: ctx.bot.token,
  };
  ctx.state.addMessage(message);
  return { channel: channel.id, ts: message.ts, message: messageJson(message, ctx.state, ctx.options.teamId) };
};

function ownMessage(ctx: MethodContext): { channel: string; message: StoredMessage } {
  const channel = requireChannel(ctx, 'channel', 'chat:write.public');
  const ts = requireString(ctx, 'ts', 'message_not_found');
  const message = ctx.state.findMessage(channel.id, ts);
  if (!message) throw new SlackMethodError('message_not_found');
  // Only the bot that posted a message may change it.
  if (message.postedByToken !== ctx.bot.token) throw new SlackMethodError('cant_update_message');
  return { channel: channel.id, message };
}

export const update: MethodHandler = (ctx) => {
  const { channel, message } = ownMessage(ctx);
  const content = messageContent(ctx.args, true);
  const patch: Partial<StoredMessage> = {
    text: content.text,
    edited: { user: ctx.bot.userId, ts: ctx.state.nextTs(ctx.now()) },
  };
  // Fields left out keep their previous value, as Slack documents; an empty array clears them.
  if (content.given.has('blocks')) patch.blocks = content.blocks;
  const metadata = jsonArg(ctx.args.metadata);
  if (ctx.args.metadata !== undefined && metadata.ok && metadata.value && typeof metadata.value === 'object') {
    patch.metadata = metadata.value as Record<string, unknown>;
  }
  if (content.given.has('attachments')) patch.attachments = content.attachments;
  const updated = ctx.state.updateMessage(channel, message.ts, patch)!;
  return {
    channel,
    ts: updated.ts,
    text: updated.text,
    message: messageJson(updated, ctx.state, ctx.options.teamId),
  };
};

export const deleteMessage: MethodHandler = (ctx) => {
  const { channel, message } = ownMessage(ctx);
  ctx.state.deleteMessage(channel, message.ts);
  return { channel, ts: message.ts };
};

export const postEphemeral: MethodHandler = (ctx) => {
  const channel = requireChannel(ctx);
  if (channel.isArchived) throw new SlackMethodError('is_archived');
  const userId = stringArg(ctx.args.user);
  if (!userId || !ctx.state.user(userId)) throw new SlackMethodError('user_not_found');
  if (!ctx.state.channelMembers(channel).includes(userId)) throw new SlackMethodError('user_not_in_channel');
  const content = messageContent(ctx.args, true);
  const thread = stringArg(ctx.args.thread_ts);
  const ts = ctx.state.nextTs(ctx.now());
  ctx.state.addEphemeral({
    channel: channel.id,
    user: userId,
    ts,
    text: content.text,
    ...(content.blocks ? { blocks: content.blocks } : {}),
    ...(content.attachments ? { attachments: content.attachments } : {}),
    ...(thread ? { thread_ts: thread } : {}),
    source: 'chat.postEphemeral',
  });
  return { message_ts: ts };
};

export const getPermalink: MethodHandler = (ctx) => {
  const channel = requireChannel(ctx);
  const ts = requireString(ctx, 'message_ts', 'message_not_found');
  const message = ctx.state.findMessage(channel.id, ts);
  if (!message) throw new SlackMethodError('message_not_found');
  const threadPart = message.thread_ts && message.thread_ts !== message.ts
    ? `?thread_ts=${message.thread_ts}&cid=${channel.id}`
    : '';
  return { channel: channel.id, permalink: `${ctx.baseUrl}/archives/${channel.id}/p${ts.replace('.', '')}${threadPart}` };
};
