/**
 * Overloads that open late when the signals disagree for a few batches, each rebuilt from generated
 * streams over several seeds: capacity lost at a long trigger (the measured capacity still holds
 * the faster batches), an 11 % overload in noisy input (a fit on eight pairs of batches reads it as
 * converging), a cap that starts binding on open-source Spark (its offsets behind are counted at
 * planning, so the time behind fell from a batch's duration to a few seconds as the cap bit), and
 * capacity lost on reports with no backlog figure while reads rise into a cap (the binding counted
 * its batches from the first read at the cap, not from the first slow batch), and Auto Loader
 * under maxFilesPerTrigger (files listed at planning: the time behind fell from a batch's duration
 * to a few seconds when the first file was left over), and Auto Loader files outrunning the cap
 * (one file fewer waiting for a batch started the never-falling count over).
 */
import { describe, expect, it } from 'vitest';
import type { BatchFeatures } from '../../src/diagnosis/batch-features.js';
import { processingCapacity, timeBehindOf } from '../../src/diagnosis/query-analysis.js';
import { constantRate, rampRate, steppedRate, withIdleGaps, type SimulatedBatch, type StreamSpec } from '../../src/simulator/index.js';
import { START, runStream, opened } from './run-stream.js';

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

/** First report at or after `changeIndex` whose true time behind exceeds every one before it. */
function onsetIndex(batches: readonly SimulatedBatch[], changeIndex: number): number {
  const healthy = Math.max(0, ...batches.slice(0, changeIndex).map((b) => b.truth.timeBehindSec));
  return batches.findIndex((b, i) => i >= changeIndex && b.truth.timeBehindSec > healthy);
}

/**
 * Every seed opens lag within 8 batches of the onset of the overload that begins at `changeIndex`;
 * returns each seed's first lag opening for further checks.
 */
function expectOpensWithin8(spec: StreamSpec, reports: number, changeIndex: number): ReturnType<typeof opened>[number][] {
  const firsts: ReturnType<typeof opened>[number][] = [];
  for (const seed of SEEDS) {
    const run = runStream(spec, reports, {}, seed);
    const lag = opened(run, 'lag');
    const onset = onsetIndex(run.batches, changeIndex);
    expect(onset, `seed ${seed}`).toBeGreaterThanOrEqual(changeIndex);
    expect(lag, `seed ${seed}`).not.toHaveLength(0);
    // Not before the change either: an alarm before it would be a false one.
    expect(lag[0]!.index, `seed ${seed}`).toBeGreaterThanOrEqual(changeIndex);
    expect(lag[0]!.index - onset, `seed ${seed}`).toBeLessThanOrEqual(8);
    firsts.push(lag[0]!);
  }
  return firsts;
}

describe('overloads whose signals disagree for a few batches', () => {
  it('capacity lost at a 4-minute trigger (input 11 % over what is left) opens within 8 batches', () => {
    const spec: StreamSpec = {
      name: 'orders',
      arrival: 12_000,
      arrivalNoise: 0.12,
      processing: { rowsPerSecPerCore: 2_500, cores: 8, overheadMs: 400 }, // 20,000 rows/s
      triggerMs: 240_000,
      source: { kind: 'kafka', partitions: 36 },
      events: [{ type: 'change', atBatch: 40, rowsPerSecPerCore: 1_351 }], // 10,810 rows/s
    };
    expectOpensWithin8(spec, 60, 40);
  });

  it('a step to 111 % in input with 14 % noise at a 90 s trigger opens within 8 batches', () => {
    const capacity = 5_500;
    const changeMs = START + 50 * 90_000 + 45_000;
    const spec: StreamSpec = {
      name: 'clicks',
      arrival: steppedRate(0.8 * capacity, [{ atMs: changeMs, rowsPerSec: 1.11 * capacity }]),
      arrivalNoise: 0.14,
      processing: { rowsPerSecPerCore: capacity / 16, cores: 16, overheadMs: 1_400 },
      triggerMs: 90_000,
      source: { kind: 'kafka', partitions: 16, latestOffsetAsEnd: true },
    };
    expectOpensWithin8(spec, 68, 51);
  });

  it('open-source Spark, capacity lost until the cap binds: opens within 8 batches', () => {
    const spec: StreamSpec = {
      name: 'payments',
      arrival: 2_800,
      arrivalNoise: 0.04,
      processing: { rowsPerSecPerCore: 700, cores: 8, overheadMs: 600 }, // 5,600 rows/s
      triggerMs: 105_000,
      platform: 'spark-3.5',
      source: { kind: 'kafka', partitions: 93, maxOffsetsPerTrigger: 472_500 }, // 4,500 rows/s
      events: [{ type: 'change', atBatch: 40, rowsPerSecPerCore: 313 }], // 2,500 rows/s
    };
    expectOpensWithin8(spec, 60, 40);
  });

  it('Spark 3.0-era reports, back to back under a cap: capacity lost as reads rise into the cap opens within 8 batches, blaming capacity', () => {
    const spec: StreamSpec = {
      name: 'telemetry',
      arrival: 6_150,
      arrivalNoise: 0.1,
      processing: { rowsPerSecPerCore: 950, cores: 16, overheadMs: 1_300 }, // 15,200 rows/s
      triggerMs: 0,
      platform: 'spark-3.0',
      source: { kind: 'kafka', partitions: 17, maxOffsetsPerTrigger: 30_200 },
      events: [{ type: 'change', atBatch: 130, rowsPerSecPerCore: 343 }], // 5,490 rows/s: input 112 % of it
    };
    expectOpensWithin8(spec, 160, 130).forEach((first, i) => {
      expect(first.incident.causes[0], `seed ${SEEDS[i]}`).toMatchObject({ code: 'insufficient_capacity' });
      expect(first.incident.summary, `seed ${SEEDS[i]}`).toMatch(/processing lost capacity/);
    });
  });
});

describe('Auto Loader under maxFilesPerTrigger, capacity lost at a short trigger', () => {
  // Files are listed at planning: with none left over the time behind is the batch's duration;
  // when the first file is left over it must not drop to that file's few seconds of arrivals.
  const spec: StreamSpec = {
    name: 'clickstream',
    arrival: 2_300,
    arrivalNoise: 0.06,
    processing: { rowsPerSecPerCore: 2_250, cores: 4, overheadMs: 500 }, // 9,000 rows/s
    triggerMs: 8_000,
    source: { kind: 'autoloader', rowsPerFile: 6_000, maxFilesPerTrigger: 5 },
    events: [{ type: 'change', atBatch: 100, rowsPerSecPerCore: 513 }], // 2,052 rows/s: input 112 % of it
  };

  it('opens within 8 batches', () => {
    expectOpensWithin8(spec, 130, 100);
  });

  it('the time behind never falls below the batch duration while files wait', () => {
    for (const seed of SEEDS.slice(0, 4)) {
      const run = runStream(spec, 130, {}, seed, true);
      run.timeBehind.forEach((behind, i) => {
        const b = run.batches[i]!;
        const durationSec = Number(b.progress.batchDuration) / 1000;
        if (i >= 100 && behind !== null && b.truth.timeBehindSec > durationSec) {
          expect(behind, `seed ${seed} #${i}`).toBeGreaterThanOrEqual(durationSec);
        }
      });
    }
  });
});

describe('Auto Loader whose new files outrun maxFilesPerTrigger, with noisy arrivals', () => {
  it('a ramp past the cap opens within 8 batches of reaching 110 % of it, although the files waiting dip now and then', () => {
    const T = 98_000;
    const admitted = (10 * 40_000) / (T / 1000); // 10 files of 40,000 rows per trigger: 4,082 rows/s
    const spec: StreamSpec = {
      name: 'clicks_bronze',
      // 60 % → 135 % of the cap over batches 20-50: past the cap at batch 36, past 110 % at 40.
      arrival: rampRate(0.6 * admitted, 1.35 * admitted, START + 20 * T, START + 50 * T),
      arrivalNoise: 0.11,
      processing: { rowsPerSecPerCore: 2_000, cores: 4, overheadMs: 1_500 }, // 8,000 rows/s
      triggerMs: T,
      source: { kind: 'autoloader', rowsPerFile: 40_000, maxFilesPerTrigger: 10 },
    };
    for (const seed of SEEDS) {
      const lag = opened(runStream(spec, 70, {}, seed), 'lag');
      expect(lag, `seed ${seed}`).not.toHaveLength(0);
      expect(lag[0]!.index, `seed ${seed}`).toBeGreaterThanOrEqual(36);
      expect(lag[0]!.index, `seed ${seed}`).toBeLessThanOrEqual(40 + 8);
    }
  });
});

describe('latest offsets read after the batch, with idle gaps', () => {
  /** 73 % load at a 5-minute trigger on one partition, with three idle gaps of 30-50 minutes. */
  function idleGapsSpec(arrivalNoise: number): StreamSpec {
    const minutes = (m: number) => START + m * 60_000;
    return {
      name: 'events',
      arrival: withIdleGaps(constantRate(0.73 * 3_000), [
        { atMs: minutes(150), durationMs: 40 * 60_000 },
        { atMs: minutes(330), durationMs: 50 * 60_000 },
        { atMs: minutes(510), durationMs: 30 * 60_000 },
      ]),
      arrivalNoise,
      processing: { rowsPerSecPerCore: 3_000, cores: 4, overheadMs: 1_200 }, // one partition: 3,000 rows/s
      triggerMs: 300_000,
      source: { kind: 'kafka', partitions: 1, latestOffsetAsEnd: true },
    };
  }

  it('noisy input stays quiet: batches that saw nothing arrive do not make it planning-time', () => {
    for (const seed of SEEDS) expect(opened(runStream(idleGapsSpec(0.15), 150, {}, seed), 'lag'), `seed ${seed}`).toHaveLength(0);
  });

  it('steady input keeps its time behind true after each gap (one batch per gap saw nothing arrive)', () => {
    for (const seed of SEEDS.slice(0, 4)) {
      const run = runStream(idleGapsSpec(0.02), 150, {}, seed);
      const truth = run.batches.at(-1)!.truth.timeBehindSec;
      expect(run.tracker.snapshot().timeBehindSec, `seed ${seed}`).toBeLessThan(1.3 * truth);
    }
  });
});

/** A batch's features with only what the functions below read set. */
function batch(over: Partial<BatchFeatures>): BatchFeatures {
  return {
    batchId: 0, t: 0, d: 10_000, rows: 100_000, inRate: null, procRate: null, addBatchMs: 5_000, sinkCommitMs: 0,
    kafkaLatest: null, kafkaEnd: null, kafkaBehind: null, filesOutstanding: null, bytesOutstanding: null, msBehind: null,
    stateRows: null, stateBytes: null, stateRemoved: 0, stateUpdated: 0, stateCommitMs: 0, repartitionMs: null,
    watermark: 0, restart: 0, arrival: null, timeBehindSec: null, kLatest: [], kBehind: [], kRows: [], kArrival: [], filesRead: null, filesInCommit: null,
    ...over,
  } as BatchFeatures;
}

describe('processingCapacity after capacity is lost', () => {
  const steady = Array.from({ length: 12 }, (_, i) => batch({ batchId: i, rows: 100_000 + (i % 3) * 2_000, addBatchMs: 5_000 }));

  it('three batches reading as much at half the rate: the rate since, not the earlier batches', () => {
    const slow = [12, 13, 14].map((i) => batch({ batchId: i, rows: 102_000, addBatchMs: 10_200 }));
    expect(processingCapacity([...steady, ...slow])).toBeCloseTo(10_000, -2);
  });

  it('two slow batches (GC pauses in a row) leave the capacity where it was', () => {
    const slow = [12, 13].map((i) => batch({ batchId: i, rows: 102_000, addBatchMs: 10_200 }));
    const next = batch({ batchId: 14, rows: 100_000, addBatchMs: 5_000 });
    expect(processingCapacity([...steady, ...slow, next])).toBeGreaterThan(19_000);
  });

  it('smaller batches, slower per row (a fixed cost weighs more): not capacity lost', () => {
    const small = [12, 13, 14].map((i) => batch({ batchId: i, rows: 20_000, addBatchMs: 1_800 }));
    expect(processingCapacity([...steady, ...small])).toBeGreaterThan(19_000);
  });
});

describe('timeBehindOf with latest offsets read at planning', () => {
  const capped = batch({ d: 100_000, kafkaBehind: 50_000, arrival: 1_000 });

  it('counts what arrived while the batch ran on top of the offsets behind', () => {
    expect(timeBehindOf(capped, true)).toBeCloseTo(150);
  });

  it('reads the offsets alone when latest is read after the batch', () => {
    expect(timeBehindOf(capped, false)).toBeCloseTo(50);
  });
});
