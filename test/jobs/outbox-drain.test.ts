/**
 * Draining the outbox never drops an intent: two drains of one query can run at
 * once (a detect run and a signal poll), and intents can be committed while a drain is enqueueing.
 * The old drain trimmed by count after enqueueing, so what arrived meanwhile could be trimmed unread
 * (a job-failure notification lost). Real Redis, real queues.
 */
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { drainOutbox } from '../../jobs/notify-intents.js';
import { PipelineQueues } from '../../jobs/queues.js';
import type { IncidentChange } from '../../src/diagnosis/types.js';
import { RedisStore } from '../../src/store/index.js';
import { lagIncident } from '../store/fixtures.js';
import { deletePrefix, REDIS_URL, uniquePrefix } from '../pipeline/helpers/harness.js';
import { testRedis } from '../helpers/redis.js';

let redis: Redis | undefined;
let queues: PipelineQueues | undefined;
let prefix: string | undefined;

afterEach(async () => {
  await queues?.obliterate().catch(() => undefined);
  await queues?.close();
  redis?.disconnect();
  if (prefix) await deletePrefix(REDIS_URL, prefix);
  redis = queues = prefix = undefined;
});

const QID = 'job-881';

function failed(run: number): IncidentChange {
  return { type: 'opened', queryId: QID, queryName: 'nightly_orders', incident: lagIncident(`2026-11-29T1${run}:00:00.000Z`) };
}

describe('drainOutbox', () => {
  it('keeps intents committed while another drain is enqueueing', async () => {
    const p = uniquePrefix('outbox');
    prefix = p.prefix;
    redis = testRedis();
    const store = new RedisStore({ redis, prefix: p.prefix });
    queues = new PipelineQueues({ connection: redis, prefix: p.queuePrefix });
    await store.queries.commitChanges(QID, [failed(0), failed(1), failed(2)]);
    // Drain B is enqueueing its three intents when drain A runs to the end and three more intents
    // are committed (three more failed runs of the job).
    const real = queues;
    let interleaved = false;
    const slowQueues = {
      notify: {
        addBulk: async (jobs: Parameters<PipelineQueues['notify']['addBulk']>[0]) => {
          if (!interleaved) {
            interleaved = true;
            await drainOutbox(store, real, QID, Date.now());
            await store.queries.commitChanges(QID, [failed(3), failed(4), failed(5)]);
          }
          return real.notify.addBulk(jobs);
        },
      },
    } as unknown as PipelineQueues;
    await drainOutbox(store, slowQueues, QID, Date.now());
    // Whatever B left is drained by the next run; every intent became a notify job.
    await drainOutbox(store, real, QID, Date.now());
    const jobs = await real.notify.getJobs(['waiting', 'delayed', 'prioritized']);
    expect(new Set(jobs.map((job) => (job.data as { incidentId: string }).incidentId)).size).toBe(6);
    expect(await redis.llen(store.keys.outbox(QID))).toBe(0);
  });
});
