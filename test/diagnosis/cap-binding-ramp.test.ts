/**
 * Spark 3.0-era Kafka reports (no backlog figure) of a capped query whose input ramps or steps into
 * the cap: the last read of the rise often lands a few dozen offsets short of it (inside the band
 * reads are matched to a cap in, outside how far reads at one cap spread), and a dip or two may
 * follow while arrivals hover at the cap. That short read made the whole binding "spread", taken
 * for noisy input and judged only by the catch-up budget (30 minutes of reads at the cap), or, after
 * a dip, by nothing. A read that far below the run's highest now starts the run after it. On
 * 51,000 draws: 2 episodes that never opened now do, 1 overload more inside its deadline (11
 * batches to 7), one found after 10 batches instead of 301, nothing later and no false alarm added
 * or removed.
 */
import { describe, expect, it } from 'vitest';
import { runRandomEngine, scoreRandom } from '../../src/simulator/evaluation/index.js';
import { drawScenario, simulateRandom } from '../../src/simulator/random/index.js';

function score(seed: number) {
  const sim = simulateRandom(drawScenario(seed));
  return { sim, score: scoreRandom(sim, runRandomEngine(sim)) };
}

describe('a capped query without a backlog figure whose input rises into the cap', () => {
  it.each([
    [876_446, 'capacity-drop', 8],
    [894_136, 'ramp-overload', 3],
    [500_689, 'interleaved', 9],
    [973_424, 'ramp-overload', 8],
  ] as [number, string, number][])('opens lag once the cap binds (draw %i, %s, within %i batches)', (seed, family, within) => {
    const { sim, score: s } = score(seed);
    expect(sim.scenario.mode).toBe('no-metrics');
    expect(sim.scenario.family).toBe(family);
    const episode = s.episodes[0]!;
    expect(sim.queries[episode.query]!.query.spec.source.kind).toBe('kafka');
    expect(episode.incidents).toBe(1);
    // Before: 11 batches for the first, the others never.
    expect(episode.delayReports).not.toBeNull();
    expect(episode.delayReports!).toBeLessThanOrEqual(within);
    expect(s.falseAlarms).toEqual([]);
  });
});
