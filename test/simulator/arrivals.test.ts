import { describe, expect, it } from 'vitest';
import { ArrivalLog } from '../../src/simulator/arrival-log.js';
import { constantRate, expectedArrivals, rampRate, sinusoidalRate, steppedRate, withBursts, withIdleGaps } from '../../src/simulator/index.js';

describe('arrival-rate shapes', () => {
  it('steps, bursts and idle gaps compose as functions of time', () => {
    const rate = withIdleGaps(
      withBursts(steppedRate(100, [{ atMs: 10_000, rowsPerSec: 300 }]), [{ atMs: 20_000, durationMs: 5_000, extraRowsPerSec: 1_000 }]),
      [{ atMs: 30_000, durationMs: 10_000 }],
    );
    expect([0, 9_999, 10_000, 20_000, 24_999, 25_000, 30_000, 39_999, 40_000].map(rate)).toEqual([
      100, 100, 300, 1_300, 1_300, 300, 0, 0, 300,
    ]);
  });

  it('a ramp is flat outside its span and linear inside', () => {
    const ramp = rampRate(100, 300, 1_000, 3_000);
    expect([0, 1_000, 2_000, 2_500, 3_000, 9_000].map(ramp)).toEqual([100, 100, 200, 250, 300, 300]);
  });

  it('integrates λ over an interval, including a step inside it', () => {
    expect(expectedArrivals(constantRate(1_000), 0, 60_000)).toBeCloseTo(60_000, 6);
    expect(expectedArrivals(steppedRate(1_000, [{ atMs: 30_000, rowsPerSec: 3_000 }]), 0, 60_000)).toBeCloseTo(120_000, 6);
    expect(expectedArrivals(constantRate(1_000), 5_000, 5_000)).toBe(0);
    const swing = sinusoidalRate(1_000, 0.5, 3_600_000);
    expect(expectedArrivals(swing, 0, 3_600_000) / 3_600).toBeCloseTo(1_000, 0);
    expect(Math.min(...[0, 900_000, 1_800_000, 2_700_000].map(swing))).toBeGreaterThanOrEqual(0);
  });
});

describe('ArrivalLog', () => {
  it('dates a row by interpolating cumulative arrivals, and prunes what is no longer needed', () => {
    const log = new ArrivalLog();
    log.record(0, 0);
    log.record(10_000, 1_000);
    log.record(20_000, 1_000); // idle
    log.record(30_000, 3_000);
    expect(log.arrivalTimeOf(0)).toBeCloseTo(5, 0);
    expect(log.arrivalTimeOf(499)).toBeCloseTo(4_995, 6);
    expect(log.arrivalTimeOf(1_000)).toBeGreaterThan(20_000);
    expect(log.arrivalTimeOf(3_000)).toBeNull();
    log.prune(1_500);
    expect(log.size).toBeLessThanOrEqual(2);
    expect(log.arrivalTimeOf(2_000)).toBeCloseTo(25_002.5, 0);
  });
});
