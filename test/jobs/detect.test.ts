/**
 * The detect step on real Redis with the real engine: order, duplicates across restarts and
 * retries, a report the engine cannot handle, and the outbox turned into notify jobs.
 */
import type { Job } from 'bullmq';
import { beforeEach, describe, expect, it } from 'vitest';
import { alreadyObserved, createDetectProcessor } from '../../jobs/detect-processor.js';
import { engineTrackers } from '../../jobs/engine-trackers.js';
import { PipelineQueues } from '../../jobs/queues.js';
import type { TrackerFactory } from '../../jobs/tracker-factory.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { RedisStore } from '../../src/store/index.js';
import { silentLogger } from '../pipeline/helpers/harness.js';
import { kafkaProgress, lagIncident } from '../store/fixtures.js';
import { storeAndQueuesPerTest } from '../helpers/store-and-queues.js';

const QID = '9d2b7a10-3c4e-4f5a-8b6c-7d8e9f0a1b2c';
const T0 = Date.parse('2026-11-29T10:00:00.000Z');

const fresh = storeAndQueuesPerTest('detect');
let store: RedisStore;
let queues: PipelineQueues;
beforeEach(() => {
  ({ store, queues } = fresh);
});

const job = (queryId: string) => ({ data: { queryId } }) as Job<{ queryId: string }>;

describe('alreadyObserved', () => {
  const last = { runId: 'run1', batchId: 41, atMs: T0 + 410_000 };
  it('skips what a run already reported, keeps a restart or a retried batch of a new run', () => {
    expect(alreadyObserved(kafkaProgress(QID, 41, T0, { runId: 'run1' }), last)).toBe(true);
    expect(alreadyObserved(kafkaProgress(QID, 42, T0, { runId: 'run1' }), last)).toBe(false);
    // A new run re-executes batch 41 later (a retry after a failure before commit): observed.
    expect(alreadyObserved(kafkaProgress(QID, 41, T0, { runId: 'run2', timestampMs: T0 + 500_000 }), last)).toBe(false);
    // An old report of another run arriving late: skipped.
    expect(alreadyObserved(kafkaProgress(QID, 40, T0, { runId: 'run0' }), last)).toBe(true);
  });

  it('within a run goes by batchId whatever the time says; without a time, never judges by it', () => {
    // Dated a day ahead or an hour back: its batch decides.
    expect(alreadyObserved(kafkaProgress(QID, 42, T0, { runId: 'run1', timestampMs: T0 - 3_600_000 }), last)).toBe(false);
    expect(alreadyObserved(kafkaProgress(QID, 40, T0, { runId: 'run1', timestampMs: T0 + 86_400_000 }), last)).toBe(true);
    // The parser read its time as missing (timestampMs 0): of another run, or without batch ids, left to the tracker.
    expect(alreadyObserved({ ...kafkaProgress(QID, 3, T0, { runId: 'run2' }), timestampMs: 0, timestampMissing: true }, last)).toBe(false);
    expect(alreadyObserved({ ...kafkaProgress(QID, 41, T0, { runId: 'run1' }), batchId: null, timestampMs: 0, timestampMissing: true }, last)).toBe(false);
  });
});

describe('detect processor', () => {
  it('observes each report once in trigger order, across a replayed poll', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const detect = createDetectProcessor({ store, queues, trackers: engineTrackers(), metrics, logger: silentLogger, now: () => T0 + 200_000 });
    await store.streams.upsert({ queryId: QID, name: 'orders_enrichment' });
    // Out of order within a poll, and the second poll repeats two of them.
    await store.queries.push(QID, [3, 1, 2, 0].map((b) => kafkaProgress(QID, b, T0)));
    expect(await detect(job(QID))).toMatchObject({ observed: 4, duplicates: 0 });
    await store.queries.push(QID, [2, 3, 4].map((b) => kafkaProgress(QID, b, T0)));
    expect(await detect(job(QID))).toMatchObject({ observed: 1, duplicates: 2 });
    const stream = (await store.streams.get(QID))!;
    expect(stream).toMatchObject({ observedCount: 5, lastObservedBatchId: 4 });
    expect(stream.snapshot?.lastBatchId).toBe(4);
    expect(await store.queries.inboxLength(QID)).toBe(0);
  });

  it('a restarted job’s stream is silent from its new run’s start (job runs), not from its last report', async () => {
    // 30 reports every 10 s, then silence; 14 min after the last report a stall reads at once from
    // progress alone. The job-runs poll says a new run started 10 min after that report (the query
    // is planning its first batch over the backlog): 4 min into a run without history is no stall.
    const wall = Date.now();
    const start = wall - 15 * 60_000 - 300_000;
    const lastEnd = start + 29 * 10_000 + 8_200;
    const nowMs = lastEnd + 14 * 60_000;
    const restarted = '0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b';
    const plain = '1e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b';
    for (const [queryId, jobId] of [[restarted, '881'], [plain, '882']] as const) {
      await store.streams.upsert({ queryId, name: `orders_${jobId}`, jobId });
      await store.queries.push(queryId, Array.from({ length: 30 }, (_, b) => kafkaProgress(queryId, b, start)));
    }
    await store.jobs.record(
      [
        { jobId: '881', running: true, runStartedAtMs: lastEnd + 10 * 60_000 },
        { jobId: '882', running: true, runStartedAtMs: start - 3_600_000 },
      ],
      wall,
    );
    const detect = createDetectProcessor({ store, queues, trackers: engineTrackers(), metrics: createMetrics({ processMetrics: false }), logger: silentLogger, now: () => nowMs });
    await detect(job(restarted));
    await detect(job(plain));
    expect((await store.incidents.listForQuery(restarted)).map((r) => r.kind)).toEqual([]);
    expect((await store.incidents.listForQuery(plain)).map((r) => r.kind)).toEqual(['stalled']);
  });

  it('skips a report the engine throws on, without wedging the query', async () => {
    const real = engineTrackers();
    const fragile: TrackerFactory = {
      create: (id, name) => {
        const tracker = real.create(id, name);
        const observe = tracker.observe.bind(tracker);
        tracker.observe = (p) => {
          if (p.batchId === 1) throw new Error('detector exploded');
          return observe(p);
        };
        return tracker;
      },
      restore: real.restore,
    };
    const metrics = createMetrics({ processMetrics: false });
    const detect = createDetectProcessor({ store, queues, trackers: fragile, metrics, logger: silentLogger, now: () => T0 + 100_000 });
    await store.queries.push(QID, [0, 1, 2].map((b) => kafkaProgress(QID, b, T0)));
    await detect(job(QID));
    expect(await store.queries.inboxLength(QID)).toBe(0);
    expect((await store.streams.get(QID))!.lastObservedBatchId).toBe(2);
    const errors = await metrics.registry.getSingleMetric('streamdoctor_api_errors_total')!.get();
    expect(errors.values.find((v) => v.labels.kind === 'streamdoctor_engine_error' && v.labels.service === 'engine')?.value).toBe(1);
  });

  it('enqueues notification intents a crashed run committed but never enqueued, once', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const detect = createDetectProcessor({ store, queues, trackers: engineTrackers(), metrics, logger: silentLogger, now: () => T0 });
    // A run that died right after its commit: the intent is in the outbox, no notify job exists.
    const [intent] = await store.queries.commitChanges(QID, [{ type: 'opened', queryId: QID, queryName: null, incident: lagIncident('2026-11-29T09:59:00.000Z') }], T0);
    expect(await queues.notify.getJobCounts('waiting')).toMatchObject({ waiting: 0 });
    await detect(job(QID)); // the sweep's tick, no new progress
    await detect(job(QID));
    const jobs = await queues.notify.getJobs(['waiting']);
    expect(jobs.map((j) => j.id)).toEqual([`notify.${intent!.incidentId}.v1`]);
    expect(await store.outbox.read(QID)).toEqual([]);
  });
});
