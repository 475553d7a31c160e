/** chat.postMessage over its per-channel budget: HTTP 429 with `Retry-After`. */
import { SlackMethodError } from './method-error.js';

export class SlackRateLimitedError extends SlackMethodError {
  constructor(readonly retryAfterSec: number) {
    super('ratelimited');
  }
}
