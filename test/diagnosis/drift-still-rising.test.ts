/**
 * A drift is ground lost at a steady pace, so its newest batches still rise. Three randomized draws
 * opened lag on drift where they had stopped rising:
 * - a capped burst that lifted the backlog in two batches and then held it;
 * - a near-capacity Auto Loader query whose noise walked the batches up and then levelled off;
 * - a query in a stall draw that wandered after the stall.
 * In each, the 24-batch window still read as a strong Mann–Kendall rise, but the Theil–Sen slope
 * over the newest 8 batches was flat or falling. On 36,000 draws these were the only draws to move:
 * 4 false alarms fewer, and no episode found later that had been found in time.
 */
import { describe, expect, it } from 'vitest';
import { runRandomEngine, scoreRandom } from '../../src/simulator/evaluation/index.js';
import { drawScenario, simulateRandom } from '../../src/simulator/random/index.js';

describe('a drift that has stopped rising', () => {
  it.each([
    [801_780, 'interleaved', [true]],
    [860_450, 'stall', []],
    [889_508, 'near-capacity', []],
  ] as [number, string, boolean[]][])('is no lag (draw %i, %s)', (seed, family, found) => {
    const sim = simulateRandom(drawScenario(seed));
    expect(sim.scenario.family).toBe(family);
    const score = scoreRandom(sim, runRandomEngine(sim));
    expect(score.falseAlarms.map((a) => `q${a.query} ${a.kind}@#${a.index} ${a.summary}`)).toEqual([]);
    // The labelled episodes are found as before (the interleaved draw's lagging query within 8 batches).
    expect(score.episodes.map((e) => e.found)).toEqual(found);
  });
});
