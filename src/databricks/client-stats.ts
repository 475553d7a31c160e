/**
 * Counters for what the client did, readable by the metrics module (`snapshot()`) and pushed to an
 * optional `onEvent` hook as it happens. Nothing here holds a credential.
 */
import type { DatabricksErrorKind } from './errors.js';

export type RetryReason = 'rate_limited' | 'unavailable' | 'server_error' | 'network' | 'timeout' | 'malformed' | 'token_expired';

export type ClientEvent =
  | { type: 'request'; method: string; path: string; status: number; durationMs: number }
  | { type: 'retry'; method: string; path: string; reason: RetryReason; attempt: number; delayMs: number; status: number }
  | { type: 'error'; method: string; path: string; kind: DatabricksErrorKind; status: number; errorCode: string }
  | { type: 'token_refresh'; reason: 'initial' | 'expiring' | 'rejected' };

export interface ClientStatsSnapshot {
  /** HTTP requests sent (each attempt counts). */
  requests: number;
  retries: Partial<Record<RetryReason, number>>;
  errors: Partial<Record<DatabricksErrorKind, number>>;
  tokenRefreshes: number;
  /** Requests in flight right now. */
  inFlight: number;
}

export class ClientStats {
  private requests = 0;
  private tokenRefreshes = 0;
  private inFlight = 0;
  private readonly retries: Partial<Record<RetryReason, number>> = {};
  private readonly errors: Partial<Record<DatabricksErrorKind, number>> = {};

  constructor(private readonly onEvent?: (event: ClientEvent) => void) {}

  record(event: ClientEvent): void {
    if (event.type === 'request') this.requests += 1;
    if (event.type === 'retry') this.retries[event.reason] = (this.retries[event.reason] ?? 0) + 1;
    if (event.type === 'error') this.errors[event.kind] = (this.errors[event.kind] ?? 0) + 1;
    if (event.type === 'token_refresh') this.tokenRefreshes += 1;
    try {
      this.onEvent?.(event);
    } catch {
      // A faulty hook must not break a poll.
    }
  }

  enter(): void {
    this.inFlight += 1;
  }

  leave(): void {
    this.inFlight -= 1;
  }

  snapshot(): ClientStatsSnapshot {
    return {
      requests: this.requests,
      retries: { ...this.retries },
      errors: { ...this.errors },
      tokenRefreshes: this.tokenRefreshes,
      inFlight: this.inFlight,
    };
  }
}
