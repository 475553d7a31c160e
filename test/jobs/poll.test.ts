/**
 * The poll step on real Redis: registry, inboxes, cursor round trip, detect jobs (streams under
 * pressure first), an unknown source refused for good, a failing source counted and retried.
 */
import { UnrecoverableError, type Job } from 'bullmq';
import { beforeEach, describe, expect, it } from 'vitest';
import { createPollProcessor, pressure } from '../../jobs/poll-processor.js';
import { fakeSource } from '../helpers/fake-source.js';
import { PipelineQueues } from '../../jobs/queues.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { RedisStore } from '../../src/store/index.js';
import { silentLogger } from '../pipeline/helpers/harness.js';
import { kafkaProgress } from '../store/fixtures.js';
import { storeAndQueuesPerTest } from '../helpers/store-and-queues.js';

const T0 = Date.parse('2026-11-29T10:00:00.000Z');

const fresh = storeAndQueuesPerTest('poll');
let store: RedisStore;
let queues: PipelineQueues;
beforeEach(() => {
  ({ store, queues } = fresh);
});
const { redis } = fresh;

const pollJob = (sourceId: string) => ({ name: 'poll', id: '1', data: { sourceId } }) as Job<{ sourceId?: string }>;

describe('poll processor', () => {
  it('stores progress per query, keeps the cursor, and queues detect with the strained stream first', async () => {
    const calm = 'aaaaaaaa-0000-4000-8000-000000000001';
    const strained = 'aaaaaaaa-0000-4000-8000-000000000002';
    const seenCursors: unknown[] = [];
    const source = fakeSource(async (cursor) => {
        seenCursors.push(cursor);
        return {
          progress: [
            { progress: kafkaProgress(calm, 1, T0) },
            { progress: kafkaProgress(calm, 2, T0) },
            { progress: kafkaProgress(strained, 7, T0, { inputRowsPerSecond: 40_000, processedRowsPerSecond: 17_000 }) },
          ],
          cursor: { v: 1, watermarkUs: 1_795_000_000_000_000, seen: { [calm]: 2 } },
          warnings: ['row 3: progress_json is not valid JSON; skipped'],
          signals: [],
        };
    });
    const metrics = createMetrics({ processMetrics: false });
    const poll = createPollProcessor({ store, queues, metrics, logger: silentLogger, sources: new Map([['ws.progress', { id: 'ws.progress', source, describe: () => ({ workspace: 'prod', jobId: '881' }) }]]) });
    expect(await poll(pollJob('ws.progress'))).toMatchObject({ sourceId: 'ws.progress', progress: 3, queries: 2, dropped: 0 });
    await poll(pollJob('ws.progress'));
    expect(seenCursors).toEqual([null, { v: 1, watermarkUs: 1_795_000_000_000_000, seen: { [calm]: 2 } }]);
    expect(await store.streams.get(calm)).toMatchObject({ name: 'orders_enrichment', source: 'ws.progress', workspace: 'prod', jobId: '881' });
    expect(await store.queries.inboxLength(calm)).toBe(4);
    const waiting = await queues.detect.getJobs(['waiting'], 0, 10, true);
    expect(waiting.map((j) => j.data.queryId)).toEqual([strained, calm]);
    expect(pressure([kafkaProgress(calm, 1, T0, { inputRowsPerSecond: null })])).toBe(0);
  });

  it('refuses an unknown source for good and counts a failing one', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const failing = fakeSource(async () => { throw Object.assign(new Error('warehouse stopped'), { code: 'streamdoctor_databricks_unavailable' }); });
    const poll = createPollProcessor({ store, queues, metrics, logger: silentLogger, sources: new Map([['ws.progress', { id: 'ws.progress', source: failing }]]) });
    await expect(poll(pollJob('nope'))).rejects.toBeInstanceOf(UnrecoverableError);
    await expect(poll(pollJob('ws.progress'))).rejects.toThrow('warehouse stopped');
    const errors = await metrics.registry.getSingleMetric('streamdoctor_api_errors_total')!.get();
    expect(errors.values).toEqual([expect.objectContaining({ labels: { service: 'databricks', kind: 'streamdoctor_databricks_unavailable' }, value: 1 })]);
    expect(await store.cursors.get('ws.progress')).toBeNull();
  });

  it('a job-runs poll records which watched jobs run and drops answers of jobs no longer watched', async () => {
    const now = Date.now();
    // 777 left the watch file two hours ago; 881 was seen earlier today.
    await store.jobs.record([{ jobId: '777', running: false }, { jobId: '881', running: false }], now - 2 * 3_600_000);
    const jobRuns = fakeSource(async () => ({ cursor: { v: 1, jobs: { '881': { endedAfterMs: now, reported: [] }, '882': { endedAfterMs: now, reported: [] } } } }), {
      name: 'job_runs',
      liveness: () => [{ jobId: '881', running: true }, { jobId: '882', running: false }],
    });
    const progressOnly = fakeSource(async () => ({ cursor: null }));
    const metrics = createMetrics({ processMetrics: false });
    const poll = createPollProcessor({ store, queues, metrics, logger: silentLogger, sources: new Map([
      ['ws.jobs', { id: 'ws.jobs', source: jobRuns }],
      ['ws.progress', { id: 'ws.progress', source: progressOnly }],
    ]) });
    await poll(pollJob('ws.progress')); // a progress source never touches the liveness hash
    expect(await store.jobs.get('777')).toMatchObject({ running: false });
    await poll(pollJob('ws.jobs'));
    const hash = await redis.hgetall(store.keys.jobLiveness());
    expect(Object.keys(hash).sort()).toEqual(['881', '882']);
    expect(await store.jobs.get('881')).toMatchObject({ running: true });
    expect(await store.jobs.get('882')).toMatchObject({ running: false });
  });

  it('counts progress the inbox byte bound drops while detect is down', async () => {
    const qid = 'aaaaaaaa-0000-4000-8000-000000000003';
    const bounded = new RedisStore({ redis, prefix: store.keys.prefix, inboxMaxBytes: 2_048 });
    let batch = 0;
    const source = fakeSource(async () => ({ progress: Array.from({ length: 3 }, () => ({ progress: kafkaProgress(qid, ++batch, T0) })), cursor: null }));
    const metrics = createMetrics({ processMetrics: false });
    const poll = createPollProcessor({ store: bounded, queues, metrics, logger: silentLogger, sources: new Map([['ws.progress', { id: 'ws.progress', source }]]) });
    let dropped = 0;
    for (let i = 0; i < 6; i++) dropped += (await poll(pollJob('ws.progress'))).dropped ?? 0;
    const kept = await bounded.queries.inboxLength(qid);
    expect(dropped).toBeGreaterThan(0);
    expect(kept + dropped).toBe(18);
    const counted = await metrics.registry.getSingleMetric('streamdoctor_progress_dropped_total')!.get();
    expect(counted.values[0]!.value).toBe(dropped);
    const load = await bounded.queries.loadForDetect(qid);
    expect(load.entries.at(-1)!.progress.batchId).toBe(18);
  });
});
