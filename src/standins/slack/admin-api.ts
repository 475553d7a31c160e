/**
 * The JSON API behind the chat view (and handy for demos and tests): read channels, messages, threads,
 * ephemerals, the Home tab and open modals as one person sees them; act as that person (commands,
 * messages, clicks, submissions, Home opens, file shares); a server-sent event stream of changes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { AppInteractions, InteractionOutcome } from './app-interactions.js';
import { InteractionError } from './interaction-error.js';
import { BodyTooLargeError, readRawBody, sendJson } from './http-body.js';
import type { ResolvedOptions } from './options.js';
import type { SlackDelivery } from './slack-delivery.js';
import type { SlackState, StateChange } from './slack-state.js';
import type { BotIdentity, EphemeralMessage, Json, StoredView } from './types.js';
import { messageJson } from './web-api/method-context.js';
import { viewJson } from './web-api/views-methods.js';

export interface AdminDeps {
  state: SlackState;
  interactions: AppInteractions;
  delivery: SlackDelivery;
  options: ResolvedOptions;
  bot: BotIdentity;
  baseUrl: () => string;
}

const MAX_ADMIN_BODY = 20 * 1024 * 1024;
const MAX_SSE_CLIENTS = 50;
/** Messages per channel the chat view gets by default. */
const DEFAULT_MESSAGE_LIMIT = 200;

const ids = { user: z.string().min(1), channel: z.string().min(1) };
const selected = z.union([z.string(), z.array(z.string())]).optional();
const SCHEMAS = {
  command: z.object({ ...ids, text: z.string().max(40_000), command: z.string().startsWith('/').optional() }),
  message: z.object({ ...ids, text: z.string().min(1).max(40_000), thread_ts: z.string().optional() }),
  action: z.union([
    z.object({ user: ids.user, channel: ids.channel, ts: z.string(), ephemeral: z.boolean().optional(), action_id: z.string(), block_id: z.string().optional(), selected }),
    z.object({ user: ids.user, view_id: z.string(), action_id: z.string(), block_id: z.string().optional(), selected }),
  ]),
  submit: z.object({ user: ids.user, view_id: z.string(), values: z.record(z.string(), z.record(z.string(), z.union([z.string(), z.array(z.string())]))).optional() }),
  close: z.object({ user: ids.user, view_id: z.string() }),
  home: z.object({ user: ids.user }),
  file: z.object({ ...ids, name: z.string().min(1).max(255), content_base64: z.string().min(1), comment: z.string().max(40_000).optional() }),
};

function outcomeJson(outcome: InteractionOutcome | undefined, extra: Json = {}): Json {
  if (!outcome) return { ok: true, ...extra };
  return {
    ok: !outcome.error,
    status: outcome.delivery.status,
    ...(outcome.error ? { error: outcome.error } : {}),
    ...(outcome.delivery.failure ? { failure: outcome.delivery.failure } : {}),
    ...extra,
  };
}

export class AdminApi {
  private readonly sseClients = new Set<ServerResponse>();

  constructor(private readonly deps: AdminDeps) {}

  /** Handles `/admin/...`; `path` is the part after `/admin`. */
  async handle(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    const user = query.get('user') ?? this.deps.options.defaultUser;
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    if (req.method === 'GET') {
      if (parts[0] === 'state') return sendJson(res, 200, this.workspace());
      if (parts[0] === 'events') return this.stream(req, res);
      if (parts[0] === 'channels' && parts[1] && parts[2] === 'messages') return this.channelMessages(res, parts[1], user, query.get('limit'));
      if (parts[0] === 'channels' && parts[1] && parts[2] === 'threads' && parts[3]) return this.threadMessages(res, parts[1], parts[3], user);
      if (parts[0] === 'home') return sendJson(res, 200, { view: this.viewOut(this.deps.state.homeView(user)) });
      if (parts[0] === 'modals') return sendJson(res, 200, { stack: this.deps.state.modalStack(user).map((v) => this.viewOut(v)) });
      if (parts[0] === 'calls') return sendJson(res, 200, { calls: this.deps.state.calls(query.get('method') ?? undefined) });
      if (parts[0] === 'files' && parts[1]) return this.fileBytes(res, parts[1]);
      return sendJson(res, 404, { ok: false, error: 'not_found' });
    }
    if (req.method !== 'POST') return sendJson(res, 405, { ok: false, error: 'method_not_allowed' });
    let body: unknown;
    try {
      const raw = await readRawBody(req, MAX_ADMIN_BODY);
      body = JSON.parse(raw.toString('utf8') || '{}');
    } catch (err) {
      const message = err instanceof BodyTooLargeError ? err.message : 'the body must be JSON';
      return sendJson(res, 400, { ok: false, error: message });
    }
    try {
      const result = await this.act(parts[0] ?? '', body);
      if (!result) return sendJson(res, 404, { ok: false, error: 'not_found' });
      return sendJson(res, 200, result);
    } catch (err) {
      if (err instanceof z.ZodError) {
        const issue = err.issues[0];
        return sendJson(res, 400, { ok: false, error: `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}` });
      }
      if (err instanceof InteractionError) return sendJson(res, 400, { ok: false, error: err.message, code: err.code });
      throw err;
    }
  }

  private async act(kind: string, body: unknown): Promise<Json | undefined> {
    const i = this.deps.interactions;
    switch (kind) {
      case 'command': {
        const b = SCHEMAS.command.parse(body);
        return outcomeJson(await i.slashCommand({ user: b.user, channel: b.channel, text: b.text, ...(b.command ? { command: b.command } : {}) }));
      }
      case 'message': {
        const b = SCHEMAS.message.parse(body);
        const out = await i.userMessage({ user: b.user, channel: b.channel, text: b.text, ...(b.thread_ts ? { threadTs: b.thread_ts } : {}) });
        // The message is posted whether or not the app answered the event.
        return { ...outcomeJson(out, { ts: out.ts }), ok: true };
      }
      case 'action': {
        const b = SCHEMAS.action.parse(body);
        const common = { user: b.user, actionId: b.action_id, ...(b.block_id ? { blockId: b.block_id } : {}), ...(b.selected !== undefined ? { selected: b.selected } : {}) };
        if ('view_id' in b) return outcomeJson(await i.viewAction({ ...common, viewId: b.view_id }));
        return outcomeJson(await i.messageAction({ ...common, channel: b.channel, messageTs: b.ts, ephemeral: b.ephemeral === true }));
      }
      case 'view-submission': {
        const b = SCHEMAS.submit.parse(body);
        const out = await i.submitView({ user: b.user, viewId: b.view_id, ...(b.values ? { values: b.values } : {}) });
        return outcomeJson(out, out.responseAction ? { response_action: out.responseAction } : {});
      }
      case 'view-close': {
        const b = SCHEMAS.close.parse(body);
        return outcomeJson(await i.closeView({ user: b.user, viewId: b.view_id }));
      }
      case 'home-opened': {
        const b = SCHEMAS.home.parse(body);
        return outcomeJson(await i.openHome({ user: b.user }));
      }
      case 'file': {
        const b = SCHEMAS.file.parse(body);
        const bytes = Buffer.from(b.content_base64, 'base64');
        const out = await i.shareFile({ user: b.user, channel: b.channel, name: b.name, bytes, ...(b.comment ? { comment: b.comment } : {}) });
        return { ...outcomeJson(out, { file_id: out.fileId, ts: out.ts }), ok: true };
      }
      default:
        return undefined;
    }
  }

  private workspace(): Json {
    const { state, options, bot } = this.deps;
    return {
      team: { id: options.teamId, domain: options.teamDomain },
      bot: { user_id: bot.userId, bot_id: bot.botId, app_id: bot.appId, name: bot.name },
      bots: state.bots().map((b) => ({ user_id: b.userId, name: b.name })),
      users: state.users().map((u) => ({ id: u.id, name: u.name, real_name: u.realName ?? u.name })),
      channels: state.channels().map((c) => ({
        id: c.id,
        name: c.name,
        purpose: c.purpose ?? '',
        is_private: c.isPrivate === true,
        message_count: state.messages(c.id).length,
        latest_ts: state.messages(c.id).at(-1)?.ts ?? null,
      })),
      command: options.command,
      default_user: options.defaultUser,
      request_url: this.deps.delivery.getRequestUrl() ?? null,
      version: state.version,
    };
  }

  private ephemeralJson(e: EphemeralMessage): Json {
    return {
      type: 'message',
      ts: e.ts,
      text: e.text,
      ...(e.blocks ? { blocks: e.blocks } : {}),
      ...(e.attachments ? { attachments: e.attachments } : {}),
      ...(e.thread_ts ? { thread_ts: e.thread_ts } : {}),
      user: e.source === 'command_echo' ? e.user : this.deps.bot.userId,
      is_ephemeral: true,
      ephemeral_source: e.source,
    };
  }

  /** The latest `limit` messages (and the person's ephemerals among them): a long demo stays light. */
  private channelMessages(res: ServerResponse, channelId: string, user: string, limitParam: string | null): void {
    const { state, options } = this.deps;
    const channel = state.channel(channelId);
    if (!channel) return sendJson(res, 404, { ok: false, error: 'channel_not_found' });
    const limit = Math.min(1000, Math.max(1, Number(limitParam ?? DEFAULT_MESSAGE_LIMIT) || DEFAULT_MESSAGE_LIMIT));
    const all = state.messages(channel.id);
    const shown = all.slice(-limit);
    const oldestShown = shown[0]?.ts ?? '0';
    const messages = shown.map((m) => messageJson(m, state, options.teamId));
    const ephemerals = state
      .ephemerals(channel.id, user)
      .filter((e) => !e.thread_ts && (all.length <= limit || e.ts >= oldestShown))
      .slice(-limit)
      .map((e) => this.ephemeralJson(e));
    sendJson(res, 200, { ok: true, channel: channel.id, messages, ephemerals, omitted: all.length - shown.length, version: state.version });
  }

  private threadMessages(res: ServerResponse, channelId: string, ts: string, user: string): void {
    const { state, options } = this.deps;
    const channel = state.channel(channelId);
    if (!channel) return sendJson(res, 404, { ok: false, error: 'channel_not_found' });
    const messages = state.thread(channel.id, ts).map((m) => messageJson(m, state, options.teamId));
    if (messages.length === 0) return sendJson(res, 404, { ok: false, error: 'thread_not_found' });
    const ephemerals = state.ephemerals(channel.id, user).filter((e) => e.thread_ts === ts).map((e) => this.ephemeralJson(e));
    sendJson(res, 200, { ok: true, channel: channel.id, messages, ephemerals });
  }

  private viewOut(view: StoredView | undefined): Json | null {
    if (!view) return null;
    return { ...viewJson(view), ...(view.errors ? { errors: view.errors } : {}) };
  }

  private fileBytes(res: ServerResponse, id: string): void {
    const file = this.deps.state.file(id);
    if (!file || !file.completed) return sendJson(res, 404, { ok: false, error: 'file_not_found' });
    // SVG can carry script: serve it as a download-only type so the chat view never executes it.
    const type = file.mimetype === 'image/svg+xml' ? 'application/octet-stream' : file.mimetype;
    res.writeHead(200, {
      'content-type': type,
      'content-length': file.bytes.length,
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'",
      'cache-control': 'private, max-age=3600',
    });
    res.end(file.bytes);
  }

  /** Server-sent events: one `change` event per state change, a comment every 15 s to keep it open. */
  private stream(req: IncomingMessage, res: ServerResponse): void {
    if (this.sseClients.size >= MAX_SSE_CLIENTS) return sendJson(res, 503, { ok: false, error: 'too_many_streams' });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    res.write(`event: hello\ndata: ${JSON.stringify({ version: this.deps.state.version })}\n\n`);
    const onChange = (change: StateChange & { version: number }): void => {
      res.write(`event: change\ndata: ${JSON.stringify(change)}\n\n`);
    };
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
    heartbeat.unref();
    this.deps.state.on('change', onChange);
    this.sseClients.add(res);
    const cleanup = (): void => {
      clearInterval(heartbeat);
      this.deps.state.off('change', onChange);
      this.sseClients.delete(res);
    };
    req.on('close', cleanup);
    res.on('close', cleanup);
  }

  /** Ends every open event stream (server shutdown). */
  closeStreams(): void {
    for (const res of this.sseClients) res.end();
    this.sseClients.clear();
  }
}
