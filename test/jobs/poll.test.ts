/**
 * The poll step on real Redis: registry, inboxes, cursor round trip, detect jobs (streams under
 * pressure first), an unknown source refused for good, a failing source counted and retried.
 */
import { randomUUID } from 'node:crypto';
import { UnrecoverableError, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPollProcessor, pressure } from '../../jobs/poll-processor.js';
import type { SourcePollResult } from '../../jobs/progress-source.js';
import { PipelineQueues } from '../../jobs/queues.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { RedisStore } from '../../src/store/index.js';
import { silentLogger } from '../pipeline/helpers/harness.js';
import { kafkaProgress } from '../store/fixtures.js';

const redis = new Redis('redis://127.0.0.1:6379');
let store: RedisStore;
let queues: PipelineQueues;
const T0 = Date.parse('2026-11-29T10:00:00.000Z');

beforeEach(() => {
  const prefix = `sdtest-poll-${randomUUID().slice(0, 8)}`;
  store = new RedisStore({ redis, prefix });
  queues = new PipelineQueues({ connection: redis, prefix: `{${prefix}}` });
});
afterEach(async () => {
  await queues.obliterate();
  await queues.close();
  await store.deleteEverything();
});
afterAll(() => redis.disconnect());

const pollJob = (sourceId: string) => ({ name: 'poll', id: '1', data: { sourceId } }) as Job<{ sourceId?: string }>;

describe('poll processor', () => {
  it('stores progress per query, keeps the cursor, and queues detect with the strained stream first', async () => {
    const calm = 'aaaaaaaa-0000-4000-8000-000000000001';
    const strained = 'aaaaaaaa-0000-4000-8000-000000000002';
    const seenCursors: unknown[] = [];
    const source = {
      async poll(cursor: unknown): Promise<SourcePollResult> {
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
      },
    };
    const metrics = createMetrics({ processMetrics: false });
    const poll = createPollProcessor({ store, queues, metrics, logger: silentLogger, sources: new Map([['ws.progress', { id: 'ws.progress', source, describe: () => ({ workspace: 'prod', jobId: '881' }) }]]) });
    expect(await poll(pollJob('ws.progress'))).toMatchObject({ sourceId: 'ws.progress', progress: 3, queries: 2, dropped: 0 });
    await poll(pollJob('ws.progress'));
    expect(seenCursors).toEqual([null, { v: 1, watermarkUs: 1_795_000_000_000_000, seen: { [calm]: 2 } }]);
    expect(await store.getStream(calm)).toMatchObject({ name: 'orders_enrichment', source: 'ws.progress', workspace: 'prod', jobId: '881' });
    expect(await store.queries.inboxLength(calm)).toBe(4);
    const waiting = await queues.detect.getJobs(['waiting'], 0, 10, true);
    expect(waiting.map((j) => j.data.queryId)).toEqual([strained, calm]);
    expect(pressure([kafkaProgress(calm, 1, T0, { inputRowsPerSecond: null })])).toBe(0);
  });

  it('refuses an unknown source for good and counts a failing one', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const failing = { poll: async (): Promise<SourcePollResult> => { throw Object.assign(new Error('warehouse stopped'), { code: 'streamdoctor_databricks_unavailable' }); } };
    const poll = createPollProcessor({ store, queues, metrics, logger: silentLogger, sources: new Map([['ws.progress', { id: 'ws.progress', source: failing }]]) });
    await expect(poll(pollJob('nope'))).rejects.toBeInstanceOf(UnrecoverableError);
    await expect(poll(pollJob('ws.progress'))).rejects.toThrow('warehouse stopped');
    const errors = await metrics.registry.getSingleMetric('streamdoctor_api_errors_total')!.get();
    expect(errors.values).toEqual([expect.objectContaining({ labels: { kind: 'streamdoctor_databricks_unavailable' }, value: 1 })]);
    expect(await store.getCursor('ws.progress')).toBeNull();
  });
});
