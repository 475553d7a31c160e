/**
 * The clock re-applies its schedules every minute. A refresh that changes nothing must leave the
 * digest's next job alone: replacing it while it is due and waiting for a worker (workers busy,
 * restarting or down at the digest time, or the clock's host a few seconds fast) moved it to the
 * next fire, an hour later or the next day.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PipelineQueues } from '../../jobs/queues.js';
import { SCHEDULER_IDS, upsertSchedules } from '../../jobs/schedules.js';
import { testRedis } from '../helpers/redis.js';
import { deletePrefix, REDIS_URL, uniquePrefix } from '../pipeline/helpers/harness.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** BullMQ hands the client's clock to its scripts: `at` is when the clock process runs. */
function at(iso: string): void {
  vi.spyOn(Date, 'now').mockReturnValue(Date.parse(iso));
}

async function queuesForTest(): Promise<{ queues: PipelineQueues; redis: ReturnType<typeof testRedis> }> {
  const p = uniquePrefix('sched');
  const redis = testRedis();
  const queues = new PipelineQueues({ connection: redis, prefix: p.queuePrefix });
  cleanups.push(async () => {
    await queues.close();
    redis.disconnect();
    await deletePrefix(REDIS_URL, p.prefix);
  });
  return { queues, redis };
}

/** When the digest's pending jobs fire (their scheduled times), ISO. */
async function digestFires(queues: PipelineQueues): Promise<string[]> {
  const jobs = [...(await queues.digest.getDelayed()), ...(await queues.digest.getWaiting())];
  return jobs.map((job) => new Date(job.opts.prevMillis!).toISOString()).sort();
}

const schedule = { sourceIds: ['ws.progress'], digestAt: '09:00', timeZone: 'UTC' };

describe('the clock refreshing its schedules', () => {
  it('keeps a digest that is due and not yet taken by a worker', async () => {
    const { queues } = await queuesForTest();
    at('2026-03-10T08:59:00Z');
    await upsertSchedules(queues, schedule);
    expect(await digestFires(queues)).toEqual(['2026-03-10T09:00:00.000Z']);
    // No worker took it; the clock's minute comes round after its time.
    at('2026-03-10T09:00:30Z');
    await upsertSchedules(queues, schedule);
    at('2026-03-10T10:00:30Z');
    await upsertSchedules(queues, schedule);
    expect(await digestFires(queues)).toEqual(['2026-03-10T09:00:00.000Z']);
  });

  it('still applies a changed time, and makes a next job again where it was lost', async () => {
    const { queues, redis } = await queuesForTest();
    at('2026-03-10T08:00:00Z');
    await upsertSchedules(queues, schedule);
    await upsertSchedules(queues, { ...schedule, digestAt: '08:30' });
    expect(await digestFires(queues)).toEqual(['2026-03-10T08:30:00.000Z']);
    // Lost (deleted by hand, evicted): BullMQ refuses to remove a scheduler's job itself.
    for (const job of await queues.digest.getDelayed()) {
      await redis.zrem(queues.digest.keys.delayed!, job.id!);
      await redis.del(queues.digest.toKey(job.id!));
    }
    expect(await digestFires(queues)).toEqual([]);
    const scheduler = await queues.digest.getJobScheduler(SCHEDULER_IDS.digest);
    expect(scheduler?.pattern).toBe('0 30 8,9 * * *');
    await upsertSchedules(queues, { ...schedule, digestAt: '08:30' });
    expect(await digestFires(queues)).toEqual(['2026-03-10T08:30:00.000Z']);
  });
});
