/**
 * conversations.history and conversations.replies: newest first (history) / parent first
 * (replies), filtered by `oldest` / `latest`, paginated by cursor; message `metadata` only when
 * `include_all_metadata` is true, as Slack does. (Added by the pipeline: notify looks a message up by
 * its metadata after a crash between chat.postMessage and recording the ts.)
 */
import { boolArg, stringArg } from '../http-body.js';
import type { StoredMessage } from '../types.js';
import { messageJson, requireChannel, requireString, type MethodContext, type MethodHandler } from './method-context.js';
import { SlackMethodError } from './method-error.js';
import { conversationScope, requireScope } from './scopes.js';

function page(ctx: MethodContext, all: StoredMessage[]) {
  const oldest = Number(stringArg(ctx.args.oldest) ?? 0) || 0;
  const latestArg = stringArg(ctx.args.latest);
  const latest = latestArg ? Number(latestArg) : Number.POSITIVE_INFINITY;
  const inclusive = boolArg(ctx.args.inclusive);
  const limit = Math.min(1000, Math.max(1, Number(stringArg(ctx.args.limit) ?? 100) || 100));
  const cursor = stringArg(ctx.args.cursor);
  const offset = cursor ? Number(Buffer.from(cursor, 'base64').toString('utf8').replace(/^offset:/, '')) : 0;
  if (!Number.isInteger(offset) || offset < 0) throw new SlackMethodError('invalid_cursor');
  const withMetadata = boolArg(ctx.args.include_all_metadata);
  const inRange = all.filter((m) => {
    const ts = Number(m.ts);
    return (inclusive ? ts >= oldest : ts > oldest) && (inclusive ? ts <= latest : ts < latest);
  });
  const slice = inRange.slice(offset, offset + limit);
  const next = offset + limit < inRange.length ? Buffer.from(`offset:${offset + limit}`).toString('base64') : '';
  return {
    messages: slice.map((m) => {
      const json = messageJson(m, ctx.state, ctx.options.teamId) as Record<string, unknown>;
      if (!withMetadata) delete json.metadata;
      return json;
    }),
    has_more: next !== '',
    response_metadata: { next_cursor: next },
  };
}

/** History needs channels:history (public) / groups:history (private), and the bot in the channel (else `not_in_channel`). */
function readableChannel(ctx: MethodContext) {
  const channel = requireChannel(ctx);
  requireScope(ctx.bot, conversationScope(channel, 'history'));
  return channel;
}

export const conversationsHistory: MethodHandler = (ctx) => {
  const channel = readableChannel(ctx);
  return page(ctx, [...ctx.state.messages(channel.id)].reverse());
};

export const conversationsReplies: MethodHandler = (ctx) => {
  const channel = readableChannel(ctx);
  const ts = requireString(ctx, 'ts', 'thread_not_found');
  const thread = ctx.state.thread(channel.id, ts);
  if (thread.length === 0) throw new SlackMethodError('thread_not_found');
  return page(ctx, thread);
};
