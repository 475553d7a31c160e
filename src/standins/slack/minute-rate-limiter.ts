/**
 * A per-minute budget for Web API methods in Slack's rate tiers (Tier 3 is "50+ per minute", per
 * method per workspace per app). The stand-in holds a caller to the stated floor: at most
 * `perMinute` calls in any 60 s, so a bot that passes here stays inside what Slack promises. When
 * the budget is spent the caller learns when the oldest call leaves the minute: `Retry-After`.
 */
import type { RateDecision } from './rate-limiter.js';

const MINUTE_MS = 60_000;

export class MinuteRateLimiter {
  private readonly calls = new Map<string, number[]>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!(perMinute >= 1)) throw new Error('streamdoctor_local_slack_bad_option: perMinute must be >= 1');
  }

  /** Counts one call for `key` if the last minute has room for it. */
  take(key: string): RateDecision {
    const now = this.now();
    const recent = (this.calls.get(key) ?? []).filter((at) => now - at < MINUTE_MS);
    this.calls.set(key, recent);
    if (recent.length < this.perMinute) {
      recent.push(now);
      return { allowed: true };
    }
    const waitMs = recent[0]! + MINUTE_MS - now;
    return { allowed: false, retryAfterSec: Math.max(1, Math.ceil(waitMs / 1000)) };
  }
}
