/**
 * The sweep's release of a held incident is a job that runs: an incident held again under the same
 * silence end after an earlier release (its refresh found the silence still on) gets a new job on
 * the next sweep, never one taken for the finished first and skipped while the held entry is
 * dropped. Real Redis and queues; the notify side is a worker that holds the incident again.
 */
import { Worker } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { releaseEndedSilences } from '../../jobs/poll-processor.js';
import { QUEUE } from '../../jobs/queue-names.js';
import { storeAndQueuesPerTest } from '../helpers/store-and-queues.js';
import { testRedis } from '../helpers/redis.js';
import { waitFor } from '../pipeline/helpers/harness.js';

const fresh = storeAndQueuesPerTest('silence-sweep');
let worker: Worker | undefined;
afterEach(async () => {
  await worker?.close();
  worker = undefined;
});

describe('the sweep releasing held incidents', () => {
  it('an incident held again under the same end gets a new release job each sweep', async () => {
    const { store, queues } = fresh;
    const id = '0a1b2c3d-0000-4000-8000-00000000e005.lag.1795946800000';
    const untilMs = Date.now() - 1000;
    const ran: string[] = [];
    // A refresh that finds the silence still on holds the incident again, under the same end (after
    // the sweep let go of its entry).
    worker = new Worker(QUEUE.notify, async (job) => {
      await new Promise((r) => setTimeout(r, 200));
      ran.push(job.id!);
      await store.silences.hold(id, untilMs);
    }, { connection: testRedis({ maxRetriesPerRequest: null }), prefix: queues.prefix });
    await store.silences.hold(id, untilMs);
    for (let sweep = 1; sweep <= 3; sweep++) {
      expect(await releaseEndedSilences({ store, queues })).toBe(1);
      await waitFor(() => ran.length === sweep, `release job ${sweep} ran`, 5000);
      // Held again by its job: the next sweep releases it again.
      await waitFor(async () => (await store.silences.dueHeld(Date.now())).length === 1, 'held again');
    }
    expect(new Set(ran).size).toBe(3);
  });
});
