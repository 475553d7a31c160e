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

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A map of numbers (durationMs, customMetrics); non-numeric values are dropped. */
export function numberMap(value: unknown): Record<string, number> {
  if (!isRecord(value)) return {};
  // The usual case, every value already a finite number: the parsed object is the map (no copy of
  // a 25-key RocksDB map per report). `__proto__` takes the copying path, which drops it as before.
  let clean = true;
  for (const key in value) {
    const item = value[key];
    if (typeof item !== 'number' || !Number.isFinite(item) || key === '__proto__') {
      clean = false;
      break;
    }
  }
  if (clean && Object.getPrototypeOf(value) === Object.prototype) return value as Record<string, number>;
  const out: Record<string, number> = {};
  for (const key in value) {
    const parsed = finiteNumber(value[key]);
    if (parsed !== null) out[key] = parsed;
  }
  return out;
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

/** Epoch ms of an ISO-8601 timestamp, or null when absent or unparseable. */
export function timestampMs(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value !== 'string' || value.length === 0) return null;
  const parsed = Date.parse(value);
  return Number.isFinite(parsed) ? parsed : null;
}
