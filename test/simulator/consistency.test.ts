import { describe, expect, it } from 'vitest';
import { StreamSimulator, type SimulatedBatch, type StreamSpec } from '../../src/simulator/index.js';

type Obj = Record<string, unknown>;
type Offsets = Record<string, Record<string, number>>;

const sumOffsets = (o: unknown): number =>
  Object.values(o as Offsets).reduce((a, parts) => a + Object.values(parts).reduce((x, y) => x + y, 0), 0);
const src = (b: SimulatedBatch) => (b.progress.sources as Obj[])[0]!;
const dur = (b: SimulatedBatch) => b.progress.durationMs as Record<string, number>;

const SPECS: [string, StreamSpec][] = [
  [
    'kafka dbr-17.1, 30 s trigger, stateful, restart and retry',
    {
      name: 'orders',
      arrival: 9_000,
      processing: { rowsPerSecPerCore: 2_500, cores: 8 },
      triggerMs: 30_000,
      source: { kind: 'kafka', partitions: 6 },
      state: { watermarkMs: 600_000 },
      events: [
        { type: 'restart', atBatch: 20, downtimeMs: 240_000 },
        { type: 'retry', atBatch: 30 },
      ],
    },
  ],
  [
    'kafka spark-3.5 back-to-back overloaded',
    {
      arrival: 22_000,
      processing: { rowsPerSecPerCore: 2_500, cores: 8 },
      source: { kind: 'kafka', partitions: 16 },
      platform: 'spark-3.5',
    },
  ],
  [
    'kafka capped dbr-17.0',
    {
      arrival: 8_000,
      processing: { rowsPerSecPerCore: 2_500, cores: 8 },
      triggerMs: 60_000,
      source: { kind: 'kafka', partitions: 8, maxOffsetsPerTrigger: 300_000 },
      platform: 'dbr-17.0',
    },
  ],
];

describe.each(SPECS)('internal consistency: %s', (_name, spec) => {
  const batches = new StreamSimulator(spec, { seed: 11 }).take(45);
  const data = batches.filter((b) => b.truth.kind === 'data');

  it('numInputRows is the sum of the sources and the offsets read', () => {
    for (const b of data) {
      expect(b.progress.numInputRows).toBe(src(b).numInputRows);
      if (src(b).startOffset !== null) {
        expect(sumOffsets(src(b).endOffset) - sumOffsets(src(b).startOffset)).toBe(b.progress.numInputRows);
      }
    }
  });

  it('processedRowsPerSecond = rows / duration; inputRowsPerSecond = rows / time since the previous trigger start', () => {
    let previousStart: number | null = null;
    let previousRun: unknown = null;
    for (const b of batches) {
      const rows = b.progress.numInputRows as number;
      const d = (b.progress.batchDuration as number | undefined) ?? dur(b).triggerExecution! + 1;
      expect(b.progress.processedRowsPerSecond).toBeCloseTo(rows / (d / 1_000), 6);
      expect(src(b).processedRowsPerSecond).toBe(b.progress.processedRowsPerSecond);
      const start = Date.parse(b.progress.timestamp as string);
      if (b.progress.runId !== previousRun) {
        expect(b.progress.inputRowsPerSecond).toBe(0);
      } else if (previousStart !== null && b.truth.kind === 'data' && rows > 0) {
        // Idle triggers in between also count as trigger starts, so the gap is at most this.
        expect(b.progress.inputRowsPerSecond as number).toBeGreaterThanOrEqual(rows / ((start - previousStart) / 1_000) - 1e-6);
      }
      previousStart = start;
      previousRun = b.progress.runId;
    }
  });

  it('durations add up and time only moves forward', () => {
    let previousEnd = 0;
    for (const b of batches) {
      const d = dur(b);
      const parts = Object.entries(d)
        .filter(([k]) => k !== 'triggerExecution' && k !== 'commitBatch' && k !== 'controlBatch.REPARTITION')
        .reduce((a, [, v]) => a + v, 0);
      expect(d.triggerExecution).toBeGreaterThanOrEqual(parts);
      if (b.progress.batchDuration !== undefined) expect(b.progress.batchDuration as number).toBeGreaterThanOrEqual(d.triggerExecution!);
      if (d.commitBatch !== undefined) expect(d.addBatch!).toBeGreaterThanOrEqual(d.commitBatch - 1);
      expect(b.truth.startMs).toBeGreaterThanOrEqual(previousEnd);
      expect(Date.parse(b.progress.timestamp as string)).toBe(Math.round(b.truth.startMs));
      previousEnd = b.endMs;
    }
  });

  it('behind-latest metrics are latestOffset − endOffset per partition', () => {
    for (const b of data) {
      const latest = src(b).latestOffset as Offsets;
      const end = src(b).endOffset as Offsets;
      const behind = Object.entries(latest).flatMap(([t, parts]) => Object.entries(parts).map(([p, v]) => v - end[t]![p]!));
      const metrics = src(b).metrics as Record<string, string>;
      expect(Number(metrics.maxOffsetsBehindLatest)).toBe(Math.max(...behind));
      expect(Number(metrics.minOffsetsBehindLatest)).toBe(Math.min(...behind));
      expect(Number(metrics.avgOffsetsBehindLatest)).toBeCloseTo(behind.reduce((a, x) => a + x, 0) / behind.length, 6);
    }
  });

  it('the next batch of a run starts where the previous one ended (a retry replays the same range)', () => {
    for (let i = 1; i < data.length; i++) {
      const [a, b] = [data[i - 1]!, data[i]!];
      if (b.truth.retried) expect(src(b).startOffset).toEqual(src(a).startOffset);
      else expect(src(b).startOffset).toEqual(src(a).endOffset);
    }
  });

  it('truth: backlog = rows arrived − rows consumed, never negative; time behind 0 only when nothing waits', () => {
    for (const b of batches) {
      expect(b.truth.backlogRows).toBeGreaterThanOrEqual(0);
      if (b.truth.backlogRows === 0) expect(b.truth.timeBehindSec).toBe(0);
      else expect(b.truth.timeBehindSec).toBeGreaterThan(0);
    }
  });
});

describe('behind-latest semantics by runtime', () => {
  const base: StreamSpec = {
    arrival: 10_000,
    processing: { rowsPerSecPerCore: 2_500, cores: 8 },
    triggerMs: 30_000,
    source: { kind: 'kafka', partitions: 8 },
  };

  it('DBR 17.1+: latest read after the batch, so ~λ × d offsets show as behind under steady load', () => {
    const batches = new StreamSimulator({ ...base, platform: 'dbr-17.1' }, { seed: 2 }).take(30).slice(5);
    for (const b of batches) {
      const behind = sumOffsets(src(b).latestOffset) - sumOffsets(src(b).endOffset);
      expect(behind).toBe(b.truth.backlogRows);
      const d = (b.endMs - b.truth.startMs) / 1_000;
      expect(behind / (10_000 * d)).toBeGreaterThan(0.8);
      expect(behind / (10_000 * d)).toBeLessThan(1.25);
    }
  });

  it('OSS / DBR ≤ 17.0 uncapped: behind-latest reads 0 even while the query falls further behind', () => {
    const batches = new StreamSimulator(
      { ...base, arrival: 24_000, triggerMs: 0, platform: 'spark-3.5' },
      { seed: 2 },
    ).take(25);
    for (const b of batches) expect((src(b).metrics as Obj).maxOffsetsBehindLatest).toBe('0');
    expect(batches[24]!.truth.backlogRows).toBeGreaterThan(batches[5]!.truth.backlogRows * 2);
  });

  it('files: numFilesOutstanding and numBytesOutstanding agree with the files waiting at planning', () => {
    const batches = new StreamSimulator(
      {
        ...base,
        arrival: 6_000,
        source: { kind: 'autoloader', maxFilesPerTrigger: 20, rowsPerFile: 5_000, bytesPerFile: 1_000_000 },
      },
      { seed: 2 },
    ).take(30);
    let previous = -1;
    for (const b of batches.slice(3)) {
      const m = src(b).metrics as Record<string, string>;
      expect(Number(m.numBytesOutstanding)).toBe(Number(m.numFilesOutstanding) * 1_000_000);
      expect(b.progress.numInputRows).toBe(100_000);
      expect(Number(m.numFilesOutstanding)).toBeGreaterThan(previous);
      previous = Number(m.numFilesOutstanding);
    }
  });
});

describe('state', () => {
  const base: StreamSpec = {
    arrival: 5_000,
    processing: { rowsPerSecPerCore: 2_500, cores: 8 },
    triggerMs: 60_000,
    source: { kind: 'kafka', partitions: 8 },
  };
  const op = (b: SimulatedBatch) => (b.progress.stateOperators as Obj[])[0]! as Record<string, number>;

  it('without a watermark: no removals, numRowsTotal grows every batch, no eventTime', () => {
    const batches = new StreamSimulator({ ...base, state: { watermarkMs: null } }, { seed: 3 }).take(40).slice(1);
    for (let i = 1; i < batches.length; i++) {
      expect(op(batches[i]!).numRowsRemoved).toBe(0);
      expect(op(batches[i]!).numRowsTotal).toBeGreaterThan(op(batches[i - 1]!).numRowsTotal);
      expect(batches[i]!.progress).not.toHaveProperty('eventTime');
    }
  });

  it('with a watermark: keys expire, numRowsTotal levels off, the watermark trails max event time', () => {
    const batches = new StreamSimulator({ ...base, state: { watermarkMs: 20 * 60_000 } }, { seed: 3 }).take(120);
    const late = batches.slice(60);
    expect(late.some((b) => op(b).numRowsRemoved > 0)).toBe(true);
    const totals = late.map((b) => op(b).numRowsTotal);
    expect(Math.max(...totals) / Math.min(...totals)).toBeLessThan(1.3);
    // 5,000 rows/s × 0.2 new keys per row × 20 minutes of live keys (plus one batch).
    expect(totals[totals.length - 1]!).toBeGreaterThan(1_000 * 20 * 60 * 0.85);
    expect(totals[totals.length - 1]!).toBeLessThan(1_000 * 21 * 60 * 1.15);
    const last = batches[119]!;
    const et = last.progress.eventTime as Record<string, string>;
    expect(Date.parse(et.max!) - Date.parse(et.watermark!)).toBeGreaterThanOrEqual(20 * 60_000);
  });

  it('HDFS provider: memory on the heap and its own customMetrics; RocksDB: sst file size', () => {
    const hdfs = new StreamSimulator({ ...base, state: { provider: 'hdfs', initialRows: 1_000_000 } }, { seed: 3 }).take(3)[2]!;
    expect(Object.keys(op(hdfs).customMetrics as unknown as Obj)).toEqual([
      'loadedMapCacheHitCount',
      'loadedMapCacheMissCount',
      'stateOnCurrentVersionSizeBytes',
    ]);
    expect(op(hdfs).memoryUsedBytes).toBeGreaterThan(op(hdfs).numRowsTotal * 200);
    const rocks = new StreamSimulator({ ...base, state: { initialRows: 1_000_000 } }, { seed: 3 }).take(3)[2]!;
    expect((op(rocks).customMetrics as unknown as Record<string, number>).rocksdbSstFileSize).toBeGreaterThan(0);
    expect(op(rocks).memoryUsedBytes).toBeLessThan(op(rocks).numRowsTotal * 200);
  });

  it('symmetricHashJoin has 4 state store instances per partition', () => {
    const b = new StreamSimulator(
      { ...base, state: { operator: 'symmetricHashJoin' }, processing: { rowsPerSecPerCore: 2_500, shufflePartitions: 32 } },
      { seed: 3 },
    ).take(2)[1]!;
    expect(op(b).numShufflePartitions).toBe(32);
    expect(op(b).numStateStoreInstances).toBe(128);
  });
});
