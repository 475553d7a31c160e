/**
 * A capped Delta source (maxFilesPerTrigger) whose new files start to outrun the cap: every batch
 * reads the cap and the files waiting creep up a file at a time, too noisy for a trend test over 8
 * batches. Rebuilt from generated streams. And one that must stay quiet: a GC pause on a capped
 * source, whose catch-up batches read the cap and overrun the trigger while the files waiting fall.
 */
import { describe, expect, it } from 'vitest';
import { StreamSimulator, steppedRate, type SimulatedBatch } from '../../src/simulator/index.js';
import { opened as openedIn, runStream } from './run-stream.js';
import { parseProgress } from '../../src/progress/parse-progress.js';
import { QueryTracker } from '../../src/diagnosis/query-tracker.js';
import { MIN, START } from './run-stream.js';

function firstLagAfterOnset(seed: number): { onset: number; opened: number | null; falseAlarm: boolean } {
  const change = START + 3 * MIN;
  const sim = new StreamSimulator(
    {
      name: 'orders_bronze',
      arrival: steppedRate(4_900, [{ atMs: change, rowsPerSec: 7_650 }]),
      arrivalNoise: 0.13,
      processing: { rowsPerSecPerCore: 777, cores: 16, overheadMs: 520, shuffles: false },
      source: { kind: 'delta', rowsPerFile: 3_281, maxFilesPerTrigger: 3 },
    },
    { startMs: START, seed },
  );
  const tracker = QueryTracker.create('q', 'orders_bronze');
  const batches: SimulatedBatch[] = [];
  let opened: number | null = null;
  let falseAlarm = false;
  for (let index = 0; index < 400 && opened === null; index += 1) {
    const batch = sim.next();
    batches.push(batch);
    const parsed = parseProgress(JSON.parse(batch.json));
    if (!parsed.ok) throw new Error(parsed.error);
    for (const c of tracker.observe(parsed.progress)) {
      if (c.type !== 'opened' || c.incident.kind !== 'lag') continue;
      if (batch.truth.startMs < change) falseAlarm = true;
      else opened = index;
    }
  }
  const first = batches.findIndex((b) => b.truth.startMs >= change);
  const healthy = Math.max(0, ...batches.slice(0, first).map((b) => b.truth.timeBehindSec));
  const onset = batches.findIndex((b, i) => i >= first && b.truth.timeBehindSec > healthy);
  return { onset, opened, falseAlarm };
}

describe('a capped file source whose arrivals outrun its cap', () => {
  it('opens within 8 batches of the onset, a file at a time', () => {
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const { onset, opened, falseAlarm } = firstLagAfterOnset(seed);
      expect(falseAlarm, `seed ${seed}`).toBe(false);
      expect(opened, `seed ${seed}`).not.toBeNull();
      expect(opened! - onset, `seed ${seed}`).toBeLessThanOrEqual(8);
    }
  });
});

describe('a capped file source catching up after a GC pause', () => {
  it('stays quiet while the files waiting fall, though the batches at the cap overrun the trigger', () => {
    // 14,000 rows take about 1.6 s of the 2 s trigger, a capped batch of 12 files (24,000 rows)
    // about 2.2 s, which admits about 10,900 rows/s against 7,000 arriving: a 7.5 s pause leaves
    // some 26 files, drained in about 15 s.
    for (let seed = 1; seed <= 20; seed += 1) {
      const run = runStream(
        {
          name: 'orders_bronze',
          arrival: 7_000,
          arrivalNoise: 0.14,
          processing: { rowsPerSecPerCore: 1_000, cores: 16, overheadMs: 700, shuffles: false },
          triggerMs: 2_000,
          source: { kind: 'delta', rowsPerFile: 2_000, maxFilesPerTrigger: 12 },
          platform: 'dbr-17.1',
          events: [35, 90, 150].map((atBatch) => ({ type: 'gc' as const, atBatch, pauseMs: 7_500 })),
        },
        200,
        {},
        seed,
      );
      expect(openedIn(run, 'lag').map((c) => `${c.index} ${c.incident.summary}`), `seed ${seed}`).toEqual([]);
    }
  });
});
