/** When and how long to wait before trying a Databricks request again. */

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
