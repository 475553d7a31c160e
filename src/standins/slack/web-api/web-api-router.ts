/**
 * `/api/<method>`: authenticates the bearer token, parses the body (JSON, form or multipart, plus
 * query parameters), runs the method and answers as Slack does: HTTP 200 with `ok` true or false,
 * HTTP 429 with `Retry-After` when rate limited. Every call lands in the call log, token removed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLargeError, parseArgs, readRawBody, sendJson } from '../http-body.js';
import type { Json } from '../types.js';
import type { MethodContext } from './method-context.js';
import { SlackMethodError } from './method-error.js';
import { SlackRateLimitedError } from './rate-limited-error.js';
import { WEB_API_METHODS } from './methods.js';
import { METHOD_SCOPES, requireScope } from './scopes.js';
import { faultRunsMethod, type SlackFaultInjector } from '../faults.js';
import type { MethodBudgets } from '../method-budgets.js';

export type RouterDeps = Omit<MethodContext, 'bot' | 'args' | 'binary'> & {
  /** Faults injected on demand (src/standins/slack/faults.ts). @defaultValue none */
  faults?: SlackFaultInjector;
  /** Each method's budget per workspace and app (its rate tier); undefined when rate limits are off. */
  methodBudgets?: MethodBudgets | undefined;
};

const MAX_API_BODY = 5 * 1024 * 1024;

function bearer(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1];
}

export async function handleWebApi(
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  query: URLSearchParams,
  deps: RouterDeps,
): Promise<void> {
  const at = deps.now();
  let loggedArgs: Json = {};
  const answer = (status: number, body: Json, headers: Record<string, string> = {}): void => {
    deps.state.logCall({
      method,
      at,
      args: loggedArgs,
      ok: body.ok === true,
      ...(typeof body.error === 'string' ? { error: body.error } : {}),
      status,
    });
    sendJson(res, status, body, headers);
  };

  let args: Record<string, unknown> = {};
  let binary: Record<string, Buffer> = {};
  let format = 'empty';
  try {
    const raw = await readRawBody(req, MAX_API_BODY);
    const parsed = await parseArgs(req.headers['content-type'], raw);
    args = parsed.args;
    binary = parsed.binary;
    format = parsed.format;
  } catch (err) {
    if (err instanceof BodyTooLargeError) return answer(200, { ok: false, error: 'request_too_large' });
    return answer(200, { ok: false, error: 'invalid_json' });
  }
  for (const [key, value] of query) if (!(key in args)) args[key] = value;
  const { token: bodyToken, ...withoutToken } = args;
  loggedArgs = withoutToken;

  const handler = Object.hasOwn(WEB_API_METHODS, method) ? WEB_API_METHODS[method] : undefined;
  if (!handler) return answer(200, { ok: false, error: 'unknown_method' });

  // JSON bodies must carry the token in the Authorization header; form bodies may carry it as a field.
  const token = bearer(req) ?? (format !== 'json' && typeof bodyToken === 'string' ? bodyToken : undefined);
  if (!token) return answer(200, { ok: false, error: 'not_authed' });
  const bot = deps.state.botByToken(token);
  if (!bot) return answer(200, { ok: false, error: 'invalid_auth' });

  // Every authenticated call spends its method's budget, and one past it is refused before it runs.
  const budget = deps.methodBudgets?.take(method, `${deps.options.teamId}:${bot.appId}`);
  if (budget && !budget.allowed) return answer(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(budget.retryAfterSec) });

  const fault = deps.faults?.take(method, typeof withoutToken.channel === 'string' ? withoutToken.channel : undefined) ?? null;
  if (fault && !faultRunsMethod(fault.kind)) {
    // Refused before the method ran, as Slack's 429s and 5xx answers are.
    if (fault.kind === 'rate_limit') {
      return answer(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(Math.max(1, Math.ceil(fault.retryAfterSec ?? 1))) });
    }
    if (fault.kind === 'unavailable') {
      return answer(503, { ok: false, error: 'service_unavailable' }, fault.retryAfterSec ? { 'retry-after': String(Math.max(1, Math.ceil(fault.retryAfterSec))) } : {});
    }
    return answer(500, { ok: false, error: 'fatal_error' });
  }

  let status = 200;
  let body: Json;
  let headers: Record<string, string> = {};
  try {
    requireScope(bot, ...(METHOD_SCOPES[method] ?? []));
    const result = await handler({ ...deps, bot, args: withoutToken, binary });
    body = { ok: true, ...result };
  } catch (err) {
    if (err instanceof SlackRateLimitedError) {
      status = 429;
      body = { ok: false, error: 'ratelimited' };
      headers = { 'retry-after': String(err.retryAfterSec) };
    } else if (err instanceof SlackMethodError) {
      body = { ok: false, error: err.error, ...err.extra };
    } else {
      // A bug in the stand-in: say so in the answer rather than crash the server.
      body = { ok: false, error: 'internal_error', detail: err instanceof Error ? err.message : String(err) };
    }
  }
  // Faults after the method ran: the work is done, the caller does not learn it (or learns it late).
  if (fault?.kind === 'server_error_after') return answer(500, { ok: false, error: 'fatal_error' });
  if (fault?.kind === 'reset_after') {
    deps.state.logCall({ method, at, args: loggedArgs, ok: false, error: 'connection_reset', status: 0 });
    return void req.socket.destroy();
  }
  if (fault?.kind === 'slow') await new Promise((r) => setTimeout(r, fault.delayMs ?? 2000));
  return answer(status, body, headers);
}
