/**
 * The one place that talks HTTP to a workspace: bearer auth, retries (Retry-After on 429/503, jittered
 * backoff on 5xx, network errors, timeouts and malformed bodies), a per-workspace concurrency limit,
 * typed errors, counters and log lines. The API modules (statements, pipelines, jobs) sit on top.
 */
import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import type { Logger } from '../observability/logger.js';
import { ClientStats, type ClientEvent, type RetryReason } from './client-stats.js';
import { errorFromResponse } from './error-body.js';
import { DatabricksApiError, DatabricksUnavailableError, errorKind, UnauthenticatedError } from './errors.js';
import { backoffDelay, DEFAULT_RETRY, mayResend, type RetryOptions } from './retry-policy.js';
import { Semaphore } from './semaphore.js';
import type { TokenProvider } from './token-provider.js';

export type QueryValue = string | number | boolean | undefined | null | Array<string | number>;

export interface RequestSpec {
  method: 'GET' | 'POST';
  /** Path starting with `/`, e.g. `/api/2.0/sql/statements`. */
  path: string;
  query?: Record<string, QueryValue>;
  /** JSON body. */
  body?: unknown;
  /** Form body (`application/x-www-form-urlencoded`), used by the token endpoint. */
  form?: Record<string, string>;
  /** Basic credentials instead of the bearer token (token endpoint). */
  basicAuth?: { username: string; password: string };
  /** False for a request that must not run twice (a statement submission): resent only when it cannot have been processed (`mayResend`). @defaultValue true */
  idempotent?: boolean;
}

export interface DatabricksHttpOptions {
  /** Workspace URL, e.g. `https://adb-123.4.azuredatabricks.net` or `http://127.0.0.1:port`. */
  host: string;
  auth: TokenProvider;
  /** Retry behaviour; see `RetryOptions` for each default. */
  retry?: Partial<RetryOptions>;
  /** Requests in flight at once against this workspace. @defaultValue 8 */
  maxConcurrent?: number;
  /** Per-attempt timeout. @defaultValue 30_000 */
  timeoutMs?: number;
  /** @defaultValue no logging */
  logger?: Logger;
  /** Called for every request, retry, error and token refresh. */
  onEvent?: (event: ClientEvent) => void;
  /** Test seams. @defaultValue real timers, Math.random, Date.now */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  now?: () => number;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Normalizes `adb-1.2.azuredatabricks.net`, `https://host/`, `http://127.0.0.1:1234` to an origin. */
export function normalizeHost(host: string): string {
  const trimmed = host.trim().replace(/\/+$/, '');
  return /^https?:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`;
}

export function buildQuery(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value) params.append(key, String(item));
    else params.append(key, String(value));
  }
  const text = params.toString().replace(/\+/g, '%20');
  return text ? `?${text}` : '';
}

interface Attempt {
  response?: AxiosResponse<string>;
  networkError?: { code: string; timeout: boolean };
}

export class DatabricksHttpClient {
  readonly host: string;
  readonly stats: ClientStats;
  private readonly axios: AxiosInstance;
  private readonly retry: RetryOptions;
  private readonly semaphore: Semaphore;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly logger: Logger | undefined;
  private readonly auth: TokenProvider;

  constructor(options: DatabricksHttpOptions) {
    this.host = normalizeHost(options.host);
    this.auth = options.auth;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.semaphore = new Semaphore(options.maxConcurrent ?? 8);
    this.sleep = options.sleep ?? realSleep;
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
    this.logger = options.logger;
    this.stats = new ClientStats(options.onEvent);
    this.axios = axios.create({
      baseURL: this.host,
      timeout: options.timeoutMs ?? 30_000,
      responseType: 'text',
      transformResponse: [(data: unknown) => data],
      validateStatus: () => true,
      maxRedirects: 0,
      headers: { 'User-Agent': 'streamdoctor/0.1.0', Accept: 'application/json' },
    });
  }

  /** Sends a request with auth and retries; resolves to the parsed JSON body (`{}` when empty). */
  async request<T>(spec: RequestSpec): Promise<T> {
    const endpoint = `${spec.method} ${spec.path}`;
    const started = this.now();
    let refreshedToken = false;
    for (let attempt = 1; ; attempt += 1) {
      const result = await this.attempt(spec);
      let error: DatabricksApiError;
      let reason: RetryReason | null = null;
      let delayMs = 0;
      const status = result.response?.status ?? 0;

      if (result.response && status >= 200 && status < 300) {
        const parsed = this.parseJson(result.response.data);
        if (parsed.ok) return parsed.value as T;
        error = new DatabricksUnavailableError(`Databricks ${endpoint} answered ${status} with a body that is not JSON`, {
          errorCode: 'MALFORMED_RESPONSE',
          httpStatus: status,
          endpoint,
        });
        reason = 'malformed';
      } else if (result.response) {
        error = errorFromResponse(
          { status, headers: result.response.headers as Record<string, unknown>, body: String(result.response.data ?? ''), endpoint },
          this.now(),
        );
        const tokenRejected = error instanceof UnauthenticatedError && error.credentialsRejected;
        if (tokenRejected && !spec.basicAuth && !refreshedToken && this.auth.invalidate()) {
          // An OAuth token can expire early or be revoked (401, or 403 / 400 saying so): fetch a new one once, right away.
          refreshedToken = true;
          this.stats.record({ type: 'retry', method: spec.method, path: spec.path, reason: 'token_expired', attempt, delayMs: 0, status });
          this.stats.record({ type: 'token_refresh', reason: 'rejected' });
          this.logger?.warn({ endpoint, status }, 'databricks rejected the OAuth token; fetching a new one');
          continue;
        }
        if (status === 429) reason = 'rate_limited';
        else if (status === 503) reason = 'unavailable';
        else if (status >= 500) reason = 'server_error';
        if (reason === 'rate_limited' || reason === 'unavailable') {
          delayMs = error.retryAfterMs ?? (reason === 'rate_limited' ? this.retry.defaultRetryAfterMs : backoffDelay(attempt, this.retry, this.random));
        } else if (reason) {
          delayMs = backoffDelay(attempt, this.retry, this.random);
        }
      } else {
        const net = result.networkError!;
        reason = net.timeout ? 'timeout' : 'network';
        error = new DatabricksUnavailableError(
          net.timeout ? `Databricks ${endpoint} did not answer in time` : `Databricks ${endpoint} could not be reached (${net.code})`,
          { errorCode: net.timeout ? 'TIMEOUT' : net.code, httpStatus: 0, endpoint },
        );
      }
      if (reason === 'malformed' || reason === 'timeout' || reason === 'network') delayMs = backoffDelay(attempt, this.retry, this.random);
      // Sending again what may have been processed would run it twice.
      if (reason && spec.idempotent === false && !mayResend(reason, { retryAfterMs: error.retryAfterMs, networkCode: result.networkError?.code })) reason = null;

      const elapsed = this.now() - started;
      if (!reason || attempt >= this.retry.maxAttempts || elapsed + delayMs > this.retry.budgetMs) {
        throw this.giveUp(error, spec, attempt, reason !== null);
      }
      this.stats.record({ type: 'retry', method: spec.method, path: spec.path, reason, attempt, delayMs, status });
      this.logger?.warn(
        { endpoint, status, reason, attempt, delayMs, errorCode: error.errorCode, requestId: error.requestId },
        `databricks request failed (${reason}); retrying in ${delayMs}ms`,
      );
      await this.sleep(delayMs);
    }
  }

  private giveUp(final: DatabricksApiError, spec: RequestSpec, attempts: number, wasRetryable: boolean): DatabricksApiError {
    const kind = errorKind(final);
    this.stats.record({ type: 'error', method: spec.method, path: spec.path, kind, status: final.httpStatus, errorCode: final.errorCode });
    this.logger?.error(
      { endpoint: `${spec.method} ${spec.path}`, status: final.httpStatus, errorCode: final.errorCode, kind, attempts, requestId: final.requestId, code: final.code },
      wasRetryable ? `databricks request gave up after ${attempts} attempt(s): ${final.message}` : `databricks request failed: ${final.message}`,
    );
    return final;
  }

  private parseJson(data: unknown): { ok: true; value: unknown } | { ok: false } {
    if (data === undefined || data === null || data === '') return { ok: true, value: {} };
    if (typeof data !== 'string') return { ok: true, value: data };
    try {
      const value = JSON.parse(data);
      return value !== null && typeof value === 'object' ? { ok: true, value } : { ok: false };
    } catch {
      return { ok: false };
    }
  }

  private async attempt(spec: RequestSpec): Promise<Attempt> {
    const headers: Record<string, string> = {};
    if (spec.basicAuth) {
      headers.Authorization = `Basic ${Buffer.from(`${spec.basicAuth.username}:${spec.basicAuth.password}`).toString('base64')}`;
    } else {
      headers.Authorization = `Bearer ${await this.auth.getToken()}`;
    }
    let data: string | undefined;
    if (spec.form) {
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      data = new URLSearchParams(spec.form).toString();
    } else if (spec.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      data = JSON.stringify(spec.body);
    }
    return this.semaphore.run(async () => {
      const started = this.now();
      this.stats.enter();
      try {
        const response = await this.axios.request<string>({ method: spec.method, url: spec.path + buildQuery(spec.query), headers, data });
        this.stats.record({ type: 'request', method: spec.method, path: spec.path, status: response.status, durationMs: this.now() - started });
        return { response };
      } catch (error) {
        // Only the code travels on: axios errors hold the request config, headers included.
        const code = (error as { code?: string }).code ?? 'UNKNOWN';
        const timeout = code === 'ECONNABORTED' || code === 'ETIMEDOUT' || /timeout/i.test(String((error as Error).message));
        this.stats.record({ type: 'request', method: spec.method, path: spec.path, status: 0, durationMs: this.now() - started });
        return { networkError: { code, timeout } };
      } finally {
        this.stats.leave();
      }
    });
  }
}
