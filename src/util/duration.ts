/**
 * Durations as people write them on the command line and in config: `500ms`, `90s`, `10m`, `2h`,
 * `7d`, and combinations such as `1h30m`; also in words, as people type them in Slack: `2 hours`,
 * `30 minutes`, `1 day`, `1 hour 30 mins`. A bare number is seconds unless the caller refuses it
 * (`bareSeconds: false`).
 */
import { StreamDoctorError } from './errors.js';

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** Every spelling of each unit; longer ones first, so `ms` is not read as `m` and `mins` not as `m`. */
const UNIT_WORDS: [RegExp, string][] = [
  [/^(ms|msecs?|milliseconds?)$/, 'ms'],
  [/^(s|secs?|seconds?)$/, 's'],
  [/^(m|mins?|minutes?)$/, 'm'],
  [/^(h|hrs?|hours?)$/, 'h'],
  [/^(d|days?)$/, 'd'],
  [/^(w|wks?|weeks?)$/, 'w'],
];

const PART = /\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*/gy;

function unitMs(word: string): number | null {
  const unit = UNIT_WORDS.find(([spelling]) => spelling.test(word))?.[1];
  return unit ? UNIT_MS[unit]! : null;
}

/** Longest duration read: ten years. Past it (a 400-digit number reads as Infinity) a value is a typo, not a setting. */
export const MAX_DURATION_MS = 3_650 * UNIT_MS.d!;

export class DurationError extends StreamDoctorError {
  constructor(
    readonly input: string,
    /** A duration, but longer than MAX_DURATION_MS. */
    readonly tooLong = false,
    /** A number without a unit, where the caller asked for one (`bareSeconds: false`). */
    readonly noUnit = false,
  ) {
    const shown = input.length > 40 ? `${input.slice(0, 40)}…` : input;
    const problem = tooLong ? 'is longer than the 3650d (ten years) a duration may be' : noUnit ? 'has no unit' : 'is not a duration';
    super('streamdoctor_invalid_duration', `"${shown}" ${problem}; write it like 500ms, 90s, 10m, 2h or 7d`, { fix: 'write it like 500ms, 90s, 10m, 2h or 7d' });
  }
}

export interface DurationOptions {
  /**
   * Whether a number without a unit reads as seconds. A command typed by hand refuses it: a unit
   * left out is a slip (`/stream mute orders 2024` is not a 34-minute mute).
   * @defaultValue true (the watch file's YAML numbers and the CLI's flags read as seconds)
   */
  bareSeconds?: boolean;
}

/** Parses a duration to milliseconds; throws `DurationError` with a message that says how to write one. */
export function parseDuration(input: string, options: DurationOptions = {}): number {
  const text = input.trim().toLowerCase();
  if (text === '') throw new DurationError(input);
  let total = 0;
  if (/^\d+(\.\d+)?$/.test(text)) {
    if (options.bareSeconds === false) throw new DurationError(input, false, true);
    total = Number(text) * 1_000;
  } else {
    PART.lastIndex = 0;
    let consumed = 0;
    for (let match = PART.exec(text); match; match = PART.exec(text)) {
      const ms = unitMs(match[2]!);
      if (ms === null) throw new DurationError(input);
      total += Number(match[1]) * ms;
      consumed = PART.lastIndex;
    }
    if (consumed !== text.length) throw new DurationError(input);
  }
  if (!(total <= MAX_DURATION_MS)) throw new DurationError(input, true);
  return Math.round(total);
}

/** Formats milliseconds for people: `850ms`, `42s`, `7m 30s`, `3h 05m`, `2d 4h`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '∞';
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  if (abs < 1_000) return `${sign}${Math.round(abs)}ms`;
  const totalSec = Math.round(abs / 1_000);
  if (totalSec < 60) return `${sign}${totalSec}s`;
  const totalMin = Math.floor(totalSec / 60);
  if (totalMin < 60) {
    const sec = totalSec % 60;
    return sec ? `${sign}${totalMin}m ${String(sec).padStart(2, '0')}s` : `${sign}${totalMin}m`;
  }
  const totalHours = Math.floor(totalMin / 60);
  if (totalHours < 48) {
    const min = totalMin % 60;
    return min ? `${sign}${totalHours}h ${String(min).padStart(2, '0')}m` : `${sign}${totalHours}h`;
  }
  const days = Math.floor(totalHours / 24);
  const hours = totalHours % 24;
  return hours ? `${sign}${days}d ${hours}h` : `${sign}${days}d`;
}
