/**
 * Events API redelivery: an event the app did not answer with a 2xx within 3 s is sent again, up to
 * 3 more times (about at once, then 1 minute and 5 minutes on), the same envelope and event_id,
 * with `X-Slack-Retry-Num` and `X-Slack-Retry-Reason`. So a test sees the duplicates a real
 * workspace sends an app that is slow or failing, and an event handler has to be idempotent.
 */
import type { DeliveryResult, SlackDelivery } from './slack-delivery.js';
import type { Json } from './types.js';

/** The wait before each retry, counted from the failed attempt before it. */
export const EVENT_RETRY_DELAYS_MS: readonly number[] = [0, 60_000, 300_000];

/** The X-Slack-Retry-Reason a delivery calls for, or null when the app took the event (or there is no app). */
export function retryReason(result: DeliveryResult): string | null {
  if (result.status >= 200 && result.status < 300) return null;
  if (result.failure === 'no_request_url') return null;
  if (result.failure === 'timeout') return 'http_timeout';
  if (result.failure === 'unreachable') return 'connection_failed';
  return 'http_error';
}

export class EventRedelivery {
  private readonly waiting = new Map<NodeJS.Timeout, (go: boolean) => void>();
  private readonly chains = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly delivery: SlackDelivery,
    private readonly delaysMs: readonly number[] = EVENT_RETRY_DELAYS_MS,
  ) {}

  /** After a first delivery the app did not take, sends the envelope again on the schedule until it does. */
  schedule(envelope: Json, first: DeliveryResult, headers?: Record<string, string>): void {
    if (this.closed || this.delaysMs.length === 0 || retryReason(first) === null) return;
    const chain: Promise<void> = this.retry(envelope, first, headers).finally(() => this.chains.delete(chain));
    this.chains.add(chain);
  }

  private async retry(envelope: Json, first: DeliveryResult, headers?: Record<string, string>): Promise<void> {
    let last = first;
    for (const [i, delayMs] of this.delaysMs.entries()) {
      const reason = retryReason(last);
      if (reason === null || !(await this.wait(delayMs))) return;
      last = await this.delivery.sendEvent(envelope, { retryNum: i + 1, retryReason: reason, ...(headers ? { headers } : {}) });
    }
  }

  private wait(ms: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(timer);
        resolve(!this.closed);
      }, ms);
      // A retry minutes away must not keep a test run or a CLI process alive.
      timer.unref();
      this.waiting.set(timer, resolve);
    });
  }

  /** Resolves when no retry is pending (with the default schedule, up to about 6 minutes). */
  async settled(): Promise<void> {
    while (this.chains.size > 0) await Promise.allSettled([...this.chains]);
  }

  /** Cancels the retries still waiting: the stand-in is closing. */
  close(): void {
    this.closed = true;
    for (const [timer, resolve] of this.waiting) {
      clearTimeout(timer);
      resolve(false);
    }
    this.waiting.clear();
  }
}
