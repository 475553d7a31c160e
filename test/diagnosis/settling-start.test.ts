/**
 * A query that starts with capacity to spare, but not much (ρ ≈ 0.93, batches back to back): its
 * batches lengthen from the first one's towards o/(1−ρ) over a few dozen batches and settle there.
 * That rise is strong over the drift window, and the rates put arrivals at or above capacity now
 * and then (whole files of 60,000 rows make the reads lumpy); it slows down as it goes, which
 * ground lost to an overload does not.
 */
import { describe, expect, it } from 'vitest';
import { runRandomEngine, scoreRandom } from '../../src/simulator/evaluation/index.js';
import type { StreamSpec } from '../../src/simulator/index.js';
import { drawScenario, simulateRandom } from '../../src/simulator/random/index.js';
import type { ReportingMode } from '../../src/simulator/random/types.js';
import { opened, runStream } from './run-stream.js';

const CAPACITY = 8 * 2_200;

function startingAt(load: number): StreamSpec {
  return {
    name: 'orders_enriched',
    arrival: load * CAPACITY,
    arrivalNoise: 0.005,
    processing: { rowsPerSecPerCore: 2_200, cores: 8, overheadMs: 1_100, shuffles: false },
    triggerMs: 0,
    source: { kind: 'autoloader', path: 's3://landing/orders/', rowsPerFile: 60_000 },
  };
}

describe('a start that settles towards its steady batch duration', () => {
  it('is no drift: Auto Loader read back to back at 93-94 % load', () => {
    const openings: string[] = [];
    for (const load of [0.93, 0.94]) {
      for (let seed = 1; seed <= 12; seed += 1) {
        const run = runStream(startingAt(load), 90, {}, seed);
        for (const c of opened(run, 'lag')) openings.push(`load ${load} seed ${seed} at #${c.index}: ${c.incident.summary}`);
      }
    }
    // The input's noise alone still makes the odd short creep this close to capacity; the settling
    // start made 8 of these 24 open lag.
    expect(openings.length, openings.join('\n')).toBeLessThanOrEqual(1);
  });

  it('still finds a drift that keeps its pace: the same query 6 % over capacity from the start', () => {
    for (let seed = 1; seed <= 6; seed += 1) {
      const run = runStream(startingAt(1.06), 90, {}, seed);
      expect(opened(run, 'lag').length, `seed ${seed}`).toBe(1);
    }
  });
});

describe('a young run settling from its start', () => {
  // Two randomized draws (slow-catch-up family, from the seeds the engine is tuned on) whose query
  // starts back to back at 89-92 % load with 14-15 % input noise: in its first dozen batches the
  // lag signal rose steeply enough for a trend, ever more slowly. Their one labelled episode, a
  // restart much later, is still found at once.
  it.each([
    [2_069, 'delta-files'],
    [2_205, 'kinesis'],
  ] as [number, ReportingMode][])('is no trend (draw %i, %s)', (seed, mode) => {
    const sim = simulateRandom(drawScenario(seed, { family: 'slow-catch-up', mode }));
    const score = scoreRandom(sim, runRandomEngine(sim));
    expect(score.falseAlarms.map((a) => `${a.kind}@#${a.index} ${a.summary}`)).toEqual([]);
    expect(score.episodes.map((e) => e.found)).toEqual([true]);
  });
});

describe('an incident a young run opened while filling up', () => {
  // Kinesis read back to back at 89 % load with 14.5 % input noise: batches lengthen from 2 s
  // towards o/(1−ρ) ≈ 18 s, and the noise then carries them between about 12 s and 40 s for dozens
  // of batches at a time. Some seeds open lag on the climb.
  const wandering: StreamSpec = {
    name: 'clickstream_enriched',
    arrival: 0.89 * 876,
    arrivalNoise: 0.145,
    processing: { rowsPerSecPerCore: 438, cores: 2, overheadMs: 2_000 },
    triggerMs: 0,
    source: { kind: 'kinesis', stream: 'clicks', shards: 13 },
    platform: 'dbr-17.1',
  };

  it('resolves once the level holds, though noise wanders around it', () => {
    const young: string[] = [];
    for (let seed = 1; seed <= 100; seed += 1) {
      const run = runStream(wandering, 160, {}, seed);
      const lag = run.changes.filter((c) => c.incident.kind === 'lag');
      for (const open of lag.filter((c) => c.type === 'opened' && c.index < 32)) {
        const resolved = lag.find((c) => c.type === 'resolved' && c.index > open.index);
        young.push(`seed ${seed}: opened #${open.index}, resolved ${resolved ? `#${resolved.index}` : 'never'}`);
        // Judged by a rank test for trend, one stayed open 119 batches: a Mann–Kendall z assumes
        // independent values, and these wander.
        expect(resolved && resolved.index - open.index, young.at(-1)).toBeLessThanOrEqual(70);
      }
    }
    // The class is there: several seeds open on the climb.
    expect(young.length, young.join('\n')).toBeGreaterThanOrEqual(3);
  });
});

describe('a start on a fixed trigger that batches outgrow for a while', () => {
  // Near capacity the batches lengthen past the trigger from the run's start, noise carrying them
  // on for a while, and the time behind follows them (about a batch): no creep, whose cost grows
  // later in a run. Draws from a range judged on (630000–631499 of near-capacity and utilization).
  it.each([
    [630_452, 'near-capacity'],
    [630_928, 'utilization'],
  ] as const)('draw %i (%s) raises no alarm', (seed, family) => {
    const sim = simulateRandom(drawScenario(seed, { family }));
    const score = scoreRandom(sim, runRandomEngine(sim));
    expect(score.falseAlarms.map((a) => `q${a.query} ${a.kind}@#${a.index} ${a.summary}`)).toEqual([]);
  });
});
