/**
 * Message timestamps that look like Slack's ("1732900000.000100") and strictly increase, because a
 * ts is a message's key within its channel.
 */
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
