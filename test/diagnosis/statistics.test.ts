import { describe, expect, it } from 'vitest';
import {
  coefficientOfVariation,
  correlation,
  mad,
  mannKendallCritical,
  mannKendallS,
  mannKendallZ,
  median,
  quantile,
  robustZ,
  theilSen,
  theilSenPerStep,
} from '../../src/diagnosis/statistics.js';

describe('robust statistics', () => {
  it('median, quantile and MAD ignore non-finite values', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([1, Number.NaN, 3])).toBe(2);
    expect(Number.isNaN(median([]))).toBe(true);
    expect(quantile([10, 20, 30, 40, 50], 0.25)).toBe(20);
    expect(mad([1, 1, 2, 2, 4, 6, 9])).toBe(1);
  });

  it('a robust z-score flags a GC pause against steady batch durations', () => {
    const durations = [8100, 7900, 8300, 8000, 8200, 7800, 8050];
    expect(Math.abs(robustZ(8150, durations))).toBeLessThan(1);
    expect(robustZ(45_000, durations)).toBeGreaterThan(10);
  });

  it('Theil–Sen ignores a single outlier that bends least squares', () => {
    const xs = [0, 1, 2, 3, 4, 5, 6, 7];
    const ys = [10, 12, 14, 16, 90, 20, 22, 24]; // a GC pause at x = 4
    expect(theilSen(xs, ys)).toBe(2);
    expect(theilSenPerStep(ys)).toBe(2);
  });

  it('Mann–Kendall: 5 strictly rising points reject "no trend" at 1 %, 4 never can', () => {
    expect(mannKendallS([1, 2, 3, 4, 5])).toBe(10);
    expect(mannKendallCritical(5)).toBe(10);
    expect(mannKendallCritical(4)).toBe(Infinity);
    expect(mannKendallCritical(8)).toBe(20);
    // A burst of three rising points followed by a fall gives a small S.
    expect(mannKendallS([10, 10, 30, 60, 90, 40, 15, 10])).toBeLessThan(mannKendallCritical(8));
    // Ties within a relative tolerance count as no change.
    expect(mannKendallS([100, 100.1, 99.95, 100.05], 0.005)).toBe(0);
    expect(mannKendallZ([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])).toBeGreaterThan(3);
  });

  it('coefficient of variation spots a constant admission cap', () => {
    expect(coefficientOfVariation([400_000, 400_000, 400_000, 400_000])).toBe(0);
    expect(coefficientOfVariation([380_000, 421_000, 398_500, 405_200])).toBeGreaterThan(0.02);
  });

  it('correlation: reads that follow their intervals, reads at a cap that do not', () => {
    const intervals = [2_500, 2_600, 2_400, 2_700, 2_550, 2_650];
    expect(correlation(intervals.map((ms) => ms * 0.7), intervals)).toBeCloseTo(1, 10);
    expect(correlation(intervals.map((ms) => 5_000 - ms), intervals)).toBeCloseTo(-1, 10);
    expect(correlation([1_900, 1_880, 1_910, 1_870, 1_905, 1_885], intervals)).toBeLessThan(0.8);
    expect(correlation([1_900, 1_900, 1_900, 1_900, 1_900, 1_900], intervals)).toBeNaN();
  });
});
