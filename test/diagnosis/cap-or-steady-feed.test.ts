/**
 * Spark 3.0-era Kafka reports carry no backlog figure, so a cap that binds shows only as every batch
 * reading the cap: the engine calls it lag once reads that rose into it have stayed there for 8
 * batches, or once a binding after a restart has lasted the catch-up budget. A steady feed
 * with no cap also reads nearly the same count each batch. Spark prorates a cap over the partitions
 * and rounds each share, so capped batches read within a few offsets of each other (exactly the cap
 * on one partition: a row either way there is no cap), and none reads much more: a count that some
 * batch of the run exceeded is no cap.
 */
import { describe, expect, it } from 'vitest';
import { QueryTracker } from '../../src/diagnosis/query-tracker.js';
import { parseProgress } from '../../src/progress/parse-progress.js';
import type { StreamSpec } from '../../src/simulator/index.js';
import { StreamSimulator, steppedRate } from '../../src/simulator/index.js';
import { MIN, START, opened, runStream } from './run-stream.js';

const steady = (partitions: number, extra: Partial<StreamSpec> = {}): StreamSpec => ({
  name: 'ledger_raw',
  // 113,733.3 rows per trigger: every third batch reads a row more.
  arrival: 1_137.333,
  arrivalNoise: 0,
  processing: { rowsPerSecPerCore: 2_600, cores: 8, overheadMs: 900 },
  triggerMs: 100_000,
  source: { kind: 'kafka', partitions },
  platform: 'spark-3.0',
  ...extra,
});

describe('an admission cap or a steady feed, with no backlog figure', () => {
  it('a steady uncapped feed on one partition, a row more every third batch, is not a cap that binds', () => {
    for (let seed = 900_300; seed < 900_305; seed += 1) {
      const run = runStream(steady(1), 70, {}, seed);
      expect({ seed, lag: opened(run, 'lag').map((c) => c.incident.summary) }).toEqual({ seed, lag: [] });
    }
  });

  it('a steady feed whose count a batch of the same run exceeded (the catch-up after a pause) is not a cap', () => {
    for (let seed = 900_310; seed < 900_315; seed += 1) {
      const run = runStream(steady(8, { events: [{ type: 'gc', atBatch: 6, pauseMs: 150_000 }] }), 70, {}, seed);
      expect({ seed, lag: opened(run, 'lag').map((c) => c.incident.summary) }).toEqual({ seed, lag: [] });
    }
  });

  it('a cap that reads rise into and stay at still opens lag, on one partition and on eight', () => {
    for (const partitions of [1, 8]) {
      const run = runStream(
        {
          ...steady(partitions),
          arrival: steppedRate(1_137.333, [{ atMs: START + 20 * MIN, rowsPerSec: 1_900 }]),
          arrivalNoise: 0.05,
          source: { kind: 'kafka', partitions, maxOffsetsPerTrigger: 150_000 },
        },
        70,
        {},
        900_320,
      );
      const lag = opened(run, 'lag');
      expect(lag.map((c) => c.incident.summary)).toEqual([expect.stringMatching(/^Falling behind: every batch for the last .* \(8 batches\) has read the admission cap \(about 150K offsets\)/)]);
    }
  });
});

describe('a small cap over several partitions', () => {
  it('reads a few offsets short of the cap (shares floored per partition) and still counts as the cap that binds', () => {
    // 30 offsets a trigger over 6 uneven partitions, then 45 records a second arrive: Spark floors
    // each partition's share, so capped batches read 27 to 30, more than 1 % apart.
    const spec: StreamSpec = {
      name: 'clicks_raw',
      arrival: steppedRate(20, [{ atMs: START + 2 * MIN, rowsPerSec: 45 }]),
      arrivalNoise: 0.05,
      processing: { rowsPerSecPerCore: 400, cores: 2, overheadMs: 150 },
      triggerMs: 1_000,
      source: { kind: 'kafka', partitions: 6, maxOffsetsPerTrigger: 30, skew: 0.6 },
      platform: 'spark-3.5',
    };
    const run = runStream(spec, 200, {}, 900_330);
    const reads = run.json.slice(130, 200).map((line) => (JSON.parse(line) as { numInputRows: number }).numInputRows);
    expect(Math.min(...reads)).toBeLessThan(30);
    expect(Math.max(...reads)).toBeLessThanOrEqual(30);
    const onset = run.json.findIndex((line) => Date.parse((JSON.parse(line) as { timestamp: string }).timestamp) >= START + 2 * MIN);
    const lag = opened(run, 'lag');
    // Judged as uncapped with ample capacity, it never opened. The cap takes 5 batches at it to be
    // recognized and the backlog (a third of a second a batch) 2 s to count: past the 8-batch target.
    expect(lag).toHaveLength(1);
    expect(lag[0]!.index - onset).toBeLessThanOrEqual(12);
    expect(lag[0]!.incident.causes[0]?.code).toBe('rate_limit_too_low');
  });
});

describe('the first batch of a run, and the snapshot', () => {
  it('a cap lowered at a restart still binds though the run\'s first batch replays one planned under the old cap', () => {
    // Spark reruns the batch a stopped run left uncommitted with the offsets it had planned: sized
    // under the old cap. That read says nothing about the new cap.
    const sim = new StreamSimulator(
      {
        ...steady(8),
        arrival: steppedRate(1_137.333, [{ atMs: START + 20 * MIN, rowsPerSec: 1_900 }]),
        arrivalNoise: 0.05,
        source: { kind: 'kafka', partitions: 8, maxOffsetsPerTrigger: 200_000 },
        events: [{ type: 'restart', atBatch: 8, downtimeMs: 60_000, cap: 150_000 }],
      },
      { startMs: START, seed: 900_321 },
    );
    const tracker = QueryTracker.create('q', 'ledger_raw');
    const lag: string[] = [];
    let runId: string | null = null;
    for (let i = 0; i < 70; i += 1) {
      const raw = JSON.parse(sim.next().json) as { runId: string; numInputRows: number; sources: { numInputRows: number }[] };
      if (runId !== null && raw.runId !== runId) {
        raw.numInputRows = 200_000;
        raw.sources[0]!.numInputRows = 200_000;
      }
      runId = raw.runId;
      const parsed = parseProgress(raw);
      if (!parsed.ok) throw new Error(parsed.error);
      for (const c of tracker.observe(parsed.progress)) if (c.type === 'opened' && c.incident.kind === 'lag') lag.push(c.incident.summary);
    }
    expect(lag).toEqual([expect.stringMatching(/has read the admission cap \(about 150K offsets\)/)]);
  });

  it('the snapshot says the backlog is unreported only where the lag detector sees a cap', () => {
    const steadyRun = runStream(steady(1), 70, {}, 900_300);
    expect(steadyRun.tracker.snapshot().backlogUnreported).toBe(false);
    const capped = runStream({ ...steady(1), source: { kind: 'kafka', partitions: 1, maxOffsetsPerTrigger: 90_000 } }, 70, {}, 900_300);
    expect(capped.tracker.snapshot().backlogUnreported).toBe(true);
  });
});

describe('a steady uncapped Kafka feed with a backlog figure (Databricks 17.1)', () => {
  it('is not taken for a capped query once a batch of the run read more than its steady count', () => {
    // Nearly noiseless input at about 70 % of capacity: every batch reads nearly the same count, as
    // under a cap, and the trend test would skip its load check for a capped query. GC pauses of
    // 3–28 s lift time behind for a batch or two; the batch after a pause reads more than the
    // steady count, which no cap allows (40 draws; the engine before this opened lag on several).
    const pause = (atBatch: number, pauseMs: number) => ({ type: 'gc' as const, atBatch, pauseMs });
    const events = [pause(27, 24_000), pause(29, 8_600), pause(33, 8_400), pause(57, 19_600), pause(77, 3_300),
      pause(81, 8_600), pause(88, 27_800), pause(98, 15_900), pause(105, 4_900), pause(115, 22_400)];
    const alarms: string[] = [];
    for (let seed = 900_330; seed < 900_370; seed += 1) {
      const run = runStream(
        {
          arrival: 620,
          arrivalNoise: 0.002,
          processing: { rowsPerSecPerCore: 455, cores: 2, overheadMs: 1_400 },
          triggerMs: 35_000,
          source: { kind: 'kafka', partitions: 2 },
          events,
        },
        125,
        {},
        seed,
      );
      for (const c of opened(run, 'lag')) alarms.push(`${seed} @${c.index}: ${c.incident.summary}`);
    }
    expect(alarms).toEqual([]);
  });
});

describe('a noisy uncapped feed over many partitions', () => {
  it('is not taken for one at a cap whose offsets behind rise (179 partitions, a few hundred offsets a batch)', () => {
    // Floored shares of a cap would spread reads by up to 178 offsets, about half of a batch here:
    // the reads cannot tell a cap, so their noise and the backlog's wobble are not admission lag.
    const spec: StreamSpec = {
      name: 'payments_silver',
      arrival: 264,
      arrivalNoise: 0.13,
      processing: { rowsPerSecPerCore: 361, cores: 2, overheadMs: 612 },
      triggerMs: 0,
      source: { kind: 'kafka', partitions: 179, latestOffsetAsEnd: true },
      platform: 'dbr-17.1',
    };
    for (let seed = 900_340; seed < 900_346; seed += 1) {
      const run = runStream(spec, 400, {}, seed);
      expect({ seed, lag: opened(run, 'lag').map((c) => c.incident.summary) }).toEqual({ seed, lag: [] });
    }
  });
});

