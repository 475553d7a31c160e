/**
 * Tolerant readers for single JSON values of a raw progress report. Real reports carry numbers as
 * strings (`"3.298816E8"`, `"Infinity"`), omit empty maps and print offsets as JSON strings, so every
 * reader here accepts those forms and never throws. Hand-written on purpose: the parser runs per
 * event on the hot path of `streamdoctor diagnose`.
 */

/** A finite number from a number or a numeric string; null otherwise ("Infinity", "NaN", "", objects). */
export function finiteNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.length > 0) {
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : null;
  }
  return null;
}

/** Like `finiteNumber` with a fallback for absent or non-finite values. */
export function numberOr(value: unknown, fallback: number): number {
  const parsed = finiteNumber(value);
  return parsed === null ? fallback : parsed;
}

export function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** A string, or undefined: for wire types whose fields are optional strings. */
export function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A map of numbers (durationMs, customMetrics): numeric strings become numbers, other values are
 * dropped, and so are numbers `keep` refuses (each told to `onRefused` with its key and raw value).
 */
export function numberMap(
  value: unknown,
  keep: (n: number) => boolean = Number.isFinite,
  onRefused?: (key: string, raw: unknown) => void,
): Record<string, number> {
  if (!isRecord(value)) return {};
  // The usual case, every value already a number kept: the parsed object is the map (no copy of
  // a 25-key RocksDB map per report). `__proto__` takes the copying path, which drops it as before.
  let clean = true;
  for (const key in value) {
    const item = value[key];
    if (typeof item !== 'number' || !keep(item) || key === '__proto__') {
      clean = false;
      break;
    }
  }
  if (clean && Object.getPrototypeOf(value) === Object.prototype) return value as Record<string, number>;
  const out: Record<string, number> = {};
  for (const key in value) {
    const parsed = finiteNumber(value[key]);
    if (parsed === null) continue;
    if (keep(parsed)) out[key] = parsed;
    else onRefused?.(key, value[key]);
  }
  return out;
}

/**
 * `durationMs` as `numberMap` reads it, without the values that are no plausible duration: each is
 * added to `bad` as `"durationMs.<key>" <value>`.
 */
export function durationMap(value: unknown, bad: string[]): Record<string, number> {
  return numberMap(value, plausibleDurationMs, (key, raw) => bad.push(`"durationMs.${key}" ${JSON.stringify(raw)}`));
}

/** Source `metrics`: numeric strings become numbers, other strings (`"efo"`) stay as they are. */
export function metricMap(value: unknown): Record<string, number | string> {
  const out: Record<string, number | string> = {};
  if (!isRecord(value)) return out;
  for (const key in value) {
    const item = value[key];
    const parsed = finiteNumber(item);
    if (parsed !== null) out[key] = parsed;
    else if (typeof item === 'string') out[key] = item;
  }
  return out;
}

/**
 * Offsets are stored by Spark as JSON strings and re-parsed: objects when parseable, otherwise the
 * string itself. Connect prints them as strings (`"123"`), so parse those here too.
 */
export function offsetValue(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (text === '') return null;
  const first = text.charCodeAt(0);
  // Only JSON that can hold offsets: objects, arrays, numbers. Kinesis sequence numbers are long
  // digit strings that must stay strings, so numbers are parsed only when they are safe integers.
  if (first === 123 /* { */ || first === 91 /* [ */) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return value;
    }
  }
  const parsed = Number(text);
  if (Number.isSafeInteger(parsed)) return parsed;
  return value;
}

/**
 * Longest duration a report may carry (`batchDuration`, `durationMs` entries, state commit times):
 * 30 days. The longest real batches run for days (a first batch backfilling a topic from its
 * start); past a month a value is garbage or a unit slip (µs, ns), and as time it would carry the
 * query's clock past any judgement of silence and its time behind into the millennia. Whether a
 * duration fits the gap to the next report is not known while one report is parsed: a fixed bound.
 */
export const MAX_DURATION_MS = 30 * 86_400_000;

/**
 * Oldest and newest trigger time a report may carry: 2000 (Structured Streaming dates from 2016;
 * earlier is a driver clock never set, such as the epoch) to 2200 (later is garbage; JavaScript's
 * dates end in 275760, where time arithmetic stops printing). A timestamp inside the range yet out
 * of line with its batch is the tracker's to judge: only it knows the batches around it.
 */
export const MIN_TIMESTAMP_MS = Date.UTC(2000, 0, 1);
export const MAX_TIMESTAMP_MS = Date.UTC(2200, 0, 1);

/**
 * Oldest data a report may say a source is behind by (Kinesis `maxMsBehindLatest`): 366 days, past
 * the longest retention a Kinesis stream keeps (365 days), so no unread record can be older.
 */
export const MAX_BEHIND_MS = 366 * 86_400_000;

/** Whether `ms` can be a duration a report measured (0 to MAX_DURATION_MS). */
export function plausibleDurationMs(ms: number): boolean {
  return ms >= 0 && ms <= MAX_DURATION_MS;
}

/** Epoch ms of an ISO-8601 timestamp, or null when absent or unparseable. */
export function timestampMs(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value !== 'string' || value.length === 0) return null;
  const parsed = isoMs(value);
  return Number.isFinite(parsed) ? parsed : null;
}

/**
 * `Date.parse` with a fast path for the one shape Spark prints (`2026-09-14T10:00:00.000Z`, or
 * without the milliseconds): several times cheaper, and it runs for every report's timestamp and
 * watermark. Anything else (offsets, other precision, days past 28, years before 100) goes to `Date.parse`.
 */
export function isoMs(text: string): number {
  const n = text.length;
  if ((n === 24 || n === 20) && text.charCodeAt(n - 1) === 90 /* Z */ && text.charCodeAt(10) === 84 /* T */) {
    const year = digits(text, 0, 4);
    const month = digits(text, 5, 2);
    const day = digits(text, 8, 2);
    const hour = digits(text, 11, 2);
    const minute = digits(text, 14, 2);
    const second = digits(text, 17, 2);
    const ms = n === 24 && text.charCodeAt(19) === 46 /* . */ ? digits(text, 20, 3) : n === 20 ? 0 : -1;
    if (
      text.charCodeAt(4) === 45 && text.charCodeAt(7) === 45 && text.charCodeAt(13) === 58 && text.charCodeAt(16) === 58 &&
      year >= 100 && month >= 1 && month <= 12 && day >= 1 && day <= 28 && hour >= 0 && hour <= 23 &&
      minute >= 0 && minute <= 59 && second >= 0 && second <= 59 && ms >= 0
    ) {
      return daysFromCivil(year, month, day) * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1_000 + ms;
    }
  }
  return Date.parse(text);
}

/**
 * Days since 1970-01-01 of a proleptic Gregorian date (year >= 0): the integer arithmetic `Date.UTC`
 * does, without its call into the runtime.
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The decimal number in `text` at [start, start + count), or -1 when a character is not a digit. */
function digits(text: string, start: number, count: number): number {
  let value = 0;
  for (let i = start; i < start + count; i += 1) {
    const c = text.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    value = value * 10 + c;
  }
  return value;
}
