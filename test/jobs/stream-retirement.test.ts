/**
 * The stream registry shrinks: a query restarted from a new checkpoint gets a new
 * id, and the old one used to stay registered and be swept every minute forever. The sweep retires
 * a stream with no progress for the retention (7 days) and no open incident. Real Redis.
 */
import { randomUUID } from 'node:crypto';
import type { Job } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { createPollProcessor } from '../../jobs/poll-processor.js';
import { PipelineQueues } from '../../jobs/queues.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { RedisStore } from '../../src/store/index.js';
import { lagIncident } from '../store/fixtures.js';
import { silentLogger } from '../pipeline/helpers/harness.js';
import { testRedis } from '../helpers/redis.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

const DAY = 86_400_000;

describe('the sweep', () => {
  it('retires streams silent for a week with no open incident, and sweeps the rest', async () => {
    const redis = testRedis();
    const prefix = `sdtest-retire-${randomUUID().slice(0, 8)}`;
    const store = new RedisStore({ redis, prefix });
    const queues = new PipelineQueues({ connection: redis, prefix: `{${prefix}}` });
    cleanup = async () => {
      await queues.obliterate();
      await queues.close();
      await store.deleteEverything();
      redis.disconnect();
    };
    const now = Date.now();
    const old = 'bbbbbbbb-0000-4000-8000-000000000001'; // restarted from a new checkpoint 8 days ago
    const live = 'bbbbbbbb-0000-4000-8000-000000000002';
    const stalled = 'bbbbbbbb-0000-4000-8000-000000000003'; // silent too, but its incident is open
    await store.streams.upsert({ queryId: old, name: 'orders_enrich' }, now - 8 * DAY);
    await store.streams.upsert({ queryId: live, name: 'orders_enrich' }, now - 60_000);
    await store.streams.upsert({ queryId: stalled, name: 'payments' }, now - 9 * DAY);
    await store.queries.commitChanges(stalled, [{ type: 'opened', queryId: stalled, queryName: 'payments', incident: lagIncident('2026-11-20T10:00:00.000Z') }]);
    const sweep = createPollProcessor({ store, queues, metrics: createMetrics({ processMetrics: false }), logger: silentLogger, sources: new Map() });
    const outcome = await sweep({ name: 'sweep', id: 's1', data: {} } as Job<{ sourceId?: string }>);
    expect(outcome).toMatchObject({ queries: 2, retired: 1 });
    expect(await store.streams.listIds()).toEqual([live, stalled]);
    expect(await store.streams.get(old)).toBeNull();
  });
});
