import { describe, expect, it } from 'vitest';
import { javaDoubleToString } from '../../src/simulator/java-format.js';
import { toSparkJson, toSparkPrettyJson } from '../../src/simulator/spark-json.js';
import { StreamSimulator, type StreamSpec } from '../../src/simulator/index.js';

const TOP_KEYS_DATABRICKS = [
  'id',
  'runId',
  'name',
  'timestamp',
  'batchId',
  'batchDuration',
  'numInputRows',
  'inputRowsPerSecond',
  'processedRowsPerSecond',
  'durationMs',
  'stateOperators',
  'sources',
  'sink',
];
const STATE_KEYS = [
  'operatorName',
  'numRowsTotal',
  'numRowsUpdated',
  'allUpdatesTimeMs',
  'numRowsRemoved',
  'allRemovalsTimeMs',
  'commitTimeMs',
  'memoryUsedBytes',
  'numRowsDroppedByWatermark',
  'numShufflePartitions',
  'numStateStoreInstances',
  'customMetrics',
];
const SOURCE_KEYS = [
  'description',
  'startOffset',
  'endOffset',
  'latestOffset',
  'numInputRows',
  'inputRowsPerSecond',
  'processedRowsPerSecond',
  'metrics',
];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const kafka = (over: Partial<StreamSpec> = {}): StreamSpec => ({
  name: 'orders',
  arrival: 8_000,
  processing: { rowsPerSecPerCore: 2_500, cores: 8 },
  triggerMs: 30_000,
  source: { kind: 'kafka', topic: 'orders', partitions: 4 },
  ...over,
});

type Obj = Record<string, unknown>;
const sorted = (keys: string[]) => [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

describe('javaDoubleToString (Double.toString as the JVM prints it)', () => {
  it.each([
    [0, '0.0'],
    [161075, '161075.0'],
    [329881600, '3.298816E8'],
    [1e7, '1.0E7'],
    [9999999, '9999999.0'],
    [0.001, '0.001'],
    [0.0001, '1.0E-4'],
    [5.55401277422938, '5.55401277422938'],
    [2422.011238132145, '2422.011238132145'],
    [-42, '-42.0'],
  ])('%d → %s', (value, text) => {
    expect(javaDoubleToString(value)).toBe(text);
  });
});

describe('progress JSON shape', () => {
  it('Databricks: top-level, state and source keys in Spark order, maps sorted, metrics as strings', () => {
    const sim = new StreamSimulator(kafka({ state: { watermarkMs: 600_000 } }), { seed: 7 });
    const batches = sim.take(5);
    for (const { progress } of batches) {
      expect(Object.keys(progress)).toEqual([...TOP_KEYS_DATABRICKS.slice(0, 10), 'eventTime', ...TOP_KEYS_DATABRICKS.slice(10)]);
      const durations = Object.keys(progress.durationMs as Obj);
      expect(durations).toEqual(sorted(durations));
      expect(durations).toEqual(expect.arrayContaining(['addBatch', 'commitBatch', 'latestOffset', 'triggerExecution', 'walCommit']));
      // avg/max/min only when rows were read (batch 0 reads none); the watermark whenever the plan has one.
      expect(Object.keys(progress.eventTime as Obj)).toEqual(
        (progress.numInputRows as number) > 0 ? ['avg', 'max', 'min', 'watermark'] : ['watermark'],
      );
      const op = (progress.stateOperators as Obj[])[0]!;
      expect(Object.keys(op)).toEqual(STATE_KEYS);
      const custom = Object.keys(op.customMetrics as Obj);
      expect(custom).toEqual(sorted(custom));
      expect(custom).toContain('rocksdbSstFileSize');
      const source = (progress.sources as Obj[])[0]!;
      expect(Object.keys(source)).toEqual(SOURCE_KEYS);
      const metrics = source.metrics as Obj;
      expect(Object.keys(metrics)).toEqual([
        'avgOffsetsBehindLatest',
        'estimatedTotalBytesBehindLatest',
        'maxOffsetsBehindLatest',
        'minOffsetsBehindLatest',
      ]);
      for (const value of Object.values(metrics)) expect(typeof value).toBe('string');
      expect(metrics.avgOffsetsBehindLatest).toMatch(/^\d+\.\d+$|^\d\.\d+E\d+$/);
      expect(metrics.maxOffsetsBehindLatest).toMatch(/^\d+$/);
      expect(progress.timestamp).toMatch(ISO);
      expect(progress.sink).toEqual({ description: 'DeltaSink[s3://acme-lake/silver/events]', numOutputRows: -1 });
    }
  });

  it('Spark 3.5: no batchDuration, no Databricks keys, no eventTime without a watermark', () => {
    const sim = new StreamSimulator(kafka({ platform: 'spark-3.5', sink: { kind: 'console' } }), { seed: 7 });
    const { progress } = sim.take(3)[2]!;
    expect(Object.keys(progress)).toEqual(TOP_KEYS_DATABRICKS.filter((k) => k !== 'batchDuration'));
    expect(progress.durationMs).not.toHaveProperty('commitBatch');
    const metrics = (progress.sources as Obj[])[0]!.metrics as Obj;
    expect(Object.keys(metrics)).toEqual(['avgOffsetsBehindLatest', 'maxOffsetsBehindLatest', 'minOffsetsBehindLatest']);
    expect(progress.stateOperators).toEqual([]);
    // A console sink counts its rows.
    expect((progress.sink as Obj).numOutputRows).toBe(progress.numInputRows);
  });

  it('batch 0 runs at the start, with startOffset null and its rates printed as Java doubles', () => {
    const sim = new StreamSimulator(kafka(), { seed: 3 });
    const first = sim.next();
    expect(first.progress.batchId).toBe(0);
    expect(first.progress.numInputRows).toBe(0);
    expect((first.progress.sources as Obj[])[0]!.startOffset).toBeNull();
    expect(first.progress.inputRowsPerSecond).toBe(0);
    expect(first.json).toContain('"inputRowsPerSecond":0.0,"processedRowsPerSecond":0.0,');
    const second = sim.next();
    expect((second.progress.sources as Obj[])[0]!.startOffset).toEqual((first.progress.sources as Obj[])[0]!.endOffset);
  });

  it('compact JSON round-trips and large byte counts print in E-notation', () => {
    const sim = new StreamSimulator(kafka({ arrival: 60_000, triggerMs: 60_000 }), { seed: 5 });
    const batch = sim.take(4)[3]!;
    expect(JSON.parse(batch.json)).toEqual(batch.progress);
    expect(batch.json).not.toMatch(/NaN|Infinity|undefined/);
    expect(batch.json.startsWith('{"id":"')).toBe(true);
    const bytes = ((batch.progress.sources as Obj[])[0]!.metrics as Obj).estimatedTotalBytesBehindLatest as string;
    expect(bytes).toMatch(/^\d\.\d+E\d+$/);
    expect(Number(bytes)).toBeGreaterThan(1e7);
  });

  it('pretty JSON in json4s style', () => {
    const sim = new StreamSimulator(kafka(), { seed: 5 });
    const text = toSparkPrettyJson(sim.take(2)[1]!.progress);
    expect(text).toMatch(/^\{\n {2}"id" : "/);
    expect(text).toContain('"stateOperators" : [ ],');
    expect(text).toContain('"sources" : [ {\n');
    expect(text).toMatch(/"inputRowsPerSecond" : \d+\.\d+,/);
    expect(JSON.parse(text)).toEqual(JSON.parse(toSparkJson(JSON.parse(text))));
  });

  it('Delta, Auto Loader and rate sources print their own offsets and metrics', () => {
    const delta = new StreamSimulator(kafka({ source: { kind: 'delta', path: 's3://b/t', rowsPerFile: 1_000 } }), { seed: 1 }).take(3)[2]!;
    const ds = (delta.progress.sources as Obj[])[0]!;
    expect(ds.description).toBe('DeltaSource[s3://b/t]');
    expect(Object.keys(ds.endOffset as Obj)).toEqual(['sourceVersion', 'reservoirId', 'reservoirVersion', 'index', 'isStartingVersion']);
    expect(ds.latestOffset).toBeNull();
    expect(Object.keys(ds.metrics as Obj)).toEqual(['numBytesOutstanding', 'numFilesOutstanding']);

    const al = new StreamSimulator(kafka({ source: { kind: 'autoloader', path: 's3://in/' } }), { seed: 1 }).take(3)[2]!;
    const as = (al.progress.sources as Obj[])[0]!;
    expect(as.description).toBe('CloudFilesSource[s3://in/]');
    expect(Object.keys(as.endOffset as Obj)).toEqual(['seqNum', 'sourceVersion', 'lastBackfillStartTimeMs', 'lastBackfillFinishTimeMs']);

    const rate = new StreamSimulator(kafka({ source: { kind: 'rate', rowsPerSecond: 100 }, platform: 'spark-4.0' }), { seed: 1 }).take(3)[2]!;
    const rs = (rate.progress.sources as Obj[])[0]!;
    expect(typeof rs.endOffset).toBe('number');
    expect(rs).not.toHaveProperty('metrics');
    expect(rate.progress.numInputRows).toBe(((rs.endOffset as number) - (rs.startOffset as number)) * 100);
    // Spark 4.0 rounds rates to one decimal.
    expect(String(rate.progress.processedRowsPerSecond)).toMatch(/^\d+(\.\d)?$/);
  });

  it('no-data events: at most every noDataProgressEventInterval, batchId of the next batch, only latestOffset and triggerExecution', () => {
    const spec = kafka({
      arrival: (t) => (t >= Date.UTC(2026, 8, 14, 10, 5) && t < Date.UTC(2026, 8, 14, 10, 15) ? 0 : 1_000),
      triggerMs: 2_000,
      state: { watermarkMs: 60_000 },
    });
    const batches = new StreamSimulator(spec, { seed: 2 }).take(200);
    const idle = batches.filter((b) => b.truth.kind === 'no-data');
    expect(idle.length).toBeGreaterThan(30);
    for (let i = 1; i < idle.length; i++) {
      if (idle[i]!.truth.index === idle[i - 1]!.truth.index + 1) {
        expect(idle[i]!.truth.startMs - idle[i - 1]!.endMs).toBeGreaterThanOrEqual(10_000 - 6);
      }
    }
    for (const b of idle) {
      expect(b.progress.numInputRows).toBe(0);
      expect(Object.keys(b.progress.durationMs as Obj)).toEqual(['latestOffset', 'triggerExecution']);
      expect(((b.progress.stateOperators as Obj[])[0]!).numRowsUpdated).toBe(0);
      expect(Object.keys(b.progress.eventTime as Obj)).toEqual(['watermark']);
      const next = batches.find((x) => x.truth.index > b.truth.index && x.truth.kind === 'data');
      if (next) expect(b.progress.batchId).toBe(next.progress.batchId);
    }
  });

  it('a stateful query whose input stops runs one no-data micro-batch (watermark moved), then reports idleness', () => {
    const stop = Date.UTC(2026, 8, 14, 10, 5);
    const spec = kafka({ arrival: (t) => (t < stop ? 1_000 : 0), triggerMs: 5_000, state: { watermarkMs: 60_000 } });
    const batches = new StreamSimulator(spec, { seed: 2 }).take(120);
    const lastWithRows = batches.reduce((i, b, j) => ((b.progress.numInputRows as number) > 0 ? j : i), -1);
    const evict = batches[lastWithRows + 1]!;
    expect(evict.truth.kind).toBe('data');
    expect(evict.progress.numInputRows).toBe(0);
    expect(evict.progress.batchId).toBe((batches[lastWithRows]!.progress.batchId as number) + 1);
    expect(Object.keys(evict.progress.durationMs as Obj)).toContain('addBatch');
    const idle = batches.slice(lastWithRows + 2);
    expect(idle.length).toBeGreaterThan(20);
    for (const b of idle) {
      expect(b.truth.kind).toBe('no-data');
      expect(b.progress.batchId).toBe((evict.progress.batchId as number) + 1);
    }
    // Keys expire as the watermark passes them; no later batch runs since the watermark stays put.
    expect(batches.some((b) => ((b.progress.stateOperators as Obj[])[0]!.numRowsRemoved as number) > 0)).toBe(true);
    // Some idle triggers take 0 ms: processedRowsPerSecond is 0/0 there and omitted, top level and source.
    const zero = idle.filter((b) => (b.progress.durationMs as Obj).triggerExecution === 0);
    expect(zero.length).toBeGreaterThan(0);
    for (const b of zero) {
      expect(b.progress).not.toHaveProperty('processedRowsPerSecond');
      expect((b.progress.sources as Obj[])[0]).not.toHaveProperty('processedRowsPerSecond');
      expect(b.progress.inputRowsPerSecond).toBe(0);
      expect(b.json).not.toMatch(/NaN|Infinity/);
    }
  });

  it('restart: new runId, a time gap, input rate 0 on the first trigger of the run', () => {
    const batches = new StreamSimulator(kafka({ events: [{ type: 'restart', atBatch: 10, downtimeMs: 300_000 }] }), { seed: 4 }).take(14);
    const before = batches[9]!;
    const after = batches[10]!;
    expect(after.progress.batchId).toBe(10);
    expect(after.progress.runId).not.toBe(before.progress.runId);
    expect(after.progress.id).toBe(before.progress.id);
    expect(after.truth.startMs - before.endMs).toBeGreaterThanOrEqual(300_000);
    expect(after.progress.inputRowsPerSecond).toBe(0);
    expect((after.progress.sources as Obj[])[0]!.startOffset).toEqual((before.progress.sources as Obj[])[0]!.endOffset);
    expect(after.truth.firstOfRun).toBe(true);
    // The catch-up batch reads the five minutes that piled up.
    expect(after.progress.numInputRows as number).toBeGreaterThan(8_000 * 300 * 0.9);
  });

  it('retry: the same batchId and offsets reported twice, in a new run', () => {
    const batches = new StreamSimulator(kafka({ events: [{ type: 'retry', atBatch: 5 }] }), { seed: 4 }).take(9);
    const ids = batches.map((b) => b.progress.batchId);
    expect(ids).toEqual([0, 1, 2, 3, 4, 5, 5, 6, 7]);
    const [a, b] = [batches[5]!, batches[6]!];
    expect((b.progress.sources as Obj[])[0]!.endOffset).toEqual((a.progress.sources as Obj[])[0]!.endOffset);
    expect((b.progress.sources as Obj[])[0]!.startOffset).toEqual((a.progress.sources as Obj[])[0]!.startOffset);
    expect(b.progress.runId).not.toBe(a.progress.runId);
    expect(b.truth.retried).toBe(true);
  });

  it('state repartition: controlBatch.REPARTITION (sorted in place) after a restart that changes the partition count', () => {
    const spec = kafka({
      state: { initialRows: 50_000_000, newKeysPerRow: 0, updatesPerRow: 0.5 },
      events: [{ type: 'restart', atBatch: 6, downtimeMs: 60_000, stateStorePartitions: 64 }],
    });
    const batches = new StreamSimulator(spec, { seed: 9 }).take(9);
    const repartitioned = batches[6]!;
    const keys = Object.keys(repartitioned.progress.durationMs as Obj);
    expect(keys).toEqual(sorted(keys));
    expect(keys.indexOf('controlBatch.REPARTITION')).toBe(keys.indexOf('commitOffsets') + 1);
    const ms = (repartitioned.progress.durationMs as Obj)['controlBatch.REPARTITION'] as number;
    // 50 M keys × 200 B ≈ 9.3 GiB at 30 s/GiB plus 20 s.
    expect(ms).toBeGreaterThan(250_000);
    expect(ms).toBeLessThan(320_000);
    expect(repartitioned.truth.startMs - batches[5]!.endMs).toBeGreaterThanOrEqual(60_000 + ms);
    expect(((batches[5]!.progress.stateOperators as Obj[])[0]!).numShufflePartitions).toBe(200);
    expect(((batches[7]!.progress.stateOperators as Obj[])[0]!).numShufflePartitions).toBe(64);
    expect(batches[7]!.progress.durationMs).not.toHaveProperty('controlBatch.REPARTITION');
  });
});
