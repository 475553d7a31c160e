/** The one number style the engine's text and the Slack renderers share. */
import { describe, expect, it } from 'vitest';
import { bytes, count, rate } from '../../src/diagnosis/format.js';
import { formatBytes, formatCount, formatRate } from '../../src/slack/format.js';

describe('number style', () => {
  it('counts: three significant digits, upper-case suffixes, no trailing zeros', () => {
    expect([7, 12.5, 950, 2_000, 9_500, 12_600, 13_940, 300_000, 1_970_000, 4_567_000, 1.2e9].map(count)).toEqual([
      '7', '12.5', '950', '2K', '9.5K', '12.6K', '13.9K', '300K', '1.97M', '4.57M', '1.2B',
    ]);
    // Rounding up to the next unit says so.
    expect(count(999_999)).toBe('1M');
  });

  it('rates carry their unit; bytes use binary units with binary labels', () => {
    expect(rate(13_940)).toBe('13.9K rows/s');
    expect([512, 1_536, 3.1 * 1024 ** 3, 1023.99 * 1024 ** 2, 24 * 1024 ** 3].map(bytes)).toEqual([
      '512 B', '1.5 KiB', '3.1 GiB', '1 GiB', '24 GiB',
    ]);
  });

  it('Slack formatters print exactly what the engine prints', () => {
    for (const value of [950, 12_600, 13_940, 4_567_000]) {
      expect(formatCount(value)).toBe(count(value));
      expect(formatRate(value)).toBe(rate(value));
    }
    expect(formatBytes(3.1 * 1024 ** 3)).toBe(bytes(3.1 * 1024 ** 3));
    expect([formatCount(null), formatRate(Number.NaN), formatBytes(undefined)]).toEqual(['n/a', 'n/a', 'n/a']);
  });
});
