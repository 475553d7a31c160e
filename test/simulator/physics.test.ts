import { describe, expect, it } from 'vitest';
import { StreamSimulator, steppedRate, type StreamSpec } from '../../src/simulator/index.js';

const T0 = Date.UTC(2026, 8, 14, 10, 0, 0);
// 8 cores × 2,500 rows/s, stateless, 16 partitions: 20,000 rows/s of busy-time throughput.
const cluster = { rowsPerSecPerCore: 2_500, cores: 8, overheadMs: 1_200 };
const duration = (b: { endMs: number; truth: { startMs: number } }) => b.endMs - b.truth.startMs;

describe('micro-batch physics', () => {
  it('uncapped 12 % overload: batch duration doubles in about 6 batches (noise-free)', () => {
    const spec: StreamSpec = {
      arrival: 1.12 * 20_000,
      arrivalNoise: 0,
      processing: { ...cluster, overheadMs: 100, noise: 0 },
      sink: { commitMs: 0 },
      source: { kind: 'kafka', partitions: 16, skew: 0 },
    };
    const batches = new StreamSimulator(spec, { seed: 1 }).take(60);
    for (const i of [30, 40, 50]) {
      const ratio = duration(batches[i + 6]!) / duration(batches[i]!);
      expect(ratio).toBeGreaterThan(1.9);
      expect(ratio).toBeLessThan(2.1);
    }
    expect(batches[40]!.truth.loadFactor).toBeCloseTo(1.12, 2);
  });

  it('uncapped 12 % overload with noise: about 2× in 6 batches, and rates show processed < input', () => {
    const spec: StreamSpec = {
      arrival: 1.12 * 20_000,
      processing: cluster,
      source: { kind: 'kafka', partitions: 16 },
    };
    const batches = new StreamSimulator(spec, { seed: 5 }).take(60).slice(20);
    const ratios = batches.slice(0, -6).map((b, i) => duration(batches[i + 6]!) / duration(b));
    const mean = ratios.reduce((a, r) => a + r, 0) / ratios.length;
    expect(mean).toBeGreaterThan(1.8);
    expect(mean).toBeLessThan(2.3);
    const input = batches.reduce((a, b) => a + (b.progress.inputRowsPerSecond as number), 0) / batches.length;
    const processed = batches.reduce((a, b) => a + (b.progress.processedRowsPerSecond as number), 0) / batches.length;
    expect(input / processed).toBeGreaterThan(1.05);
    expect(processed).toBeLessThan(20_000 * 1.02);
  });

  it('capped and overloaded: each batch reads the cap (floored per partition, as Spark does), finishes well inside T, and the backlog grows by (λ − cap/T)·T', () => {
    const cap = 400_000;
    const spec: StreamSpec = {
      arrival: 8_000,
      arrivalNoise: 0,
      processing: { ...cluster, noise: 0 },
      triggerMs: 60_000,
      source: { kind: 'kafka', partitions: 16, maxOffsetsPerTrigger: cap },
    };
    const batches = new StreamSimulator(spec, { seed: 1 }).take(40).slice(5);
    const expectedGrowth = (8_000 - cap / 60) * 60; // 80,000 offsets per batch
    for (let i = 1; i < batches.length; i++) {
      const b = batches[i]!;
      // Each of the 16 partitions' shares is floored: up to 15 offsets short of the cap.
      expect(b.progress.numInputRows).toBeLessThanOrEqual(cap);
      expect(b.progress.numInputRows).toBeGreaterThan(cap - 16);
      expect(duration(b)).toBeLessThan(30_000);
      expect(Math.abs(b.truth.backlogRows - batches[i - 1]!.truth.backlogRows - expectedGrowth)).toBeLessThan(30);
      // The rates look healthy: input is the admitted rate, processing far faster.
      expect(b.progress.inputRowsPerSecond as number).toBeCloseTo(cap / 60, 0);
      expect(b.progress.processedRowsPerSecond as number).toBeGreaterThan(15_000);
    }
    expect(batches[10]!.truth.admissionRowsPerSec).toBeCloseTo(cap / 60, 0);
    expect(batches[10]!.truth.loadFactor).toBeCloseTo(1.2, 2);
  });

  it('catch-up after an outage with no cap: the first batch reads the pile-up, then batches shrink by about λ/μ', () => {
    const spec: StreamSpec = {
      arrival: 8_000,
      arrivalNoise: 0,
      processing: { ...cluster, noise: 0 },
      triggerMs: 30_000,
      source: { kind: 'kafka', partitions: 16 },
      events: [{ type: 'restart', atBatch: 10, downtimeMs: 3_600_000 }],
    };
    const batches = new StreamSimulator(spec, { seed: 1 }).take(20);
    const giant = batches[10]!;
    expect(giant.progress.numInputRows as number).toBeGreaterThan(8_000 * 3_600 * 0.98);
    expect(duration(giant)).toBeGreaterThan(1_400_000);
    const shrink = duration(batches[11]!) / duration(giant);
    expect(shrink).toBeGreaterThan(0.35);
    expect(shrink).toBeLessThan(0.45); // λ/μ = 0.4
    expect(duration(batches[19]!)).toBeLessThan(30_000);
  });

  it('near capacity back-to-back: durations settle at overhead / (1 − ρ)', () => {
    const spec: StreamSpec = {
      arrival: 0.9 * 20_000,
      arrivalNoise: 0,
      processing: { ...cluster, noise: 0 },
      sink: { commitMs: 300 },
      source: { kind: 'kafka', partitions: 16 },
    };
    const batches = new StreamSimulator(spec, { seed: 1 }).take(120);
    // Fixed time per batch ≈ 1,200 ms overhead + 300 ms sink commit (+ a few ms between triggers).
    const settled = duration(batches[119]!);
    expect(settled).toBeGreaterThan(13_500);
    expect(settled).toBeLessThan(16_000);
    expect(Math.abs(duration(batches[119]!) - duration(batches[100]!))).toBeLessThan(300);
  });

  it('fewer Kafka partitions than cores bound capacity; so do too few shuffle partitions', () => {
    const part = new StreamSimulator(
      { arrival: 1_000, processing: { ...cluster, cores: 16 }, source: { kind: 'kafka', partitions: 4 } },
      { seed: 1 },
    ).take(3)[2]!;
    expect(part.truth.capacityRowsPerSec).toBeCloseTo(4 * 2_500, 0);
    const shuffle = new StreamSimulator(
      {
        arrival: 1_000,
        processing: { ...cluster, cores: 16, shufflePartitions: 4 },
        source: { kind: 'kafka', partitions: 32 },
        state: { watermarkMs: 600_000, commitMsPerMillionUpdated: 0 },
      },
      { seed: 1 },
    ).take(3)[2]!;
    // Half the work before the shuffle on 16 tasks, half after it on 4.
    expect(shuffle.truth.capacityRowsPerSec).toBeCloseTo(1 / (0.5 / 40_000 + 0.5 / 10_000), 0);
  });

  it('the arrival rate can change mid-run: a step makes a healthy stream fall behind', () => {
    const step = T0 + 30 * 60_000;
    const spec: StreamSpec = {
      arrival: steppedRate(10_000, [{ atMs: step, rowsPerSec: 24_000 }]),
      processing: cluster,
      triggerMs: 30_000,
      source: { kind: 'kafka', partitions: 16 },
    };
    const batches = new StreamSimulator(spec, { startMs: T0, seed: 1 }).take(90);
    const before = batches.filter((b) => b.truth.startMs < step);
    const after = batches.filter((b) => b.truth.startMs >= step + 5 * 60_000);
    expect(Math.max(...before.slice(3).map((b) => b.truth.timeBehindSec))).toBeLessThan(40);
    expect(after[after.length - 1]!.truth.timeBehindSec).toBeGreaterThan(300);
    expect(before[before.length - 1]!.truth.arrivalRate).toBe(10_000);
    expect(after[0]!.truth.arrivalRate).toBe(24_000);
  });

  it('a stall: one batch hangs while data keeps arriving, then reads the pile-up', () => {
    const spec: StreamSpec = {
      arrival: 8_000,
      processing: cluster,
      triggerMs: 30_000,
      source: { kind: 'kafka', partitions: 16 },
      events: [{ type: 'stall', atBatch: 8, durationMs: 20 * 60_000 }],
    };
    const batches = new StreamSimulator(spec, { seed: 1 }).take(10);
    expect(duration(batches[8]!)).toBeGreaterThan(20 * 60_000);
    expect(batches[8]!.truth.stallMs).toBe(20 * 60_000);
    expect(batches[9]!.progress.numInputRows as number).toBeGreaterThan(8_000 * 20 * 60 * 0.9);
  });
});
