/** When and how long to wait before trying a Databricks request again. */
import type { RetryReason } from './client-stats.js';

export interface RetryOptions {
  /** Attempts per request, the first included. @defaultValue 6 */
  maxAttempts: number;
  /** Total time a request may spend, waits included, before it gives up. @defaultValue 120_000 */
  budgetMs: number;
  /** First backoff for 5xx, network errors and timeouts; doubles each attempt. @defaultValue 500 */
  baseDelayMs: number;
  /** Longest backoff between two attempts (Retry-After is honoured above it, within the budget). @defaultValue 10_000 */
  maxDelayMs: number;
  /** Wait on 429/503 when the server gives no Retry-After (what Databricks SDKs assume). @defaultValue 1_000 */
  defaultRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxAttempts: 6,
  budgetMs: 120_000,
  baseDelayMs: 500,
  maxDelayMs: 10_000,
  defaultRetryAfterMs: 1_000,
};

/** Exponential backoff with jitter in [50 %, 100 %] of the step, so clients that failed together spread out. */
export function backoffDelay(attempt: number, options: RetryOptions, random: () => number): number {
  const step = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(step * (0.5 + random() * 0.5));
}

/** Network errors raised before the request left this process: DNS failed, or no connection was made. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Whether a failed attempt of a request that must not run twice (a statement submission: the API
 * takes no idempotency key) may be sent again: only when it cannot have been processed. A 429, and a
 * 503 that says when to come back, refuse it before any work (reference §2h); a connection never
 * made carried nothing. A timeout, a reset, another 5xx or an unreadable 2xx may follow a statement
 * that was accepted and runs.
 */
export function mayResend(reason: RetryReason, failure: { retryAfterMs?: number | undefined; networkCode?: string | undefined }): boolean {
  if (reason === 'rate_limited') return true;
  if (reason === 'unavailable') return failure.retryAfterMs !== undefined;
  if (reason === 'network') return failure.networkCode !== undefined && NOT_SENT_CODES.has(failure.networkCode);
  return false;
}
