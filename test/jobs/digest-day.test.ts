/**
 * The day a daily digest is for is the day its schedule fired, in the configured zone. BullMQ makes
 * a scheduler's next job when the previous one fires (or when the clock upserts the schedule), so the
 * job's `timestamp` is up to a day before it is due; a digest labelled by it reuses the previous
 * day's message key and overwrites that digest instead of posting the new one.
 */
import { describe, expect, it } from 'vitest';
import { dayIn } from '../../jobs/digest-processor.js';
import { upsertSchedules } from '../../jobs/schedules.js';
import type { WorkerRuntime } from '../../src/runtime/pipeline-runtime.js';
import type { LocalSlack } from '../../src/standins/slack/index.js';
import { notifyWorkerPerTest, waitFor } from '../pipeline/helpers/harness.js';

const worker = notifyWorkerPerTest();
let runtime: WorkerRuntime | undefined;
let slack: LocalSlack | undefined;

/** A fixed-offset zone where it is about noon now, so a digest time an hour ago next fires tomorrow. */
function noonZone(nowMs: number): { timeZone: string; digestAt: string } {
  const now = new Date(nowMs);
  const hoursAhead = 12 - now.getUTCHours();
  // Etc/GMT zones count the other way round: Etc/GMT-3 is UTC+3.
  const timeZone = hoursAhead === 0 ? 'Etc/GMT' : `Etc/GMT${hoursAhead > 0 ? '-' : '+'}${Math.abs(hoursAhead)}`;
  return { timeZone, digestAt: `11:${String(now.getUTCMinutes()).padStart(2, '0')}` };
}

describe('the daily digest’s day', () => {
  it('is the day the schedule fires, not the day its job was made', async () => {
    const { timeZone, digestAt } = noonZone(Date.now());
    ({ runtime, slack } = await worker.start('digest-day', { timeZone }));
    const rt = runtime;
    await rt.store.streams.upsert({ queryId: 'q-orders', name: 'orders_enrichment' });
    await upsertSchedules(rt.queues, { sourceIds: [], digestAt, timeZone });

    // The scheduler's job for the next fire, as BullMQ hands it to the worker at that time.
    const [scheduled] = await rt.queues.digest.getDelayed();
    expect(scheduled).toBeDefined();
    const dueMs = scheduled!.opts.prevMillis!;
    const fireDay = dayIn(dueMs, timeZone);
    expect(fireDay).not.toBe(dayIn(scheduled!.timestamp, timeZone));
    await scheduled!.promote();

    const digest = await waitFor(() => slack!.messages('C0DATAALRT').find((m) => m.text.startsWith('Daily stream health')), 'the digest');
    expect((digest.metadata as { event_payload?: { key?: string } } | undefined)?.event_payload?.key).toBe(`digest.${fireDay}`);
    // Completed once its processor returned, a moment after the message it posted (later still on a cluster).
    const channelJobs = await waitFor(async () => {
      const done = (await rt.queues.digest.getCompleted()).filter((job) => job.data.kind === 'channel');
      return done.length > 0 ? done : null;
    }, 'the channel job completed');
    expect(channelJobs.map((job) => job.data.day)).toEqual([fireDay]);
  });
});
