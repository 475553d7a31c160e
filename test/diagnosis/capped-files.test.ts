/**
 * A capped Delta source (maxFilesPerTrigger) whose new files start to outrun the cap: every batch
 * reads the cap and the files waiting creep up a file at a time, too noisy for a trend test over 8
 * batches. Rebuilt from generated streams.
 */
import { describe, expect, it } from 'vitest';
import { StreamSimulator, steppedRate, type SimulatedBatch } from '../../src/simulator/index.js';
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
