/**
 * Notify gives up in about an hour, not months, and does not retry what cannot succeed: a permanent Slack refusal (channel_not_found, is_archived, invalid_blocks…) fails the job
 * at once as a BullMQ UnrecoverableError. A detect job in backoff (it holds its query's one pending
 * detect) waits seconds, not hours. Real worker, real Redis, the local Slack over HTTP.
 */
import { describe, expect, it } from 'vitest';
import { BACKOFF_CAP_MS, cappedBackoff, DEFAULT_JOB_OPTIONS } from '../../jobs/queues.js';
import { incidentIdOf } from '../../src/store/index.js';
import { lagIncident } from '../store/fixtures.js';
import { commitAndDrain, notifyWorkerPerTest, waitFor } from '../pipeline/helpers/harness.js';

const worker = notifyWorkerPerTest();

/** Every wait between retries of a queue's jobs, as BullMQ computes it (`random` fixes the jitter). */
function retryWaits(queue: keyof typeof DEFAULT_JOB_OPTIONS, random: number): number[] {
  const { attempts = 1, backoff } = DEFAULT_JOB_OPTIONS[queue];
  const { type, delay = 0 } = backoff as { type: string; delay?: number };
  const waits: number[] = [];
  for (let made = 1; made < attempts; made++) {
    const cap = BACKOFF_CAP_MS[type];
    waits.push(cap !== undefined ? cappedBackoff(made, delay, () => random, cap) : type === 'exponential' ? 2 ** (made - 1) * delay : delay);
  }
  return waits;
}

const totalRetryMs = (random: number) => retryWaits('notify', random).reduce((a, b) => a + b, 0);

describe('notify retries', () => {
  it('give up after about an hour of a Slack outage, each wait at most about 5 minutes', () => {
    expect(totalRetryMs(0.5) / 60_000).toBeGreaterThan(45);
    expect(totalRetryMs(0.5) / 60_000).toBeLessThan(75);
    expect(totalRetryMs(0) / 60_000).toBeGreaterThan(40); // jitter at its lowest
    expect(totalRetryMs(1) / 60_000).toBeLessThan(90); // and at its highest
    expect(cappedBackoff(30, 1000, () => 0.5)).toBe(300_000);
  });

  it('a detect job in backoff never holds the query’s detection for long (≤ ~5 s a wait, ~1 min in all)', () => {
    const waits = retryWaits('detect', 1);
    expect(Math.max(...waits)).toBeLessThanOrEqual(6500);
    expect(waits.reduce((a, b) => a + b, 0)).toBeLessThan(2 * 60_000);
  });

  it('a permanent Slack refusal (channel_not_found) fails the job at once, saying why', async () => {
    const started = await worker.start('retries', { routing: { defaultChannel: 'C0DELETED1' }, channelIntervalMs: 0 }); // the channel was deleted since the watch file was written
    const rt = started.runtime;
    const queryId = '8f1e2d3c-4b5a-4c6d-8e7f-000000000801';
    const incident = lagIncident('2026-11-29T10:06:40.000Z');
    await rt.store.streams.upsert({ queryId, name: 'orders_enrich' });
    await commitAndDrain(rt, queryId, [{ type: 'opened', queryId, queryName: 'orders_enrich', incident }]);
    const failed = await waitFor(async () => (await rt.queues.notify.getFailed())[0], 'the notify job failed', 10_000);
    expect(failed.attemptsMade).toBe(1);
    expect(failed.failedReason).toContain('streamdoctor_slack_permanent: Slack answered channel_not_found');
    expect(await rt.queues.notify.getDelayedCount()).toBe(0);
    expect(await rt.redis.exists(rt.store.keys.messageClaim('C0DELETED1', incidentIdOf(queryId, incident)))).toBe(0);
  });
});
