/**
 * False alarms on quiet Kafka queries, rebuilt from generated streams. A steady, nearly noiseless
 * feed reads almost the same rows in every batch, as if a cap bound it; a burst or a GC pause then
 * lifts the offsets behind in one step, which is not arrivals outrunning a cap. A GC pause while a
 * capped query still catches up on the previous one is one outsized batch, not a drift nor a creep
 * (the catch-up batches may overrun the trigger, the pause is no step of a creep). Nor are a
 * restart's catch-up batches at the cap longer than the run before it. (Kafka's
 * time behind rising after a burst while the offsets stay put: quiet-draws.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { constantRate, withBursts } from '../../src/simulator/index.js';
import { START, opened, runStream } from './run-stream.js';

describe('quiet Kafka after a disruption', () => {
  it('drained bursts on a nearly noiseless feed are not lag', () => {
    // Seconds after the first trigger, length, extra rows/s: short bursts of 1–2.6× the capacity.
    const shapes = [
      [880, 45_116, 38_281],
      [1_561, 11_479, 44_888],
      [2_329, 23_266, 15_740],
      [2_934, 17_308, 50_329],
    ] as const;
    const bursts = shapes.map(([at, durationMs, extraRowsPerSec]) => ({ atMs: START + at * 1000, durationMs, extraRowsPerSec }));
    for (const seed of Array.from({ length: 80 }, (_, i) => i + 1)) {
      const run = runStream(
        {
          name: 'quiet_feed',
          arrival: withBursts(constantRate(5_927), bursts),
          arrivalNoise: 0.01,
          processing: { rowsPerSecPerCore: 4_858, cores: 8, overheadMs: 940, shuffles: false },
          triggerMs: 21_000,
          // Printed latest = end offsets, the backlog in the behind-latest metrics.
          source: { kind: 'kafka', partitions: 4, latestOffsetAsEnd: true },
          platform: 'dbr-17.1',
        },
        200,
        {},
        seed,
      );
      expect(opened(run, 'lag'), `seed ${seed}`).toEqual([]);
    }
  });

  it('a GC pause on a steady feed under a cap that never binds is not an admission limit', () => {
    const run = runStream(
      {
        name: 'steady_feed',
        arrival: 650,
        arrivalNoise: 0.001,
        processing: { rowsPerSecPerCore: 650, cores: 3, overheadMs: 1_400 },
        triggerMs: 33_000,
        source: { kind: 'kafka', partitions: 3, maxOffsetsPerTrigger: 40_000 },
        platform: 'dbr-17.1',
        events: [20, 45, 63, 90, 120].map((atBatch) => ({ type: 'gc' as const, atBatch, pauseMs: 9_000 + atBatch * 150 })),
      },
      160,
    );
    expect(opened(run, 'lag')).toEqual([]);
  });

  it('a second GC pause while a capped query still catches up on the first is not a drift', () => {
    for (const seed of Array.from({ length: 40 }, (_, i) => i + 1)) {
      const run = runStream(
        {
          name: 'clicks_raw',
          arrival: 5_520,
          arrivalNoise: 0.09,
          processing: { rowsPerSecPerCore: 3_195, cores: 16, overheadMs: 520, shuffles: false },
          // Spark 3.0-era reports: no latestOffset, no source metrics; the cap binds while catching up.
          source: { kind: 'kafka', partitions: 5, maxOffsetsPerTrigger: 13_332 },
          platform: 'spark-3.0',
          events: [
            { type: 'gc', atBatch: 52, pauseMs: 13_300 },
            { type: 'gc', atBatch: 66, pauseMs: 22_600 },
          ],
        },
        120,
        {},
        seed,
      );
      expect(opened(run, 'lag'), `seed ${seed}`).toEqual([]);
    }
  });

  it('a second GC pause while capped catch-up batches overrun the trigger is not a creep', () => {
    // 7,200 rows take about 3.5 s of the 4 s trigger, a capped batch of 10,000 about 4.2 s: the
    // catch-up after the first pause runs late on the trigger, and the second pause comes before it
    // ends. Each pause's residue drains in under a minute.
    for (const seed of Array.from({ length: 20 }, (_, i) => i + 1)) {
      const run = runStream(
        {
          name: 'telemetry_raw',
          arrival: 1_800,
          arrivalNoise: 0.1,
          processing: { rowsPerSecPerCore: 2_200, cores: 2, overheadMs: 1_900 },
          triggerMs: 4_000,
          source: { kind: 'kafka', partitions: 2, maxOffsetsPerTrigger: 10_000 },
          platform: 'dbr-17.1',
          events: [
            { type: 'gc', atBatch: 40, pauseMs: 15_000 },
            { type: 'gc', atBatch: 47, pauseMs: 26_000 },
          ],
        },
        120,
        {},
        seed,
      );
      expect(opened(run, 'lag').map((c) => `${c.index} ${c.incident.summary}`), `seed ${seed}`).toEqual([]);
    }
  });

  it('a restart whose capped catch-up batches overrun the trigger is no creep, though they are longer than the run before', () => {
    // 8,000 rows take about 2 s of the 4 s trigger, a batch at the 40,000 cap about 6 s. Three
    // minutes down leave about 3 min of data, which the cap's 6,700 rows/s drain in about 80 s;
    // under 2 min behind the aftermath leaves the judgement to the ordinary evidence while the
    // 2 s batches of the run before are still in the window.
    for (const seed of Array.from({ length: 20 }, (_, i) => i + 1)) {
      const run = runStream(
        {
          name: 'ads_raw',
          arrival: 2_000,
          arrivalNoise: 0.09,
          processing: { rowsPerSecPerCore: 4_000, cores: 2, overheadMs: 1_000, shuffles: false },
          triggerMs: 4_000,
          source: { kind: 'kafka', partitions: 8, maxOffsetsPerTrigger: 40_000 },
          platform: 'dbr-17.1',
          events: [{ type: 'restart', atBatch: 100, downtimeMs: 3 * 60_000 }],
        },
        160,
        {},
        seed,
      );
      expect(opened(run, 'lag').map((c) => `${c.index} ${c.incident.summary}`), `seed ${seed}`).toEqual([]);
    }
  });
});
