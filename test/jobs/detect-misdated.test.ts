/**
 * The detect job on real Redis with the real engine: one report dated a day ahead no longer freezes
 * its query (the tracker state goes through Redis between jobs), and the job logs it with a count.
 * A job's inbox is read in Spark's order (`sparkOrder`): a report dated ahead, dated back or without
 * a time keeps its batch's place among the others of its job, and none is dropped as already seen.
 */
import type { Job } from 'bullmq';
import { beforeEach, describe, expect, it } from 'vitest';
import { createDetectProcessor } from '../../jobs/detect-processor.js';
import { engineTrackers } from '../../jobs/engine-trackers.js';
import { PipelineQueues } from '../../jobs/queues.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { parseProgress } from '../../src/progress/parse-progress.js';
import type { Progress } from '../../src/progress/types.js';
import { DEFAULT_START_MS, StreamSimulator } from '../../src/simulator/index.js';
import { RedisStore } from '../../src/store/index.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { storeAndQueuesPerTest } from '../helpers/store-and-queues.js';

const QID = '5ca1ab1e-0000-4000-8000-00000000000c';
const DAY = 86_400_000;

const fresh = storeAndQueuesPerTest('detect-misdated');
let store: RedisStore;
let queues: PipelineQueues;
beforeEach(() => {
  ({ store, queues } = fresh);
});

/** A steady Kafka query on a 10 s trigger, as Spark prints it (each report's JSON into `json`, by batchId, when given). */
function reports(count: number, json: string[] = []): Progress[] {
  const sim = new StreamSimulator(
    {
      id: QID,
      name: 'ledger',
      arrival: 8_000,
      processing: { rowsPerSecPerCore: 2_500, cores: 8, overheadMs: 1_000 },
      triggerMs: 10_000,
      source: { kind: 'kafka', partitions: 8 },
    },
    { startMs: DEFAULT_START_MS, seed: 9 },
  );
  return sim.take(count).map((batch) => {
    const parsed = parseProgress(JSON.parse(batch.json));
    if (parsed.ok && parsed.progress.batchId !== null) json[parsed.progress.batchId] = batch.json;
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.progress;
  });
}

const job = { data: { queryId: QID } } as Job<{ queryId: string }>;
const end = (p: Progress) => p.timestampMs + p.batchDurationMs;

describe('detect with a report dated out of line with its batch', () => {
  it('reads on past it, logs it, and a later silence opens a stall', async () => {
    const history = reports(40);
    history[20] = { ...history[20]!, timestampMs: history[20]!.timestampMs + DAY, timestamp: new Date(history[20]!.timestampMs + DAY).toISOString() };
    const { lines, logger } = capturedLogger();
    let now = end(history[19]!) + 1_000;
    const detect = createDetectProcessor({ store, queues, trackers: engineTrackers(), metrics: createMetrics({ processMetrics: false }), logger, now: () => now });
    await store.streams.upsert({ queryId: QID, name: 'ledger' });
    await store.queries.push(QID, history.slice(0, 20));
    await detect(job);
    // One report per job from here, as a listener table polled every trigger delivers them.
    for (let i = 20; i < 40; i += 1) {
      await store.queries.push(QID, [history[i]!]);
      now = end(history[i]!) + 1_000;
      await detect(job);
    }
    const stream = (await store.streams.get(QID))!;
    expect(stream.snapshot?.lastBatchId).toBe(history[39]!.batchId);
    expect(stream.snapshot?.lastProgressAt).toBe(new Date(end(history[39]!)).toISOString());
    expect(stream.snapshot?.health).toBe('ok');
    const told = lines.filter((line) => line.level === 'warn' && String(line.msg).startsWith('progress reports skipped'));
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ queryId: QID, older: 0, duplicate: 0, misdated: 1 });

    // Two hours of silence: judged from the real clock, not from a day ahead.
    now = end(history[39]!) + 2 * 3_600_000;
    expect(await detect(job)).toMatchObject({ observed: 0, changes: 1 });
    expect((await store.streams.get(QID))!.snapshot?.health).toBe('critical');
  });
});

describe('detect reads a job of several reports in batch order', () => {
  const cases = [
    { label: 'one dated a day ahead', at: 20, misdated: 1, change: (p: Progress) => ({ ...p, timestampMs: p.timestampMs + DAY, timestamp: new Date(p.timestampMs + DAY).toISOString() }) },
    { label: 'one dated back an hour', at: 21, misdated: 1, change: (p: Progress) => ({ ...p, timestampMs: p.timestampMs - 3_600_000, timestamp: new Date(p.timestampMs - 3_600_000).toISOString() }) },
    {
      label: 'one whose time the parser read as missing (stamped 2301)',
      at: 21,
      misdated: 0,
      change: (p: Progress): Progress => {
        const parsed = parseProgress({ ...(JSON.parse(sourceJson[p.batchId!]!) as object), timestamp: '2301-01-01T00:00:00.000Z' });
        if (!parsed.ok) throw new Error(parsed.error);
        expect(parsed.progress.timestampMissing).toBe(true);
        return parsed.progress;
      },
    },
  ];
  const sourceJson: string[] = [];

  for (const { label, at, misdated, change } of cases) {
    it(`${label}: every batch is observed, in its place, none dropped as seen`, async () => {
      const history = reports(40, sourceJson);
      history[at] = change(history[at]!);
      const { lines, logger } = capturedLogger();
      let now = end(history[19]!) + 1_000;
      const detect = createDetectProcessor({ store, queues, trackers: engineTrackers(), metrics: createMetrics({ processMetrics: false }), logger, now: () => now });
      await store.streams.upsert({ queryId: QID, name: 'ledger' });
      await store.queries.push(QID, history.slice(0, 19));
      await detect(job);
      // A poll every 30 s on a 10 s trigger: three reports per job, the odd one among them.
      let duplicates = 0;
      for (let i = 19; i < 40; i += 3) {
        await store.queries.push(QID, history.slice(i, i + 3));
        now = end(history[Math.min(i + 2, 39)]!) + 1_000;
        duplicates += (await detect(job)).duplicates;
      }
      expect(duplicates).toBe(0);
      const state = (await store.queries.loadForDetect(QID)).state as { batches: number; ring: number[][] };
      expect(state.batches).toBe(40);
      // The ring holds every batch in batchId order, its times in order.
      expect(state.ring.map((row) => row[0])).toEqual(history.map((p) => p.batchId));
      expect(state.ring.every((row, i) => i === 0 || row[1]! >= state.ring[i - 1]![1]! + state.ring[i - 1]![2]!)).toBe(true);
      const stream = (await store.streams.get(QID))!;
      expect(stream.snapshot?.lastBatchId).toBe(39);
      expect(stream.snapshot?.lastProgressAt).toBe(new Date(end(history[39]!)).toISOString());
      expect(stream.snapshot?.health).toBe('ok');
      const told = lines.filter((line) => line.level === 'warn' && String(line.msg).startsWith('progress reports skipped'));
      expect(told).toHaveLength(misdated);
      if (misdated > 0) expect(told[0]).toMatchObject({ older: 0, duplicate: 0, misdated });
    });
  }
});
