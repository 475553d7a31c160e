/**
 * Id generator. Ids are deterministic per process (a counter per prefix) so tests and screenshots
 * are stable; trigger ids are random because they grant a modal.
 */
import { randomBytes } from 'node:crypto';

export class IdGenerator {
  private readonly counters = new Map<string, number>();

  /** `next('F')` → `F0000000001`: Slack-shaped ids (uppercase, 11 chars). */
  next(prefix: string): string {
    const n = (this.counters.get(prefix) ?? 0) + 1;
    this.counters.set(prefix, n);
    return `${prefix}${n.toString(36).toUpperCase().padStart(10, '0')}`;
  }

  /** Trigger ids look like `1234567890.123456789012.0123abcd…`; unguessable on purpose. */
  triggerId(nowMs: number): string {
    return `${Math.floor(nowMs / 1000)}.${Math.floor(nowMs)}.${randomBytes(16).toString('hex')}`;
  }
}
