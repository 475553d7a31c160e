/** A Web API failure: answered as HTTP 200 `{"ok": false, "error": code, ...extra}` (429 when rate limited). */
import type { Json } from '../types.js';

export class SlackMethodError extends Error {
  constructor(
    readonly error: string,
    readonly extra: Json = {},
  ) {
    super(error);
  }
}

export class SlackRateLimitedError extends SlackMethodError {
  constructor(readonly retryAfterSec: number) {
    super('ratelimited');
  }
}
