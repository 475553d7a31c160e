/**
 * Back to back and uncapped, durations that fit d_i ≈ o + ρ·d_(i−1) with ρ < 0.97 read as a query
 * converging to its steady batch duration, and veto a trend, unless the arrivals are clearly past
 * the capacity. Their median trails a ramp: drawn ramps whose batches were already falling behind
 * opened 9 and 11 batches after onset, past the 8-batch deadline, held back by that veto while the
 * input ramp (input-ramp.ts) read well past capacity. A ramp reading must hold at two batches in a
 * row: over 24 batches one noisy rate can make a wander near capacity read as a ramp for a batch.
 * Generated scenarios from the randomized corpus (labels and deadline from its ground truth).
 */
import { describe, expect, it } from 'vitest';
import type { ReportingMode } from '../../src/simulator/random/index.js';
import { drawnLagOpenings } from './run-stream.js';

describe('an uncapped ramp past capacity whose durations still fit a converging line', () => {
  it.each([
    [963_360, 'oss-planning'],
    [963_001, 'dbr-17.1'],
  ] as [number, ReportingMode][])('opens within the deadline (seed %i, %s)', (seed, mode) => {
    const { openings, labels } = drawnLagOpenings(seed, 'ramp-overload', mode);
    const label = labels.find((l) => l.strict)!;
    expect(label).toBeDefined();
    const first = openings.find((i) => i >= label.earliestIndex);
    expect(first).toBeDefined();
    expect(first!).toBeLessThanOrEqual(label.deadlineIndex);
    expect(openings.filter((i) => i < label.earliestIndex)).toEqual([]);
  });
});

describe('a wander near capacity that reads as a ramp for one batch', () => {
  it('opens nothing before the restart whose catch-up is the episode (89 % load, no source metrics)', () => {
    const { openings, labels } = drawnLagOpenings(964_031, 'slow-catch-up', 'no-metrics');
    const onset = labels[0]!.onsetIndex;
    expect(openings.filter((i) => i < onset - 2)).toEqual([]);
  });
});
