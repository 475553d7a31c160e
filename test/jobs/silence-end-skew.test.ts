/**
 * A held alert is never lost to a silence record that disagrees with its key: a record whose end
 * passes while its key still lives (written on a clock behind the workers', or the demo's fast one:
 * held until that end, the key being a backstop), in seconds, or no number (held until the key
 * really expires). Then it is posted once;
 * the sweep (run by hand here, every second) never takes a new release for an earlier one and drops
 * the held entry. Real Redis, real worker, the local Slack.
 */
import { describe, expect, it } from 'vitest';
import { releaseEndedSilences } from '../../jobs/poll-processor.js';
import type { WorkerRuntime } from '../../src/runtime/pipeline-runtime.js';
import { incidentIdOf } from '../../src/store/index.js';
import { lagIncident } from '../store/fixtures.js';
import { commitAndDrain, notifyWorkerPerTest, waitFor } from '../pipeline/helpers/harness.js';

const worker = notifyWorkerPerTest();
const CHANNEL = 'C0DATAALRT';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function heldThenPosted(silence: (now: number) => Record<string, unknown>, keyTtlMs: number, endsAfterMs = keyTtlMs): Promise<WorkerRuntime> {
  const { runtime: rt, slack } = await worker.start('silence-skew', { channelIntervalMs: 0 });
  const queryId = '0a1b2c3d-0000-4000-8000-00000000e004';
  const now = Date.now();
  await rt.redis.set(rt.store.keys.silence(queryId), JSON.stringify({ queryId, byUser: 'U0MARIA001', createdAt: now, ...silence(now) }), 'PX', keyTtlMs);
  const incident = lagIncident('2026-11-29T10:06:40.000Z');
  const id = incidentIdOf(queryId, incident);
  await rt.store.streams.upsert({ queryId, name: 'orders' });
  await commitAndDrain(rt, queryId, [{ type: 'opened', queryId, queryName: 'orders', incident }]);
  await waitFor(async () => (await rt.store.incidents.get(id))?.notifiedVersion === 1, 'held quietly');
  for (let i = 0; i < 10 && slack.messages(CHANNEL).length === 0; i++) {
    await sleep(1000);
    await releaseEndedSilences({ store: rt.store, queues: rt.queues });
  }
  await waitFor(() => slack.messages(CHANNEL).length === 1, 'posted once the silence ended', 5000);
  // Not before: the silence held it until its end.
  expect(Number(slack.messages(CHANNEL)[0]!.ts) * 1000).toBeGreaterThanOrEqual(now + endsAfterMs - 50);
  await sleep(500);
  expect(slack.messages(CHANNEL)).toHaveLength(1);
  expect(await rt.store.silences.dueHeld(Date.now() + 3_600_000)).toEqual([]);
  expect(await rt.queues.notify.getFailedCount()).toBe(0);
  return rt;
}

describe('silence records that disagree with their key', () => {
  it('an end that passes while the key still lives (a clock behind, or fast): held until that end, then posted', async () => {
    await heldThenPosted((now) => ({ untilMs: now + 600 }), 3000, 600);
  });

  it('an end in seconds: the same, and the key rules', async () => {
    await heldThenPosted((now) => ({ untilMs: Math.floor((now + 600) / 1000) }), 3000);
  });

  it('an end that is no number: nothing fails or retries, posted once the key expires', async () => {
    const rt = await heldThenPosted(() => ({ untilMs: 'tomorrow' }), 2000);
    const jobs = await rt.queues.notify.getJobs(['completed']);
    expect(jobs.every((job) => job.attemptsMade <= 1)).toBe(true);
  });
});
