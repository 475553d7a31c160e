/**
 * Id and timestamp generators. Ids are deterministic per process (a counter per prefix) so tests and
 * screenshots are stable; message timestamps look like Slack's ("1732900000.000100") and strictly
 * increase, because a ts is a message's key within its channel.
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

export class MessageTsClock {
  private lastMicros = 0;

  /** The next message ts at or after `nowMs`. */
  next(nowMs: number): string {
    let micros = Math.floor(nowMs) * 1000;
    if (micros <= this.lastMicros) micros = this.lastMicros + 1;
    this.lastMicros = micros;
    return microsToTs(micros);
  }
}

export function microsToTs(micros: number): string {
  const seconds = Math.floor(micros / 1_000_000);
  const fraction = micros % 1_000_000;
  return `${seconds}.${String(fraction).padStart(6, '0')}`;
}

/** Slack message ts format: seconds, a dot, six digits. */
export const TS_PATTERN = /^\d{9,11}\.\d{6}$/;
