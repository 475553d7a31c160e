/**
 * Worst case of the per-query memory bound: detect down for 10 minutes while polls keep filling the
 * inbox of a stateful Kafka query (RocksDB customMetrics: several KB per report), next to an
 * engine state at its 24 KB bound, a day of time-behind history and an open incident.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseProgress } from '../../src/progress/parse-progress.js';
import type { Progress } from '../../src/progress/types.js';
import { RedisStore } from '../../src/store/index.js';
import { decodeProgress, encodeProgress } from '../../src/store/inbox-codec.js';
import { bulkyTrackerState, lagIncident } from './fixtures.js';
import { testRedis } from '../helpers/redis.js';

const redis = testRedis({ lazyConnect: false });
let store: RedisStore;
const QID = '8f3c2a51-6b0e-4d7a-9c1e-2b5f7d9a0e34';
const T0 = Date.parse('2026-09-14T09:00:00.000Z');

const RAW = readFileSync(new URL('../fixtures/progress/orders-agg-capped-falling-behind.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as Record<string, unknown>);

/** Report `i` of a 10-second-cadence run: the fixture's reports, continued past its end. */
function report(i: number): Progress {
  const raw = structuredClone(RAW[i % RAW.length]!);
  raw.batchId = 48_000 + i;
  raw.timestamp = new Date(T0 + i * 10_000).toISOString();
  const parsed = parseProgress(raw);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.progress;
}

beforeEach(() => {
  store = new RedisStore({ redis, prefix: `sdtest-${randomUUID()}` });
});
afterEach(async () => {
  await store.deleteEverything();
});
afterAll(async () => {
  await redis.quit();
});

describe('inbox memory bound', () => {
  it('stores progress compactly and decodes it to the same value (plain JSON entries still read)', () => {
    const p = report(3);
    const json = JSON.stringify(p);
    expect(json.length).toBeGreaterThan(2_000); // several KB: RocksDB customMetrics, Kafka offsets
    const packed = encodeProgress(p);
    expect(packed.length).toBeLessThan(json.length / 2);
    expect(decodeProgress(packed)).toEqual(p);
    expect(decodeProgress(Buffer.from(json))).toEqual(p);
  });

  it('keeps a query under 64 KB with detect down 10 minutes and the inbox full of large stateful progress', async () => {
    // A day of history and an open incident, committed by detect before it went down.
    const state = bulkyTrackerState(24 * 1024);
    let version = 0;
    for (let t = 0; t < 24 * 3_600_000; t += 15 * 60_000) {
      const load = await store.queries.loadForDetect(QID);
      await store.queries.commitDetect(QID, {
        expectedVersion: version,
        state,
        lastSeq: load.lastSeq,
        snapshot: { timeBehindSec: 380, batchDurationMs: 14_200, triggerMs: 10_000, stateRows: 48_000_000, health: 'warning', lastProgressAt: T0 + t, lastBatchId: 48_000 },
        health: 'warning',
        name: 'orders_5min_agg',
        lastRunId: 'c41d9e07-2f8a-4b63-a5d2-7e19f0b3c6a8',
        lastBatchId: 48_000,
        lastObservedAt: T0 + t,
        timeBehindSec: 300 + (t / 60_000) % 97,
        changes: t === 0 ? [{ type: 'opened', queryId: QID, queryName: 'orders_5min_agg', incident: lagIncident('2026-09-14T09:00:00.000Z') }] : [],
        nowMs: T0 + t,
      });
      version += 1;
    }
    // Detect is down: 60 polls (10 minutes at 10 s) each append one report.
    let dropped = 0;
    let rawBytes = 0;
    for (let i = 0; i < 60; i++) {
      const p = report(i);
      rawBytes += JSON.stringify(p).length;
      dropped += (await store.queries.push(QID, [p])).dropped;
    }
    expect(rawBytes).toBeGreaterThan(120 * 1024); // as plain JSON the inbox alone would be over the target
    const bytes = await store.memoryPerQuery(QID);
    expect(bytes).toBeLessThan(64 * 1024);
    // Compact entries: the whole engine window (48 batches) survives the outage.
    const load = await store.queries.loadForDetect(QID);
    expect(load.entries.length + dropped).toBe(60);
    expect(load.entries.length).toBeGreaterThanOrEqual(48);
    expect(load.entries.at(-1)!.progress.batchId).toBe(48_059);
    expect(load.entries.map((e) => e.progress)).toEqual(Array.from({ length: load.entries.length }, (_, k) => report(60 - load.entries.length + k)));
  });

  it('drops the oldest entries beyond the byte bound, counts them, and always keeps the newest', async () => {
    const small = new RedisStore({ redis, prefix: store.keys.prefix, inboxMaxBytes: 4 * 1024 });
    let dropped = 0;
    for (let i = 0; i < 30; i++) dropped += (await small.queries.push(QID, [report(i)])).dropped;
    const load = await small.queries.loadForDetect(QID);
    expect(dropped).toBeGreaterThan(0);
    expect(load.entries.length + dropped).toBe(30);
    expect(load.entries.map((e) => e.progress.batchId)).toEqual(Array.from({ length: load.entries.length }, (_, k) => 48_030 - load.entries.length + k));
    const stored = await redis.lrangeBuffer(small.keys.inbox(QID), 0, -1);
    expect(stored.reduce((a, b) => a + b.length, 0)).toBeLessThanOrEqual(4 * 1024);

    // One report larger than the whole bound is still kept (never lose the newest).
    const tiny = new RedisStore({ redis, prefix: store.keys.prefix, inboxMaxBytes: 64 });
    const more = (await tiny.queries.push(QID, [report(30)])).dropped;
    expect(more).toBe(load.entries.length);
    const after = await tiny.queries.loadForDetect(QID);
    expect(after.entries.map((e) => e.progress.batchId)).toEqual([48_030]);
  });
});
