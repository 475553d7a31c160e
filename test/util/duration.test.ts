import { describe, expect, it } from 'vitest';
import { DurationError, formatDuration, parseDuration } from '../../src/util/duration.js';

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['90s', 90_000],
    ['10m', 600_000],
    ['2h', 7_200_000],
    ['7d', 604_800_000],
    ['1h30m', 5_400_000],
    ['1.5s', 1_500],
    ['30', 30_000],
    // As people type them in Slack: words, singular or plural, spaced.
    ['2 hours', 7_200_000],
    ['30 minutes', 1_800_000],
    ['1 day', 86_400_000],
    ['1 hour', 3_600_000],
    ['2hours', 7_200_000],
    ['5 s', 5_000],
    ['1 hour 30 mins', 5_400_000],
    ['2 Weeks', 1_209_600_000],
  ])('%s is %d ms', (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });

  it.each(['', 'ten minutes', '10x', '-5s', 'm10', 'hours', '2 hoursx', '2 mo'])('rejects %j with a message saying how to write one', (input) => {
    expect(() => parseDuration(input)).toThrow(DurationError);
    expect(() => parseDuration(input)).toThrow(/500ms, 90s, 10m, 2h or 7d/);
  });
});

describe('parseDuration without bare seconds', () => {
  it.each(['2024', '30', '1.5', ' 90 '])('refuses %j as having no unit, saying how to write one', (input) => {
    expect(() => parseDuration(input, { bareSeconds: false })).toThrow(DurationError);
    expect(() => parseDuration(input, { bareSeconds: false })).toThrow(/has no unit; write it like 500ms, 90s, 10m, 2h or 7d/);
    try {
      parseDuration(input, { bareSeconds: false });
    } catch (error) {
      expect(error).toMatchObject({ noUnit: true, tooLong: false });
    }
  });

  it.each([
    ['2024s', 2_024_000],
    ['2 hours', 7_200_000],
    ['1h30m', 5_400_000],
  ])('still reads %s with its unit', (input, ms) => {
    expect(parseDuration(input, { bareSeconds: false })).toBe(ms);
  });

  it('keeps a bare number as seconds by default (the watch file, the CLI)', () => {
    expect(parseDuration('2024')).toBe(2_024_000);
  });
});

describe('parseDuration limits', () => {
  it.each(['9'.repeat(400), `${'9'.repeat(400)}s`, `${'1'.repeat(310)}ms`, '3651d', '522w', '87601 hours'])('rejects %j, past ten years or not finite, saying so', (input) => {
    expect(() => parseDuration(input)).toThrow(DurationError);
    expect(() => parseDuration(input)).toThrow(/longer than the 3650d \(ten years\) a duration may be/);
    expect(() => parseDuration(input)).not.toThrow(/9{41}|1{41}/);
  });

  it('takes ten years exactly', () => {
    expect(parseDuration('3650d')).toBe(3650 * 86_400_000);
  });
});

describe('formatDuration', () => {
  it.each([
    [850, '850ms'],
    [42_000, '42s'],
    [450_000, '7m 30s'],
    [600_000, '10m'],
    [11_100_000, '3h 05m'],
    [187_200_000, '2d 4h'],
  ])('%d ms reads %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
