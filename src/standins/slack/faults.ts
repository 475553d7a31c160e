/**
 * Web API faults on demand (`slack.faults.inject(rule)`), shaped as Slack's own failures look on the
 * wire. Each rule hits the next `times` matching calls and is then spent; rules match by method and,
 * optionally, channel.
 *
 * - `rate_limit`: HTTP 429, `Retry-After: <seconds>` and `{ok:false,error:"ratelimited"}`; the method did
 *   not run (as Slack's 429s).
 * - `server_error` / `unavailable`: HTTP 500 / 503 with `{ok:false,error:"fatal_error"}` /
 *   `"service_unavailable"` (503 with Retry-After when `retryAfterSec` is set); the method did not run.
 * - `server_error_after`: the method ran (a message was posted), then the answer was HTTP 500: an edge
 *   that failed after the work, so the caller cannot know whether it happened.
 * - `slow`: the method ran at once; the answer comes after `delayMs` (a caller with a shorter timeout
 *   gives up on a call that did its work).
 * - `reset_after`: the method ran, then the connection was closed without an answer.
 */
export type SlackFaultKind = 'rate_limit' | 'server_error' | 'unavailable' | 'server_error_after' | 'slow' | 'reset_after';

export interface SlackFaultRule {
  kind: SlackFaultKind;
  /** Web API method, e.g. 'chat.postMessage'. @defaultValue every method */
  method?: string;
  /** Only calls whose `channel` argument is this id. @defaultValue any channel */
  channel?: string;
  /** How many matching calls it hits. @defaultValue 1 */
  times?: number;
  /** rate_limit: Retry-After seconds (whole, ≥ 1, as Slack sends). unavailable: optional. @defaultValue 1 for rate_limit */
  retryAfterSec?: number;
  /** slow: how long the answer is held. @defaultValue 2000 */
  delayMs?: number;
}

export const SLACK_FAULT_KINDS: SlackFaultKind[] = ['rate_limit', 'server_error', 'unavailable', 'server_error_after', 'slow', 'reset_after'];

/** Whether the fault answers before the method runs (nothing happened) or after (it did). */
export function faultRunsMethod(kind: SlackFaultKind): boolean {
  return kind === 'server_error_after' || kind === 'slow' || kind === 'reset_after';
}

export class SlackFaultInjector {
  private rules: (SlackFaultRule & { remaining: number })[] = [];
  private readonly hits: Partial<Record<SlackFaultKind, number>> = {};

  inject(rule: SlackFaultRule): void {
    if (!SLACK_FAULT_KINDS.includes(rule.kind)) throw new Error(`streamdoctor_local_slack_bad_fault: kind must be one of ${SLACK_FAULT_KINDS.join(', ')}`);
    this.rules.push({ ...rule, remaining: Math.max(1, Math.floor(rule.times ?? 1)) });
  }

  clear(): void {
    this.rules = [];
  }

  /** The rule that applies to this call, consumed; null when none does. */
  take(method: string, channel: string | undefined): SlackFaultRule | null {
    const index = this.rules.findIndex((r) => (!r.method || r.method === method) && (!r.channel || r.channel === channel));
    if (index < 0) return null;
    const rule = this.rules[index]!;
    rule.remaining -= 1;
    if (rule.remaining <= 0) this.rules.splice(index, 1);
    this.hits[rule.kind] = (this.hits[rule.kind] ?? 0) + 1;
    const { remaining: _remaining, ...out } = rule;
    return out;
  }

  pending(): SlackFaultRule[] {
    return this.rules.map(({ remaining, ...rule }) => ({ ...rule, times: remaining }));
  }

  hitCounts(): Partial<Record<SlackFaultKind, number>> {
    return { ...this.hits };
  }
}
