/**
 * The files.uploadV2 flow: files.getUploadURLExternal reserves a file id and an upload URL on the
 * stand-in itself, the bytes are POSTed there, files.completeUploadExternal shares the file to a
 * channel (a message by the bot carrying the file). Also files.info.
 */
import { jsonArg, stringArg } from '../http-body.js';
import type { SlackState } from '../slack-state.js';
import type { Json, StoredFile, StoredMessage } from '../types.js';
import { fileJson, MAX_TEXT, requireChannel, type MethodHandler } from './method-context.js';
import { SlackMethodError } from './method-error.js';

/** Upper bound on one upload: Slack allows 1 GB, a stand-in has no use for more than this. */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;

const TYPES: Record<string, [mimetype: string, filetype: string]> = {
  png: ['image/png', 'png'],
  jpg: ['image/jpeg', 'jpg'],
  jpeg: ['image/jpeg', 'jpg'],
  gif: ['image/gif', 'gif'],
  svg: ['image/svg+xml', 'svg'],
  webp: ['image/webp', 'webp'],
  json: ['application/json', 'json'],
  jsonl: ['application/x-ndjson', 'text'],
  csv: ['text/csv', 'csv'],
  txt: ['text/plain', 'text'],
  log: ['text/plain', 'text'],
  md: ['text/markdown', 'markdown'],
  pdf: ['application/pdf', 'pdf'],
};

export function fileTypeOf(name: string, bytes?: Buffer): [string, string] {
  if (bytes && bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return ['image/png', 'png'];
  }
  const ext = name.includes('.') ? name.split('.').pop()!.toLowerCase() : '';
  return TYPES[ext] ?? ['application/octet-stream', 'binary'];
}

export const getUploadURLExternal: MethodHandler = (ctx) => {
  const filename = stringArg(ctx.args.filename);
  const lengthRaw = stringArg(ctx.args.length);
  const length = lengthRaw === undefined ? NaN : Number(lengthRaw);
  if (!filename) throw new SlackMethodError('invalid_arguments', { response_metadata: { messages: ['[ERROR] missing required field: filename'] } });
  if (!Number.isInteger(length) || length < 1) {
    throw new SlackMethodError('invalid_arguments', { response_metadata: { messages: ['[ERROR] missing required field: length'] } });
  }
  if (length > MAX_UPLOAD_BYTES) throw new SlackMethodError('file_too_large');
  const id = ctx.state.ids.next('F');
  const [mimetype, filetype] = fileTypeOf(filename);
  const file: StoredFile = {
    id,
    name: filename,
    title: filename,
    mimetype,
    filetype,
    size: 0,
    user: ctx.bot.userId,
    created: Math.floor(ctx.now() / 1000),
    ...(stringArg(ctx.args.alt_text) ? { altText: stringArg(ctx.args.alt_text)! } : {}),
    completed: false,
    channels: [],
    bytes: Buffer.alloc(0),
  };
  ctx.state.putFile(file);
  return { upload_url: `${ctx.baseUrl}/upload/v1/${id}`, file_id: id };
};

/** The upload endpoint: keeps the bytes of a reserved file. Returns false for an unknown id. */
export function receiveUpload(state: SlackState, fileId: string, bytes: Buffer): boolean {
  const file = state.file(fileId);
  if (!file || file.completed) return false;
  file.bytes = bytes;
  file.size = bytes.length;
  const [mimetype, filetype] = fileTypeOf(file.name, bytes);
  file.mimetype = mimetype;
  file.filetype = filetype;
  return true;
}

export const completeUploadExternal: MethodHandler = (ctx) => {
  const parsed = jsonArg(ctx.args.files);
  if (!parsed.ok || !Array.isArray(parsed.value) || parsed.value.length === 0) {
    throw new SlackMethodError('invalid_arguments', { response_metadata: { messages: ['[ERROR] missing required field: files'] } });
  }
  const entries = parsed.value as Json[];
  const files: StoredFile[] = [];
  for (const entry of entries) {
    const file = typeof entry?.id === 'string' ? ctx.state.file(entry.id) : undefined;
    if (!file || file.user !== ctx.bot.userId) throw new SlackMethodError('file_not_found');
    if (file.size === 0) throw new SlackMethodError('file_upload_not_completed');
    files.push(file);
  }
  const channelArg = stringArg(ctx.args.channel_id) ?? stringArg(ctx.args.channels);
  const comment = stringArg(ctx.args.initial_comment) ?? '';
  if (comment.length > MAX_TEXT) throw new SlackMethodError('msg_too_long');
  let channelId: string | undefined;
  if (channelArg) channelId = requireChannel({ ...ctx, args: { channel: channelArg } }).id;
  entries.forEach((entry, i) => {
    const file = files[i]!;
    if (typeof entry.title === 'string' && entry.title) file.title = entry.title;
    file.completed = true;
    if (channelId) file.channels.push(channelId);
  });
  if (channelId) {
    const threadRaw = stringArg(ctx.args.thread_ts);
    const parent = threadRaw ? ctx.state.findMessage(channelId, threadRaw) : undefined;
    if (threadRaw && !parent) throw new SlackMethodError('thread_not_found');
    const message: StoredMessage = {
      type: 'message',
      subtype: 'file_share',
      channel: channelId,
      ts: ctx.state.nextTs(ctx.now()),
      text: comment,
      user: ctx.bot.userId,
      bot_id: ctx.bot.botId,
      app_id: ctx.bot.appId,
      files: files.map((f) => fileJson(f, ctx.baseUrl, ctx.options.teamId)),
      ...(parent ? { thread_ts: parent.thread_ts && parent.thread_ts !== parent.ts ? parent.thread_ts : parent.ts } : {}),
      postedByToken: ctx.bot.token,
    };
    ctx.state.addMessage(message);
  }
  return { files: files.map((f) => ({ id: f.id, title: f.title })) };
};

export const info: MethodHandler = (ctx) => {
  const id = stringArg(ctx.args.file);
  const file = id ? ctx.state.file(id) : undefined;
  if (!file || !file.completed) throw new SlackMethodError('file_not_found');
  return { file: fileJson(file, ctx.baseUrl, ctx.options.teamId) };
};
