/**
 * With no backlog figure, a binding cap whose batches admit clearly less than arrived before it is
 * capacity lost (`admitsLess`). GC pauses at the cap admit little for a batch each: two in four
 * batches pulled the median under the arrivals and opened lag on a query that caught up, with
 * batches back at their usual pace. Capacity lost stays lost, so the newest batches at the cap
 * must admit too little as well. Judged on 2,100 forced Spark 3.0-era GC-pause draws (615000–617499):
 * 3 false alarms gone; 2,100 capacity drops, steps, stalls and interleaved logs and 2,000 mixed
 * draws of that mode: none moved.
 */
import { describe, expect, it } from 'vitest';
import { runRandomEngine, scoreRandom } from '../../src/simulator/evaluation/index.js';
import { drawScenario, simulateRandom } from '../../src/simulator/random/index.js';

describe('GC pauses at a binding cap on reports with no backlog figure', () => {
  it.each([615_082, 616_363, 616_653])('are no capacity lost once the batches are back at their pace (draw %i)', (seed) => {
    const sim = simulateRandom(drawScenario(seed, { family: 'gc-spikes', mode: 'no-metrics' }));
    const score = scoreRandom(sim, runRandomEngine(sim));
    expect(score.falseAlarms.map((a) => `q${a.query} ${a.kind}@#${a.index} ${a.summary}`)).toEqual([]);
  });
});
