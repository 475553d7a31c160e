/**
 * SIGTERM while a job is in flight: the worker stops taking jobs, finishes the active one, and exits
 * 0 well within 10 seconds; the job is completed, not left to stall.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { PipelineQueues } from '../../jobs/queues.js';
import { startChild, stopChild, type Child } from './helpers/children.js';
import { deletePrefix, REDIS_URL, uniquePrefix, waitFor } from './helpers/harness.js';
import { testRedis } from '../helpers/redis.js';

const prefixes = uniquePrefix('term');
const redis = testRedis();
let child: Child | undefined;

afterAll(async () => {
  child?.proc.kill('SIGKILL');
  await deletePrefix(REDIS_URL, prefixes.prefix);
  redis.disconnect();
});

describe('graceful shutdown', () => {
  it('drains the active job and exits 0 within 10 s of SIGTERM', async () => {
    const sim = { queries: 3, laggingQueries: 0, startMs: Date.now() - 5 * 60_000, batches: 30 };
    child = await startChild({ role: 'worker', redisUrl: REDIS_URL, ...prefixes, slackApiUrl: 'http://127.0.0.1:9/api/', sim, pollDelayMs: 3000 });
    const queues = new PipelineQueues({ connection: redis, prefix: prefixes.queuePrefix });
    try {
      const job = await queues.poll.add('poll', { sourceId: 'sim' });
      await waitFor(async () => (await job.getState()) === 'active', 'poll job active');
      const took = await stopChild(child);
      expect(took).toBeLessThan(10_000);
      expect(took).toBeGreaterThan(1000); // it waited for the job rather than dropping it
      expect((await child.exited).code).toBe(0);
      expect(await job.getState()).toBe('completed');
      expect((await queues.poll.getJob(job.id!))?.returnvalue).toMatchObject({ sourceId: 'sim', queries: 3 });
    } finally {
      await queues.close();
    }
  }, 40_000);
});
