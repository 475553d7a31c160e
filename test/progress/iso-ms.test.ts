import { describe, expect, it } from 'vitest';
import { isoMs } from '../../src/progress/values.js';

describe('isoMs', () => {
  it('agrees with Date.parse on the shape Spark prints and on everything else', () => {
    const samples = [
      '2026-09-14T10:00:00.000Z',
      '2026-09-14T10:00:00Z',
      '1970-01-01T00:00:00.000Z',
      '0050-01-01T00:00:00.000Z',
      '0099-12-01T00:00:00Z',
      '0100-03-01T00:00:00.000Z',
      '2024-02-29T23:59:59.999Z',
      '2026-12-31T23:59:59.999Z',
      '2026-09-14T24:00:00.000Z',
      '2026-13-14T10:00:00.000Z',
      '2026-00-14T10:00:00.000Z',
      '2026-09-14T10:60:00.000Z',
      '2026-09-14T10:00:00.000+02:00',
      '2026-09-14T10:00:00.123456Z',
      '2026-09-14 10:00:00.000Z',
      '2026-09-1xT10:00:00.000Z',
      '2026-09-14T10:00:00,000Z',
      'not a time',
      '',
    ];
    // 2,000 instants spread over 40 years, every field value visited.
    for (let i = 0; i < 2_000; i += 1) samples.push(new Date(Date.UTC(2000, 0, 1) + i * 631_152_117).toISOString());
    // Every day of 1,200 years (the day arithmetic: leap and century years; days past the 28th go
    // to Date.parse).
    for (let day = 0; day < 438_300; day += 1) samples.push(new Date(Date.UTC(1600, 0, 1) + day * 86_400_000 + (day % 86_400) * 1_000).toISOString());
    const disagree = samples.filter((text) => !Object.is(isoMs(text), Date.parse(text)));
    expect(disagree).toEqual([]);
    expect(samples.length).toBeGreaterThan(440_000);
  });
});
