/**
 * Faults injected on demand, programmatically or through `POST /__admin/faults`. Each rule applies to
 * the next `times` matching requests and is then spent.
 */

export type FaultKind =
  /** 429 REQUEST_LIMIT_EXCEEDED with `Retry-After: retryAfterSec`. */
  | 'rate_limit'
  /** 503 TEMPORARILY_UNAVAILABLE (with Retry-After when `retryAfterSec` is set). */
  | 'unavailable'
  /** 500 INTERNAL_ERROR. */
  | 'server_error'
  /** Answers normally after `delayMs`. */
  | 'slow'
  /** 200 with a body that is not JSON. */
  | 'malformed'
  /** Closes the connection without an answer. */
  | 'reset'
  /** The next matching statement ends FAILED (HTTP 200). */
  | 'statement_failed';

export interface FaultRule {
  kind: FaultKind;
  /** How many matching requests it hits. @defaultValue 1 */
  times?: number;
  /** Only requests whose path starts with this. @defaultValue every API path */
  pathPrefix?: string;
  /** Only this method. @defaultValue any */
  method?: 'GET' | 'POST';
  /** For rate_limit / unavailable. @defaultValue 1 for rate_limit, none for unavailable */
  retryAfterSec?: number;
  /** For slow. @defaultValue 2_000 */
  delayMs?: number;
  /** For statement_failed: the error text. */
  message?: string;
}

interface ActiveRule extends FaultRule {
  remaining: number;
}

const KINDS: FaultKind[] = ['rate_limit', 'unavailable', 'server_error', 'slow', 'malformed', 'reset', 'statement_failed'];

export function isFaultRule(value: unknown): value is FaultRule {
  return !!value && typeof value === 'object' && KINDS.includes((value as FaultRule).kind);
}

export class FaultInjector {
  private rules: ActiveRule[] = [];
  private readonly hits: Partial<Record<FaultKind, number>> = {};

  inject(rule: FaultRule): void {
    this.rules.push({ ...rule, remaining: Math.max(1, Math.floor(rule.times ?? 1)) });
  }

  clear(): void {
    this.rules = [];
  }

  /** The rule that applies to this request, consumed; statement failures are only taken by statement submits. */
  take(method: string, path: string, statementSubmit: boolean): FaultRule | null {
    const index = this.rules.findIndex(
      (rule) =>
        (!rule.pathPrefix || path.startsWith(rule.pathPrefix)) &&
        (!rule.method || rule.method === method) &&
        (rule.kind !== 'statement_failed' || statementSubmit),
    );
    if (index < 0) return null;
    const rule = this.rules[index]!;
    rule.remaining -= 1;
    if (rule.remaining <= 0) this.rules.splice(index, 1);
    this.hits[rule.kind] = (this.hits[rule.kind] ?? 0) + 1;
    return rule;
  }

  pending(): FaultRule[] {
    return this.rules.map(({ remaining, ...rule }) => ({ ...rule, times: remaining }));
  }

  hitCounts(): Partial<Record<FaultKind, number>> {
    return { ...this.hits };
  }
}
