/**
 * The relapse cool-down on a slow trigger. Thirty minutes are six batches of a 5-minute trigger,
 * fewer than lag takes to show again after a premature "back to normal": the re-opening then came as
 * a second incident (a second Slack alert for one episode). The cool-down also spans
 * `relapseCooldownBatches` batches, and survives the tracker's saved state as the worker restores
 * it for every poll.
 */
import { describe, expect, it } from 'vitest';
import { TUNING } from '../../src/diagnosis/engine-options.js';
import { QueryTracker } from '../../src/diagnosis/query-tracker.js';
import type { IncidentChange } from '../../src/diagnosis/types.js';
import { parseProgress } from '../../src/progress/parse-progress.js';
import { StreamSimulator, steppedRate, type StreamSpec } from '../../src/simulator/index.js';
import { MIN, START } from './run-stream.js';

const T = 5 * MIN;

/**
 * 20,000 rows/s of capacity on a 5-minute trigger: 130 % load for 50 minutes, a lull, then 130 %
 * again `gap` trigger intervals later. (30 minutes of it, 12 minutes behind at the most, drain
 * within half the catch-up budget once the input drops: a burst, which opens nothing.)
 */
function spec(gap: number): StreamSpec {
  return {
    name: 'orders_hourly',
    processing: { rowsPerSecPerCore: 2_500, cores: 8, overheadMs: 2_000 },
    triggerMs: T,
    arrival: steppedRate(10_000, [
      { atMs: START + 20 * T, rowsPerSec: 26_000 },
      { atMs: START + 30 * T, rowsPerSec: 8_000 },
      { atMs: START + (30 + gap) * T, rowsPerSec: 26_000 },
    ]),
    source: { kind: 'kafka', topic: 'orders', partitions: 16 },
  };
}

/** Every report through a tracker restored from its saved state each time, as the worker does. */
function run(gap: number, reports = 70): (IncidentChange & { index: number })[] {
  const sim = new StreamSimulator(spec(gap), { startMs: START, seed: 3 });
  let tracker = QueryTracker.create('q', 'orders_hourly');
  const changes: (IncidentChange & { index: number })[] = [];
  for (let index = 0; index < reports; index += 1) {
    const parsed = parseProgress(JSON.parse(sim.next().json));
    if (!parsed.ok) throw new Error(parsed.error);
    for (const change of tracker.observe(parsed.progress)) changes.push({ ...change, index });
    tracker = QueryTracker.restore(JSON.parse(JSON.stringify(tracker.toState())));
  }
  return changes.filter((c) => c.incident.kind === 'lag');
}

describe('a relapse on a 5-minute trigger', () => {
  it('re-opens the same incident 7 batches (35 minutes) after it resolved, not a second one', () => {
    const lag = run(11);
    const resolved = lag.find((c) => c.type === 'resolved');
    expect(resolved).toBeDefined();
    const after = lag.filter((c) => c.index > resolved!.index && c.type !== 'resolved');
    // Before the cool-down counted batches, this was a new `opened` 35 minutes after the resolution.
    expect(after[0]).toMatchObject({ type: 'updated', incident: { relapses: 1 } });
    expect((after[0]!.index - resolved!.index) * T).toBeGreaterThan(TUNING.relapseCooldownMs);
    expect(after[0]!.index - resolved!.index).toBeLessThanOrEqual(TUNING.relapseCooldownBatches);
    expect(new Set(lag.map((c) => c.incident.openedAt)).size).toBe(1);
  });

  it('still opens a new incident for lag that comes back well after both the 30 minutes and the 12 batches', () => {
    const lag = run(25, 80);
    const resolved = lag.find((c) => c.type === 'resolved')!;
    const opened = lag.filter((c) => c.type === 'opened');
    expect(opened).toHaveLength(2);
    expect(opened[1]!.index - resolved.index).toBeGreaterThan(TUNING.relapseCooldownBatches);
  });
});
