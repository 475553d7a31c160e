/**
 * chat.postMessage's special rate limit: about one message per second per channel, short bursts
 * tolerated. A token bucket per channel; when empty the caller gets how long to wait, which becomes
 * the `Retry-After` header (whole seconds, at least 1, as Slack sends it).
 */
export interface TokenBucketOptions {
  /** Tokens added per second. @defaultValue 1 */
  perSecond?: number;
  /** Tokens beyond the first that can be spent at once. @defaultValue 4 */
  burst?: number;
  /** Clock in ms. @defaultValue Date.now */
  now?: () => number;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSec: number };

export class ChannelRateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly perSecond: number;
  private readonly capacity: number;
  private readonly now: () => number;

  constructor(options: TokenBucketOptions = {}) {
    this.perSecond = options.perSecond ?? 1;
    this.capacity = 1 + (options.burst ?? 4);
    this.now = options.now ?? Date.now;
    if (!(this.perSecond > 0)) throw new Error('streamdoctor_local_slack_bad_option: perSecond must be > 0');
  }

  /** Spends one token for `key` if there is one. */
  take(key: string): RateDecision {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.capacity, at: now };
    bucket.tokens = Math.min(this.capacity, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    const waitSec = (1 - bucket.tokens) / this.perSecond;
    return { allowed: false, retryAfterSec: Math.max(1, Math.ceil(waitSec)) };
  }
}
