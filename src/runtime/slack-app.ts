/**
 * The Slack app factory: Bolt 5 with the HTTP receiver (POST /slack/events serves commands,
 * interactivity and events, signatures verified, requests dated over 5 minutes from now rejected) or Socket
 * Mode when an app-level token is given. Tokens come in as options (read from the environment by
 * src/config); the Web API base URL can point at the local Slack (`slackApiUrl`).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';
import { App, HTTPModuleFunctions, HTTPReceiver, isValidSlackRequest, webApi, type Authorize, type CustomRoute } from '@slack/bolt';
import { registerHandlers } from '../../handlers/index.js';
import type { Logger } from '../observability/logger.js';
import { redactSecrets } from '../observability/logger.js';
import { singleWorkspaceAuthorize } from '../slack/authorize.js';
import { replyToAuthFailure } from '../slack/auth-failure-reply.js';
import { boltLogger } from '../slack/bolt-logger.js';
import type { SlackDeps } from '../slack/deps.js';
import { InFlightListeners } from '../slack/in-flight.js';
import { ConfigError } from '../util/errors.js';
import { endConnections } from './http-routes.js';

export class SlackAppConfigError extends ConfigError {
  constructor(problem: string) {
    super([problem], problem);
  }
}

export interface SlackAppOptions {
  /** SLACK_SIGNING_SECRET; required in HTTP mode. */
  signingSecret?: string;
  /** SLACK_BOT_TOKEN (`xoxb-…`); required unless `authorize` is given. */
  botToken?: string;
  /** SLACK_APP_TOKEN (`xapp-…`); when set the app uses Socket Mode. */
  appToken?: string;
  /** Replaces single-workspace auth (multi-workspace OAuth later). */
  authorize?: Authorize<boolean>;
  /** SLACK_API_URL: Web API base, e.g. `http://127.0.0.1:4010/api/`. @defaultValue Slack's */
  slackApiUrl?: string;
  /** Timeout of each Web API call the app makes (handlers, auth.test). @defaultValue 10000 */
  slackTimeoutMs?: number;
  /** Extra HTTP routes on the same server (`/healthz`, `/metrics`). */
  customRoutes?: CustomRoute[];
  /**
   * Port of the HTTP server. In Socket Mode Bolt still serves `customRoutes` over HTTP, on this port.
   * @defaultValue 3000
   */
  port?: number;
  /**
   * Use Socket Mode.
   * @defaultValue true when `appToken` is set
   */
  socketMode?: boolean;
  /**
   * How long `stop()` waits for listeners still working after their ack (a digest being posted, a
   * mute being applied) before it returns. Keep it under the process shutdown deadline.
   * @defaultValue 5000
   */
  drainTimeoutMs?: number;
  /**
   * How long `stop()` lets a request still being received or answered go on before its connection
   * is closed (idle connections are closed at once). @defaultValue 3000
   */
  requestGraceMs?: number;
  logger: Logger;
  deps: SlackDeps;
  /**
   * Registers the listeners.
   * @defaultValue every handler under handlers/
   */
  register?: (app: App, deps: SlackDeps) => void;
}

export interface SlackAppHandle {
  app: App;
  mode: 'http' | 'socket';
  /**
   * Starts listening; resolves to the bound port in HTTP mode (0 picks a free one). `host` is the
   * interface to bind (`127.0.0.1` keeps a local setup off the network). @defaultValue all interfaces
   */
  start(port?: number, host?: string): Promise<{ port: number | null }>;
  stop(): Promise<void>;
}

/**
 * Web API client options of the app (handlers, `auth.test`): every call bounded in time, and at most
 * two quick retries, so a hung or failing Slack answers the person in seconds instead of holding a
 * listener (and the shared auth.test every request waits for) for the SDK's default half hour.
 */
export function slackClientOptions(slackApiUrl?: string, timeoutMs = 10_000): webApi.WebClientOptions {
  return {
    ...(slackApiUrl ? { slackApiUrl: slackApiUrl.endsWith('/') ? slackApiUrl : `${slackApiUrl}/` } : {}),
    timeout: timeoutMs,
    retryConfig: { retries: 2, factor: 2, minTimeout: 200, maxTimeout: 1000, randomize: true },
  };
}

/**
 * Largest body of a Slack request (a command with pasted JSON, an interaction, an event: kilobytes,
 * a 40,000-character message at most): far below Bolt's 4 MB, so requests that are never finished
 * cannot hold much memory each.
 */
const SLACK_BODY_LIMIT = 1024 * 1024;
/** Slack's window for a request's timestamp, either way: a clock ahead or behind widens no replay window. */
const SIGNED_WITHIN_SEC = 5 * 60;
/** A request still being received after this long is cut off: Slack gives up on its own after 3 s. */
const REQUEST_TIMEOUT_MS = 10_000;

/** Answers `status` and closes the connection, without reading a body the request may still send. */
function refuse(res: ServerResponse, status: number): void {
  res.setHeader('Connection', 'close');
  // Node would otherwise keep the connection until the unread body arrives.
  res.once('finish', () => res.socket?.destroySoon());
  HTTPModuleFunctions.buildNoBodyResponse(res, status);
}

/**
 * Guards POST /slack/events before Bolt sees it. Refused before the body is read: a request without
 * Slack's signature headers, or dated more than 5 minutes from now either way (Bolt checks only the
 * past), 401; a declared body over SLACK_BODY_LIMIT, 413. Then 400 for a signed body that is JSON but
 * not an object (`null`, `[]`, `"x"`, `1`): Bolt reads `body.ssl_check` on whatever JSON.parse
 * returned, and on `null` that throws outside any handler, an unhandled rejection that ends the
 * process (src/runtime/shutdown.ts). The body is buffered here; Bolt reuses the buffer (`rawBody`)
 * and verifies the signature itself.
 */
function guardRequests(receiver: HTTPReceiver, signingSecret: string, logger: Logger): void {
  const next = receiver.requestListener;
  const shapeOf = (req: IncomingMessage, text: string): 'object' | 'other' | 'unreadable' => {
    try {
      let value: unknown;
      if (req.headers['content-type'] === 'application/x-www-form-urlencoded') {
        const { payload } = parseQueryString(text);
        if (typeof payload !== 'string') return 'object';
        value = JSON.parse(payload);
      } else {
        value = JSON.parse(text);
      }
      return value !== null && typeof value === 'object' && !Array.isArray(value) ? 'object' : 'other';
    } catch {
      return 'unreadable'; // Bolt answers a malformed body 400 itself
    }
  };
  receiver.requestListener = (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== '/slack/events') return next(req, res);
    const signature = req.headers['x-slack-signature'];
    const timestamp = Number(req.headers['x-slack-request-timestamp']);
    if (typeof signature !== 'string' || !Number.isSafeInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > SIGNED_WITHIN_SEC) {
      // Debug only: whoever sends these could otherwise fill the logs.
      logger.debug('slack request refused: no signature, or dated outside 5 minutes of now');
      refuse(res, 401);
      return;
    }
    if (Number(req.headers['content-length']) > SLACK_BODY_LIMIT) {
      refuse(res, 413);
      return;
    }
    HTTPModuleFunctions.bufferIncomingMessage(req, SLACK_BODY_LIMIT).then(
      (buffered) => {
        const text = buffered.rawBody.toString();
        const signed = isValidSlackRequest({ signingSecret, body: text, headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': timestamp } });
        if (signed && shapeOf(req, text) === 'other') {
          logger.warn('slack request refused: its body is JSON but not an object');
          HTTPModuleFunctions.buildNoBodyResponse(res, 400);
          return;
        }
        next(buffered, res);
      },
      (err: unknown) => {
        // Too large or cut off: what Bolt would answer for the same (413, else 400).
        const tooLarge = HTTPModuleFunctions.isRawBodyError(err) && (err as { statusCode?: number }).statusCode === 413;
        if (!res.headersSent) refuse(res, tooLarge ? 413 : 400);
      },
    );
  };
}

export function createSlackApp(options: SlackAppOptions): SlackAppHandle {
  const socketMode = options.socketMode ?? Boolean(options.appToken);
  if (!options.botToken && !options.authorize) throw new SlackAppConfigError('set SLACK_BOT_TOKEN (xoxb-…) or pass an authorize function');
  if (!socketMode && !options.signingSecret) throw new SlackAppConfigError('set SLACK_SIGNING_SECRET (Basic Information → App Credentials) so requests can be verified');
  if (socketMode && !options.appToken) throw new SlackAppConfigError('Socket Mode needs SLACK_APP_TOKEN (xapp-…, scope connections:write)');
  const clientOptions = slackClientOptions(options.slackApiUrl, options.slackTimeoutMs);
  const logger = options.logger;
  // HTTP mode: Bolt's receiver, built here so its request listener can be guarded (guardBodyShape).
  const receiver = socketMode
    ? undefined
    : new HTTPReceiver({
        signingSecret: options.signingSecret!,
        customRoutes: options.customRoutes ?? [],
        // Listeners ack first and answer through response_url / the Web API, so Slack gets its 200 fast.
        processBeforeResponse: false,
        logger: boltLogger(logger),
      });
  if (receiver) guardRequests(receiver, options.signingSecret!, logger);
  const warmAuthorize = options.authorize ? null : singleWorkspaceAuthorize(options.botToken!, clientOptions);
  const app = new App({
    ...(socketMode ? { socketMode: true, appToken: options.appToken, ...(options.port !== undefined ? { port: options.port } : {}) } : {}),
    ...(receiver ? { receiver } : {}),
    authorize: options.authorize ?? warmAuthorize!,
    clientOptions,
    logger: boltLogger(logger),
    customRoutes: options.customRoutes ?? [],
    // Listeners ack first and answer through response_url / the Web API, so Slack gets its 200 fast.
    processBeforeResponse: false,
    // The error handler gets the request body, so a failed authorization can still answer the person.
    extendedErrorHandler: true,
  });
  // With extendedErrorHandler Bolt passes { error, body, context, logger } (its type is not exported).
  app.error(async (args: { error: Error & { code?: string }; body?: unknown }) => {
    const { error, body } = args;
    const original = (error as { original?: unknown }).original ?? error;
    logger.error({ err: original, code: (error as { code?: string }).code }, `slack app error: ${redactSecrets((original as Error)?.message ?? String(original))}`);
    if ((error as { code?: string }).code === 'slack_bolt_authorization_error') {
      replyToAuthFailure(body, original, { logger, slackApiUrl: clientOptions.slackApiUrl });
    }
  });
  const inFlight = new InFlightListeners();
  // Global middleware: `next()` settles when the listeners have finished, long after the ack.
  app.use(async ({ next }) => inFlight.track(next()));
  (options.register ?? registerHandlers)(app, options.deps);

  let server: Server | null = null;
  return {
    app,
    mode: socketMode ? 'socket' : 'http',
    async start(port = options.port ?? 3000, host?: string) {
      // auth.test now, not at the first request, which would wait on it past Slack's 3 s.
      warmAuthorize?.warm().catch((error: unknown) => logger.warn({ err: error }, `slack auth.test at start failed: ${redactSecrets((error as Error).message)}`));
      if (socketMode) {
        await app.start();
        logger.info('slack app connected in Socket Mode');
        return { port: null };
      }
      server = (await (host ? app.start({ port, host }) : app.start(port))) as Server;
      // Node's defaults hold a stalled request for 5 minutes (headers 1 minute).
      server.requestTimeout = REQUEST_TIMEOUT_MS;
      server.headersTimeout = REQUEST_TIMEOUT_MS;
      const bound = (server.address() as AddressInfo | null)?.port ?? port;
      logger.info({ port: bound }, 'slack app listening on POST /slack/events');
      return { port: bound };
    },
    async stop() {
      // Bolt's stop waits for every open connection; a client that stalls mid-request (or a kept-alive
      // idle one) would hold it until the process deadline. Slack's requests take ~3 s at most.
      const stopping = app.stop();
      const cancel = server ? endConnections(server, options.requestGraceMs ?? 3_000) : () => undefined;
      await stopping.finally(cancel);
      server = null;
      // No new requests come in now; let the ones already acknowledged finish their answers.
      const left = await inFlight.drain(options.drainTimeoutMs ?? 5000);
      if (left > 0) logger.warn({ left }, 'slack app stopped with listeners still running');
    },
  };
}
