/**
 * Must-stay-quiet draws from a seed range nobody tunes on (900,000+): bursts on Kafka queries,
 * from 1 s to 5 min triggers. A burst that drains is not lag however far behind it puts a slow
 * trigger for one batch, and a batch that read a burst at the usual pace has not hung.
 */
import { describe, expect, it } from 'vitest';
import { runRandomEngine, scoreRandom } from '../../src/simulator/evaluation/index.js';
import { drawScenario, simulateRandom } from '../../src/simulator/random/index.js';

const DRAWS = 150;
const SEED_BASE = 900_000;

describe('quiet bursts on Kafka, on draws not tuned on', () => {
  it(`opens nothing on ${DRAWS} draws`, () => {
    const alarms: string[] = [];
    for (let seed = SEED_BASE; seed < SEED_BASE + DRAWS; seed += 1) {
      const sim = simulateRandom(drawScenario(seed, { family: 'bursts', mode: 'dbr-17.1' }));
      const score = scoreRandom(sim, runRandomEngine(sim));
      for (const alarm of score.falseAlarms) alarms.push(`seed ${seed}: ${alarm.kind}@#${alarm.index} ${alarm.summary}`);
    }
    expect(alarms).toEqual([]);
  }, 60_000);
});
