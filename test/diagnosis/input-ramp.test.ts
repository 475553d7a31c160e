/**
 * An uncapped query whose input ramps past its capacity. The backlog lives inside its batches
 * (each reads all that arrived), and the median arrival rate of the last few batches trails a ramp:
 * at the deadline it read a load factor near 1 while the input was already 10-20 % past capacity,
 * so the trend's load test held the opening back and the cause said "load factor 0.98". The ramp
 * (input-ramp.ts) reads where the input has got to.
 */
import { describe, expect, it } from 'vitest';
import { extractFeatures, type BatchFeatures } from '../../src/diagnosis/batch-features.js';
import { inputRamp, RAMP_WINDOW } from '../../src/diagnosis/input-ramp.js';
import { arrivalRateAt, medianArrival } from '../../src/diagnosis/query-analysis.js';
import { parseProgress } from '../../src/progress/parse-progress.js';
import { StreamSimulator, rampRate, steppedRate, type StreamSpec } from '../../src/simulator/index.js';
import { MIN, START, opened, runStream } from './run-stream.js';

/** Rows per second of busy time the query processes (4 cores × 1,000), before its per-batch overhead. */
const CAPACITY = 4_000;

/** Open-source Spark reports of an uncapped Kafka query: its offsets behind read 0 however far behind. */
function rampSpec(triggerSec: number, noise: number, from: number, to: number, rampMin: number): StreamSpec {
  const start = START + 30 * MIN;
  return {
    name: 'clicks_enriched',
    arrival: rampRate(from * CAPACITY, to * CAPACITY, start, start + rampMin * MIN),
    arrivalNoise: noise,
    processing: { rowsPerSecPerCore: 1_000, cores: 4, overheadMs: 800 },
    triggerMs: triggerSec * 1000,
    source: { kind: 'kafka', partitions: 16 },
    platform: 'spark-4.0',
  };
}

/** The features the tracker would hold for each report of `spec` (restarts marked, arrivals derived). */
function featuresOf(spec: StreamSpec, reports: number, seed: number): { features: BatchFeatures[]; endMs: number[]; load: number[] } {
  const sim = new StreamSimulator(spec, { startMs: START, seed });
  const features: BatchFeatures[] = [];
  const endMs: number[] = [];
  const load: number[] = [];
  let runId: string | null = null;
  for (let i = 0; i < reports; i += 1) {
    const batch = sim.next();
    const parsed = parseProgress(JSON.parse(batch.json));
    if (!parsed.ok) throw new Error(parsed.error);
    const f = extractFeatures(parsed.progress, runId);
    // As the tracker derives it (query-tracker.ts): what the analysis's arrival rate is a median of.
    f.arrival = arrivalRateAt(features, f);
    features.push(f);
    runId = parsed.progress.runId;
    endMs.push(batch.endMs);
    load.push(batch.truth.loadFactor);
  }
  return { features, endMs, load };
}

/** The spec's arrival rate (before noise) at `ms`. */
const arrivalAt = (spec: StreamSpec, ms: number) => (spec.arrival as (t: number) => number)(ms);

describe('inputRamp', () => {
  it.each([1, 2, 3, 4, 5, 6])('reads where a ramp has got to, nearer than the recent median (seed %i)', (seed) => {
    // 60 % to 130 % of capacity over an hour on a 2-minute trigger: 2.3 points of capacity more
    // every batch, 46.7 rows/s more every minute.
    const spec = rampSpec(120, 0.1, 0.6, 1.3, 60);
    const { features, endMs, load } = featuresOf(spec, 50, seed);
    // Where the input first reaches 1.1 × capacity: still ramping.
    const at = load.findIndex((x) => x >= 1.1);
    const window = features.slice(0, at + 1);
    const truth = arrivalAt(spec, endMs[at]!);
    const ramp = inputRamp(window);
    expect(ramp).not.toBeNull();
    expect(Math.abs(ramp!.nowPerSec - truth) / truth).toBeLessThan(0.08);
    expect(ramp!.risePerMin).toBeGreaterThan(0.6 * 46.7);
    expect(ramp!.risePerMin).toBeLessThan(1.4 * 46.7);
    // The analysis's arrival rate (what the trend's load test and the capacity cause read before).
    const recent = medianArrival(window, 5, 8, false)!;
    expect(Math.abs(ramp!.nowPerSec - truth)).toBeLessThan(Math.abs(recent - truth));
  });

  it('bounds what it says by the newest rates once the ramp has levelled off', () => {
    const spec = rampSpec(120, 0.05, 0.6, 1.3, 60);
    const { features, endMs, load } = featuresOf(spec, 52, 1);
    // Four batches after the input stopped rising, batches are long and the line runs on.
    const at = load.findIndex((x) => x >= 1.3) + 4;
    const ramp = inputRamp(features.slice(0, at + 1));
    const truth = arrivalAt(spec, endMs[at]!);
    expect(ramp).not.toBeNull();
    expect(ramp!.nowPerSec).toBeGreaterThan(1.1 * truth);
    expect(Math.abs(ramp!.recentHighPerSec - truth) / truth).toBeLessThan(0.1);
  });

  it('finds none in steady input or in a burst of a few batches', () => {
    const steady: StreamSpec = { ...rampSpec(60, 0.02, 0.7, 0.7, 1), arrival: steppedRate(0.7 * CAPACITY, [{ atMs: START + 40 * MIN, rowsPerSec: 1.2 * CAPACITY }, { atMs: START + 43 * MIN, rowsPerSec: 0.7 * CAPACITY }]) };
    const { features } = featuresOf(steady, 50, 1);
    // Before the burst, during it, and just after.
    for (const at of [38, 41, 42, 43, 44, 46]) expect(inputRamp(features.slice(0, at + 1)), `batch ${at}`).toBeNull();
  });

  it('reads nothing across a restart or without a full window', () => {
    const spec = rampSpec(120, 0.02, 0.6, 1.3, 60);
    const { features } = featuresOf(spec, 50, 1);
    expect(inputRamp(features.slice(0, 46))).not.toBeNull();
    expect(inputRamp(features.slice(0, RAMP_WINDOW))).toBeNull();
    // One batch more: the window's oldest rate needs the batch before it.
    expect(inputRamp(features.slice(46 - RAMP_WINDOW - 1, 46))).not.toBeNull();
    expect(inputRamp(features.slice(46 - RAMP_WINDOW, 46))).toBeNull();
    const restarted = features.slice(0, 46).map((f, i) => (i === 40 ? { ...f, restart: 1 } : f));
    expect(inputRamp(restarted)).toBeNull();
  });
});

describe('an uncapped query whose input ramps past its capacity', () => {
  it.each([
    [300, 0.1, 1.25, 150],
    [180, 0.14, 1.3, 90],
  ] as [number, number, number, number][])(
    'opens lag within 8 batches of the input passing capacity and says the load is rising (trigger %is, noise %f)',
    (triggerSec, noise, to, rampMin) => {
      const spec = rampSpec(triggerSec, noise, 0.6, to, rampMin);
      for (let seed = 1; seed <= 12; seed += 1) {
        const run = runStream(spec, 60, {}, seed);
        const passed = run.batches.findIndex((b) => b.truth.loadFactor >= 1);
        const near = run.batches.findIndex((b) => b.truth.loadFactor >= 0.9);
        const [open] = opened(run, 'lag');
        expect(open, `seed ${seed}`).toBeDefined();
        expect(open!.index, `seed ${seed}`).toBeLessThanOrEqual(passed + 8);
        expect(open!.index, `seed ${seed}`).toBeGreaterThanOrEqual(near);
        const capacity = open!.incident.causes.find((c) => c.code === 'insufficient_capacity');
        expect(capacity?.evidence, `seed ${seed}`).toMatch(/risen over the last 24 batches .* load factor 1\.\d\d and rising/);
        expect(Number(capacity!.evidence.match(/load factor (\d\.\d\d)/)![1]), `seed ${seed}`).toBeGreaterThanOrEqual(1.05);
      }
    },
  );
});
