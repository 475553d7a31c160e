/**
 * The local Slack: one HTTP server on loopback that serves the Web API (`/api/<method>`), the file
 * upload URLs, response_urls, private file downloads, the chat view (`/`) and its admin API, and
 * that delivers signed requests into the app. `startLocalSlack` returns a handle with a typed API
 * over everything it keeps.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AdminApi } from './admin-api.js';
import { AppInteractions } from './app-interactions.js';
import { isChatViewAsset, serveChatViewAsset } from './chat-view/static-assets.js';
import { BodyTooLargeError, parseArgs, readRawBody, sendJson } from './http-body.js';
import { resolveOptions, type LocalSlackOptions, type ResolvedOptions } from './options.js';
import { EventRedelivery } from './event-redelivery.js';
import { SlackFaultInjector } from './faults.js';
import { MethodBudgets } from './method-budgets.js';
import { ChannelRateLimiter } from './rate-limiter.js';
import { ResponseUrls } from './response-urls.js';
import { SlackDelivery } from './slack-delivery.js';
import { SlackState } from './slack-state.js';
import { TriggerIds } from './trigger-ids.js';
import type {
  ApiCallRecord,
  BotIdentity,
  EphemeralMessage,
  ResponseUrlRecord,
  StoredFile,
  StoredMessage,
  StoredView,
} from './types.js';
import { MAX_UPLOAD_BYTES, receiveUpload } from './web-api/files-methods.js';
import { handleWebApi } from './web-api/web-api-router.js';

export class LocalSlack {
  readonly state: SlackState;
  readonly delivery: SlackDelivery;
  readonly interactions: AppInteractions;
  readonly responseUrls: ResponseUrls;
  readonly triggers: TriggerIds;
  readonly options: ResolvedOptions;
  /** Web API faults on demand: 429 storms, 5xx, slow answers, resets (see faults.ts). */
  readonly faults = new SlackFaultInjector();
  /** The app's bot (first configured bot). */
  readonly bot: BotIdentity;
  /** Redeliveries of events the app did not take; `settled()` waits for them. */
  readonly eventRedelivery: EventRedelivery;
  private readonly server: Server;
  private readonly admin: AdminApi;
  private readonly rateLimiter: ChannelRateLimiter | undefined;
  private readonly methodBudgets: MethodBudgets | undefined;
  private baseUrl = '';

  constructor(options: LocalSlackOptions = {}) {
    this.options = resolveOptions(options);
    const { now } = this.options;
    this.bot = this.options.bots[0]!;
    this.state = new SlackState({ channels: this.options.channels, users: this.options.users, bots: this.options.bots });
    this.triggers = new TriggerIds(this.state.ids, now);
    this.responseUrls = new ResponseUrls(this.state, this.bot, () => this.baseUrl, now);
    this.delivery = new SlackDelivery({ requestUrl: this.options.requestUrl, signingSecret: this.options.signingSecret, now });
    this.eventRedelivery = new EventRedelivery(this.delivery, this.options.eventRetryDelaysMs);
    this.rateLimiter = this.options.rateLimit === false ? undefined : new ChannelRateLimiter({ ...this.options.rateLimit, now });
    this.methodBudgets = this.options.rateLimit === false ? undefined : new MethodBudgets(this.options.rateLimit.methodsPerMinute, now);
    this.interactions = new AppInteractions({
      state: this.state,
      delivery: this.delivery,
      eventRedelivery: this.eventRedelivery,
      responseUrls: this.responseUrls,
      triggers: this.triggers,
      options: this.options,
      bot: this.bot,
      baseUrl: () => this.baseUrl,
      now,
    });
    this.admin = new AdminApi({
      state: this.state,
      interactions: this.interactions,
      delivery: this.delivery,
      options: this.options,
      bot: this.bot,
      baseUrl: () => this.baseUrl,
    });
    this.server = createServer((req, res) => {
      this.route(req, res).catch((err: unknown) => {
        // Never let one request take the server down.
        if (res.headersSent) return void res.end();
        if (err instanceof URIError) return sendJson(res, 400, { ok: false, error: 'bad_url_encoding' });
        sendJson(res, 500, { ok: false, error: 'internal_error', detail: err instanceof Error ? err.message : String(err) });
      });
    });
  }

  /** Base URL, e.g. http://127.0.0.1:43123 (no trailing slash). */
  get url(): string {
    return this.baseUrl;
  }

  /** The Web API base for `slackApiUrl` / SLACK_API_URL: `${url}/api/`. */
  get apiUrl(): string {
    return `${this.baseUrl}/api/`;
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port, this.options.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const address = this.server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    this.baseUrl = `http://${host}:${address.port}`;
    return this;
  }

  async close(): Promise<void> {
    this.eventRedelivery.close();
    this.admin.closeStreams();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Where signed requests go (the app's /slack/events). */
  setRequestUrl(url: string | undefined): void {
    this.delivery.setRequestUrl(url);
  }

  // ── reading back what the app did ─────────────────────────────────────────────────────────────
  /** Top-level messages of a channel (id or name), oldest first; every channel when omitted. */
  messages(channel?: string): StoredMessage[] {
    if (!channel) return this.state.allMessages();
    const found = this.state.channel(channel);
    return found ? this.state.messages(found.id) : [];
  }

  /** A thread: the parent then its replies. */
  thread(channel: string, ts: string): StoredMessage[] {
    const found = this.state.channel(channel);
    return found ? this.state.thread(found.id, ts) : [];
  }

  /** Ephemeral messages the app sent (command echoes excluded), optionally for one channel and user. */
  ephemerals(channel?: string, user?: string): EphemeralMessage[] {
    const id = channel ? (this.state.channel(channel)?.id ?? channel) : undefined;
    return this.state.ephemerals(id, user).filter((e) => e.source !== 'command_echo');
  }

  /** Every view: Home tabs and modals. */
  views(): StoredView[] {
    return this.state.views();
  }

  homeView(user: string): StoredView | undefined {
    return this.state.homeView(user);
  }

  /** The user's open modals, bottom first. */
  modals(user: string): StoredView[] {
    return this.state.modalStack(user);
  }

  files(): StoredFile[] {
    return this.state.files();
  }

  /** The Web API call log (tokens removed), optionally for one method. */
  calls(method?: string): ApiCallRecord[] {
    return this.state.calls(method);
  }

  /** response_urls handed out and what was posted to them. */
  responses(): ResponseUrlRecord[] {
    return this.responseUrls.all();
  }

  /**
   * Resolves with the first message matching `predicate` (checked now and on every change), or
   * rejects after `timeoutMs`. For tests and demo scripts.
   */
  waitForMessage(predicate: (m: StoredMessage) => boolean, timeoutMs = 5000): Promise<StoredMessage> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const hit = this.state.allMessages().find(predicate);
        if (hit) {
          cleanup();
          resolve(hit);
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`streamdoctor_local_slack_timeout: no matching message within ${timeoutMs} ms`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.state.off('change', check);
      };
      this.state.on('change', check);
      check();
    });
  }

  // ── HTTP ─────────────────────────────────────────────────────────────────────────────────────
  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://local');
    const path = url.pathname;
    if (path.startsWith('/api/')) {
      if (req.method !== 'POST' && req.method !== 'GET') return sendJson(res, 405, { ok: false, error: 'method_not_allowed' });
      return handleWebApi(req, res, path.slice('/api/'.length), url.searchParams, {
        state: this.state,
        options: this.options,
        triggers: this.triggers,
        rateLimiter: this.rateLimiter,
        methodBudgets: this.methodBudgets,
        baseUrl: this.baseUrl,
        now: this.options.now,
        faults: this.faults,
      });
    }
    if (path.startsWith('/upload/v1/') && req.method === 'POST') return this.upload(req, res, path.slice('/upload/v1/'.length));
    if (path.startsWith('/response/') && req.method === 'POST') return this.response(req, res, path.slice('/response/'.length));
    if (path.startsWith('/files-pri/') && req.method === 'GET') return this.privateFile(req, res, path);
    if (path.startsWith('/admin/')) return this.admin.handle(req, res, path.slice('/admin'.length), url.searchParams);
    if (path.startsWith('/archives/')) {
      // Permalinks open the chat view at the message.
      const [, , channel, p] = path.split('/');
      const ts = p?.startsWith('p') ? `${p.slice(1, -6)}.${p.slice(-6)}` : '';
      res.writeHead(302, { location: `/#channel=${encodeURIComponent(channel ?? '')}&ts=${encodeURIComponent(ts)}` });
      return void res.end();
    }
    if (req.method === 'GET' && (path === '/' || path === '/index.html')) return serveChatViewAsset(res, 'index.html');
    if (req.method === 'GET' && path.startsWith('/assets/') && isChatViewAsset(path.slice('/assets/'.length))) {
      return serveChatViewAsset(res, path.slice('/assets/'.length));
    }
    if (path === '/healthz') return sendJson(res, 200, { ok: true });
    sendJson(res, 404, { ok: false, error: 'not_found' });
  }

  /** The upload URL from files.getUploadURLExternal: raw bytes or a multipart body. */
  private async upload(req: IncomingMessage, res: ServerResponse, fileId: string): Promise<void> {
    let bytes: Buffer;
    try {
      const raw = await readRawBody(req, MAX_UPLOAD_BYTES);
      const type = (req.headers['content-type'] ?? '').toLowerCase();
      if (type.startsWith('multipart/form-data')) {
        const parsed = await parseArgs(req.headers['content-type'], raw);
        const first = Object.values(parsed.binary)[0];
        bytes = first ?? Buffer.from(String(Object.values(parsed.args)[0] ?? ''), 'utf8');
      } else {
        bytes = raw;
      }
    } catch (err) {
      const status = err instanceof BodyTooLargeError ? 413 : 400;
      res.writeHead(status, { 'content-type': 'text/plain' });
      return void res.end(err instanceof Error ? err.message : 'bad upload');
    }
    this.state.logCall({ method: 'upload', at: this.options.now(), args: { file_id: fileId, bytes: bytes.length }, ok: true, status: 200 });
    if (bytes.length === 0 || !receiveUpload(this.state, decodeURIComponent(fileId), bytes)) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return void res.end('file not found or already completed');
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`OK - ${bytes.length}`);
  }

  private async response(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
    let body: unknown;
    try {
      const raw = await readRawBody(req, 5 * 1024 * 1024);
      const type = (req.headers['content-type'] ?? '').toLowerCase();
      const text = raw.toString('utf8');
      body = type.startsWith('application/x-www-form-urlencoded')
        ? JSON.parse(new URLSearchParams(text).get('payload') ?? 'null')
        : JSON.parse(text);
    } catch {
      body = undefined;
    }
    const outcome = this.responseUrls.respond(decodeURIComponent(id), body);
    this.state.logCall({ method: 'response_url', at: this.options.now(), args: (body ?? {}) as Record<string, unknown>, ok: outcome.status === 200, ...(typeof outcome.body.error === 'string' ? { error: outcome.body.error } : {}), status: outcome.status });
    sendJson(res, outcome.status, outcome.body);
  }

  /** url_private: needs a bot token, like Slack. */
  private privateFile(req: IncomingMessage, res: ServerResponse, path: string): void {
    const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!token || !this.state.botByToken(token)) {
      res.writeHead(403, { 'content-type': 'text/plain' });
      return void res.end('a bot token is required (Authorization: Bearer xoxb-…)');
    }
    const match = /^\/files-pri\/[A-Z0-9]+-([A-Z0-9]+)\//.exec(path);
    const file = match ? this.state.file(match[1]!) : undefined;
    if (!file || !file.completed) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return void res.end('file not found');
    }
    res.writeHead(200, { 'content-type': file.mimetype, 'content-length': file.bytes.length });
    res.end(file.bytes);
  }
}

/** Starts a local Slack on loopback (port 0 by default) and resolves once it listens. */
export async function startLocalSlack(options: LocalSlackOptions = {}): Promise<LocalSlack> {
  return new LocalSlack(options).listen();
}
