import { describe, expect, it } from 'vitest';
import { parseProgress } from '../../src/progress/parse-progress.js';
import { StreamSimulator, steppedRate, type StreamSpec } from '../../src/simulator/index.js';

type Obj = Record<string, unknown>;
const START = Date.UTC(2026, 8, 14, 10);
const MIN = 60_000;

/** 20,000 rows/s of capacity; 12 % overloaded from 10 minutes on. */
const overloaded = (over: Partial<StreamSpec>): StreamSpec => ({
  name: 'orders',
  arrival: steppedRate(14_000, [{ atMs: START + 10 * MIN, rowsPerSec: 22_400 }]),
  processing: { rowsPerSecPerCore: 2_500, cores: 8 },
  triggerMs: 10_000,
  source: { kind: 'kafka', topic: 'orders', partitions: 8 },
  ...over,
});

const run = (spec: StreamSpec, n: number) => new StreamSimulator(spec, { startMs: START, seed: 5 }).take(n);
const src = (json: string): Obj => (JSON.parse(json) as { sources: Obj[] }).sources[0]!;
const sum = (o: unknown) => Object.values(Object.values(o as Record<string, Record<string, number>>)[0]!).reduce((a, b) => a + b, 0);

describe('reporting mode: latestOffset printed as endOffset, metrics carry the backlog', () => {
  const batches = run(overloaded({ platform: 'dbr-17.1', source: { kind: 'kafka', topic: 'orders', partitions: 8, latestOffsetAsEnd: true } }), 80);

  it('prints latestOffset equal to endOffset on every batch', () => {
    for (const b of batches) expect(src(b.json).latestOffset).toEqual(src(b.json).endOffset);
  });

  it('has non-zero behind-latest metrics that follow the true backlog when behind', () => {
    const behind = batches.filter((b) => b.truth.backlogRows > 0);
    expect(behind.length).toBeGreaterThan(10);
    for (const b of behind) {
      const m = src(b.json).metrics as Record<string, string>;
      const avg = Number(m.avgOffsetsBehindLatest);
      expect(avg).toBeGreaterThan(0);
      expect(Math.abs(avg * 8 - b.truth.backlogRows)).toBeLessThanOrEqual(8);
      expect(Number(m.estimatedTotalBytesBehindLatest)).toBeGreaterThan(0);
    }
  });

  it('parses, and the parser sees the same offsets for latest and end', () => {
    for (const b of batches) {
      const r = parseProgress(JSON.parse(b.json));
      expect(r.ok).toBe(true);
      if (r.ok) expect(sum(r.progress.sources[0]!.latestOffset)).toBe(sum(r.progress.sources[0]!.endOffset));
    }
  });
});

describe('reporting mode: Spark 3.0-era reports (no source metrics)', () => {
  const batches = run(
    overloaded({ platform: 'spark-3.0', state: { watermarkMs: 10 * MIN }, source: { kind: 'kafka', topic: 'orders', partitions: 8 } }),
    40,
  );

  it('has no latestOffset key, no metrics map and no batchDuration', () => {
    for (const b of batches) {
      const raw = JSON.parse(b.json) as Obj;
      expect(raw).not.toHaveProperty('batchDuration');
      for (const s of raw.sources as Obj[]) {
        expect(Object.keys(s)).toEqual(
          ['description', 'startOffset', 'endOffset', 'numInputRows', 'inputRowsPerSecond', 'processedRowsPerSecond'].filter((k) => k in s),
        );
        expect(s).not.toHaveProperty('latestOffset');
        expect(s).not.toHaveProperty('metrics');
      }
    }
  });

  it('prints state operators with the Spark 3.0 keys only', () => {
    const op = (JSON.parse(batches[5]!.json) as { stateOperators: Obj[] }).stateOperators[0]!;
    expect(Object.keys(op).filter((k) => k !== 'customMetrics')).toEqual(['numRowsTotal', 'numRowsUpdated', 'memoryUsedBytes']);
  });

  it('parses; the parser reads no latest offsets and no metrics', () => {
    for (const b of batches) {
      const r = parseProgress(JSON.parse(b.json));
      expect(r.ok).toBe(true);
      if (r.ok) {
        expect(r.progress.sources[0]!.latestOffset).toBeNull();
        expect(r.progress.sources[0]!.metrics).toEqual({});
      }
    }
  });
});

describe('Kinesis source', () => {
  const batches = run(overloaded({ platform: 'dbr-17.1', source: { kind: 'kinesis', stream: 'clicks', shards: 8 } }), 80);

  it('prints the Databricks connector shape: shard positions, null latestOffset, ms-behind metrics as strings', () => {
    const s = src(batches[3]!.json);
    expect(s.description).toBe('KinesisV2[clicks]');
    expect(s.latestOffset).toBeNull();
    const end = s.endOffset as Obj[];
    expect(end).toHaveLength(8);
    expect(Object.keys(end[0]!)).toEqual(['shard', 'firstSeqNum', 'lastSeqNum', 'closed', 'msBehindLatest', 'lastRecordSeqNum']);
    expect(end[0]!.shard).toEqual({ stream: 'clicks', shardId: 'shardId-000000000000' });
    expect(end[0]!.lastSeqNum).toMatch(/^\d{50,}$/);
    const m = s.metrics as Record<string, unknown>;
    for (const key of ['avgMsBehindLatest', 'maxMsBehindLatest', 'minMsBehindLatest', 'numTotalShards']) expect(typeof m[key]).toBe('string');
    expect(m.numTotalShards).toBe('8');
    expect(src(batches[0]!.json).startOffset).toBeNull();
  });

  it('max ms behind is the true time behind at the batch end, and grows under the overload', () => {
    for (const b of batches) {
      const m = src(b.json).metrics as Record<string, string>;
      expect(Number(m.maxMsBehindLatest) / 1_000).toBeCloseTo(b.truth.timeBehindSec, 0);
      expect(Number(m.minMsBehindLatest)).toBeLessThanOrEqual(Number(m.maxMsBehindLatest));
    }
    const last = src(batches[batches.length - 1]!.json).metrics as Record<string, string>;
    expect(Number(last.maxMsBehindLatest)).toBeGreaterThan(60_000);
  });

  it('parses as a kinesis source with numeric metrics', () => {
    for (const b of batches) {
      const r = parseProgress(JSON.parse(b.json));
      expect(r.ok).toBe(true);
      if (r.ok) {
        expect(r.progress.sources[0]!.kind).toBe('kinesis');
        expect(typeof r.progress.sources[0]!.metrics.maxMsBehindLatest).toBe('number');
      }
    }
  });
});

describe('change events by time', () => {
  it('apply at the first batch that starts at or after atMs', () => {
    const batches = run(
      {
        arrival: 10_000,
        processing: { rowsPerSecPerCore: 2_500, cores: 8 },
        triggerMs: 60_000,
        source: { kind: 'kafka', partitions: 8 },
        events: [{ type: 'change', atBatch: 0, atMs: START + 30 * MIN, rowsPerSecPerCore: 1_000 }],
      },
      50,
    );
    const first = batches.find((b) => b.truth.capacityRowsPerSec < 15_000)!;
    expect(first.truth.startMs).toBeGreaterThanOrEqual(START + 30 * MIN);
    expect(batches[batches.indexOf(first) - 1]!.truth.startMs).toBeLessThan(START + 30 * MIN);
  });
});
