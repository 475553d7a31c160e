/**
 * Number and time formats exactly as the JVM prints them in progress JSON:
 * `Double.toString` ("0.0", "161075.0", "3.298816E8") and Spark's trigger timestamp
 * `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`.
 */

/**
 * Java `Double.toString`: plain decimal with at least one fractional digit for 1e-3 ≤ |x| < 1e7,
 * otherwise computerized scientific notation (`d.dddE±n`). Uses the shortest round-trip digits, as
 * JavaScript does.
 */
export function javaDoubleToString(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(x);
  const sign = x < 0 ? '-' : '';
  if (abs >= 1e-3 && abs < 1e7) {
    const text = String(abs);
    // String() switches to exponent form only below 1e-6 or at 1e21, outside this range.
    return sign + (text.includes('.') ? text : `${text}.0`);
  }
  const [mantissa, exponent] = abs.toExponential().split('e') as [string, string];
  const digits = mantissa.includes('.') ? mantissa : `${mantissa}.0`;
  return `${sign}${digits}E${Number(exponent)}`;
}

/** Java `Long.toString` of an integer-valued number. */
export function javaLongToString(x: number): string {
  return String(Math.trunc(x));
}

/** Spark's progress timestamp: ISO-8601 UTC with milliseconds. */
export function sparkTimestamp(ms: number): string {
  return new Date(Math.round(ms)).toISOString();
}
