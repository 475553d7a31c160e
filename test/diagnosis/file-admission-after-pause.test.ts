/**
 * The file admission evidence's new high (`newHigh`) is judged against the range the run's counts
 * wandered in, not against a pause's residue: a GC pause on a capped Delta source leaves a backlog
 * that the cap reads down a few files a batch, half the ring long. Counted into the range, it held
 * an overload that began soon after below "the highest the run read" for 10 to 30 batches. Rebuilt
 * from generated streams.
 */
import { describe, expect, it } from 'vitest';
import { steppedRate } from '../../src/simulator/index.js';
import { MIN, START, opened, runStream } from './run-stream.js';

/** Batches from the first one after the input steps up to the lag opening, or null. */
function openingAfterStep(seed: number, gcAtBatch: number): { afterStep: number | null; falseAlarm: boolean } {
  const change = START + 12 * MIN;
  const run = runStream(
    {
      name: 'orders_bronze',
      arrival: steppedRate(4_900, [{ atMs: change, rowsPerSec: 6_200 }]),
      arrivalNoise: 0.1,
      processing: { rowsPerSecPerCore: 777, cores: 16, overheadMs: 520, shuffles: false },
      triggerMs: 10_000,
      source: { kind: 'delta', rowsPerFile: 3_281, maxFilesPerTrigger: 18 },
      events: [{ type: 'gc', atBatch: gcAtBatch, pauseMs: 60_000 }],
    },
    200,
    {},
    seed,
  );
  const first = run.batches.findIndex((b) => b.truth.startMs >= change);
  const lag = opened(run, 'lag')[0];
  if (lag === undefined) return { afterStep: null, falseAlarm: false };
  if (lag.index < first) return { afterStep: null, falseAlarm: true };
  return { afterStep: lag.index - first, falseAlarm: false };
}

describe('a capped file source overloaded soon after a pause', () => {
  it.each([
    [1, 24],
    [3, 24],
    [1, 28],
    [2, 28],
    [5, 28],
    [6, 28],
  ])('seed %i, a 60 s pause at batch %i: opens within 9 batches of the step, as without a pause', (seed, gcAt) => {
    const { afterStep, falseAlarm } = openingAfterStep(seed, gcAt);
    expect(falseAlarm).toBe(false);
    expect(afterStep).not.toBeNull();
    expect(afterStep!).toBeLessThanOrEqual(9);
  });
});
