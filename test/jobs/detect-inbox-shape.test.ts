/**
 * Inbox entries detect reads back that are not what this code's poller writes: JSON that is no
 * progress report is consumed and logged with its query and sequence (never wedging the query or
 * counted as a duplicate), and a report of an older shape is read with the parser's defaults.
 */
import type { Job } from 'bullmq';
import { beforeEach, expect, it } from 'vitest';
import { createDetectProcessor } from '../../jobs/detect-processor.js';
import { engineTrackers } from '../../jobs/engine-trackers.js';
import { PipelineQueues } from '../../jobs/queues.js';
import { QueryTracker, type TrackerState } from '../../src/diagnosis/query-tracker.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { RedisStore } from '../../src/store/index.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { storeAndQueuesPerTest } from '../helpers/store-and-queues.js';
import { kafkaProgress } from '../store/fixtures.js';

const fresh = storeAndQueuesPerTest('detect-inbox-shape');
let store: RedisStore;
let queues: PipelineQueues;
beforeEach(() => ({ store, queues } = fresh));

const QID = '5e1e1c4a-7d4b-4a8e-9d7e-2b6c0c9a1f05';
const T0 = Date.parse('2026-11-29T10:00:00.000Z');
const reports = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => kafkaProgress(QID, from + i, T0));

function detector() {
  const { lines, logger } = capturedLogger();
  const detect = createDetectProcessor({ store, queues, trackers: engineTrackers(), metrics: createMetrics({ processMetrics: false }), logger, now: () => T0 + 200_000 });
  return { lines, run: () => detect({ data: { queryId: QID } } as Job<never>) };
}

async function pushRaw(payload: string): Promise<number> {
  const seq = await fresh.redis.hincrby(store.keys.streamMeta(QID), 'inboxSeq', 1);
  await fresh.redis.rpush(store.keys.inbox(QID), `${seq}|${payload}`);
  return seq;
}

it.each(['null', '42', '"x"', '[]', '{}'])('an entry %s among good ones is consumed and named in the log', async (payload) => {
  const { lines, run } = detector();
  await store.queries.push(QID, reports(0, 5));
  const seq = await pushRaw(payload);
  await store.queries.push(QID, reports(5, 10));
  await expect(run()).resolves.toMatchObject({ observed: 10, duplicates: 0 });
  expect(await store.queries.inboxLength(QID)).toBe(0);
  const [warning] = lines.filter((l) => l.msg === 'skipped unreadable inbox entries (consumed)');
  expect(warning).toMatchObject({ level: 'warn', queryId: QID, corrupt: 1, entries: [{ seq }] });
});

it('an entry of an older shape (no timestampMs, batchDurationMs) is observed with the parser’s defaults, and the query goes on', async () => {
  const { lines, run } = detector();
  await store.queries.push(QID, reports(0, 5));
  const old: Record<string, unknown> = { ...kafkaProgress(QID, 5, T0) };
  delete old.timestampMs;
  delete old.batchDurationMs;
  await pushRaw(JSON.stringify(old));
  await store.queries.push(QID, reports(6, 10));
  await expect(run()).resolves.toMatchObject({ observed: 10 });
  expect(lines.filter((l) => l.msg === 'inbox entries of an older shape read with the parser\'s defaults')).toHaveLength(1);
  const saved = (await store.queries.getTrackerState(QID))!.state as TrackerState;
  expect(() => QueryTracker.restore(saved)).not.toThrow();
  await store.queries.push(QID, reports(10, 12));
  await expect(run()).resolves.toMatchObject({ observed: 2 });
  expect((await store.streams.get(QID))!.lastObservedBatchId).toBe(11);
  expect(await store.queries.inboxLength(QID)).toBe(0);
});
