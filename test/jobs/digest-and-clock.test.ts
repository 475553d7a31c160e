/**
 * The daily digest (one per channel per day, never twice) and the clock's schedules (idempotent
 * upserts from several clocks, digest time in the configured zone, stale sources removed).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { dayIn } from '../../jobs/digest-processor.js';
import { PipelineQueues } from '../../jobs/queues.js';
import { getNextMillis } from 'bullmq';
import { dailyCron, upsertSchedules } from '../../jobs/schedules.js';
import { startClock, type WorkerRuntime } from '../../src/runtime/pipeline-runtime.js';
import type { LocalSlack } from '../../src/standins/slack/index.js';
import { lagIncident } from '../store/fixtures.js';
import { deletePrefix, REDIS_URL, silentLogger, notifyWorkerPerTest, uniquePrefix, waitFor } from '../pipeline/helpers/harness.js';
import { testRedis } from '../helpers/redis.js';

const worker = notifyWorkerPerTest();
let runtime: WorkerRuntime | undefined;
let slack: LocalSlack | undefined;
/** The clock test's keys (it starts clocks, not a notify worker). */
let prefix: string | undefined;

afterEach(async () => {
  if (prefix) await deletePrefix(REDIS_URL, prefix);
  prefix = undefined;
});

describe('schedule helpers', () => {
  it('turns HH:MM into a daily cron and rejects anything else with what to write', () => {
    // The hour after stands in where the clocks jump over the time (never past midnight).
    expect(dailyCron('09:00')).toBe('0 0 9,10 * * *');
    expect(dailyCron('23:45')).toBe('0 45 23 * * *');
    expect(() => dailyCron('9am')).toThrow(/HH:MM/);
    expect(() => dailyCron('24:00')).toThrow(/09:00/);
  });
  it('fires on every local day of a year, also where the clocks jump over the digest time at midnight', () => {
    for (const [timeZone, at] of [['America/Santiago', '00:30'], ['America/Havana', '00:30'], ['Asia/Beirut', '00:00'], ['Europe/Berlin', '02:30'], ['America/New_York', '09:00']] as const) {
      const days = new Set<string>();
      let t = Date.parse('2026-01-01T12:00:00Z');
      while (t < Date.parse('2027-01-01T00:00:00Z')) {
        t = getNextMillis(t, { pattern: dailyCron(at), tz: timeZone })!;
        days.add(dayIn(t, timeZone));
      }
      // Every calendar day from the first fire's to the last's (noon UTC lies inside each of them).
      const sorted = [...days].sort();
      const missing: string[] = [];
      for (let day = Date.parse(`${sorted[0]}T12:00:00Z`); day <= Date.parse(`${sorted.at(-1)}T12:00:00Z`); day += 86_400_000) {
        const name = new Date(day).toISOString().slice(0, 10);
        if (!days.has(name)) missing.push(name);
      }
      expect({ timeZone, missing }).toEqual({ timeZone, missing: [] });
    }
  });

  it('counts the digest day in the configured zone', () => {
    const at = Date.parse('2026-11-29T23:30:00Z');
    expect(dayIn(at, 'UTC')).toBe('2026-11-29');
    expect(dayIn(at, 'Asia/Tokyo')).toBe('2026-11-30');
    expect(dayIn(at, 'America/New_York')).toBe('2026-11-29');
  });
});

describe('clock schedules', () => {
  it('are idempotent across clocks, keep the zone, and drop sources no longer configured', async () => {
    const p = uniquePrefix('clock');
    prefix = p.prefix;
    const schedule = { sourceIds: ['ws1-table', 'ws1-events'], pollEveryMs: 10_000, digestAt: '08:30', timeZone: 'Europe/Lisbon' };
    const [a, b] = await Promise.all([
      startClock({ redisUrl: REDIS_URL, ...p, logger: silentLogger, schedule }),
      startClock({ redisUrl: REDIS_URL, ...p, logger: silentLogger, schedule }),
    ]);
    const redis = testRedis();
    const queues = new PipelineQueues({ connection: redis, prefix: p.queuePrefix });
    try {
      const polls = await queues.poll.getJobSchedulers(0, -1);
      expect(polls.map((s) => s.key).sort()).toEqual(['poll-ws1-events', 'poll-ws1-table', 'sweep']);
      // One delayed job per scheduler, however many clocks upserted it.
      expect(await queues.poll.getDelayedCount()).toBeLessThanOrEqual(3);
      const digest = await queues.digest.getJobScheduler('digest-daily');
      expect(digest).toMatchObject({ pattern: '0 30 8,9 * * *', tz: 'Europe/Lisbon' });
      expect(await queues.digest.getDelayedCount()).toBe(1);
      await upsertSchedules(queues, { ...schedule, sourceIds: ['ws1-table'] });
      expect((await queues.poll.getJobSchedulers(0, -1)).map((s) => s.key).sort()).toEqual(['poll-ws1-table', 'sweep']);
    } finally {
      await a.close();
      await b.close();
      await queues.close();
      redis.disconnect();
    }
  });
});

describe('daily digest', () => {
  it('posts one digest per routed channel per day, and a re-run the same day posts nothing new', async () => {
    ({ runtime, slack } = await worker.start('digest'));
    const rt = runtime;
    for (const [id, name] of [['q-orders', 'orders_enrichment'], ['q-clicks', 'clickstream'], ['q-pay', 'payments']] as const) {
      await rt.store.streams.upsert({ queryId: id, name, jobId: `job-${id}` });
    }
    await rt.store.routing.setRoute('job', 'job-q-pay', 'C0STREAMNG');
    // One incident in #data-alerts in the last 24 h.
    const opened = lagIncident(new Date(Date.now() - 3_600_000).toISOString());
    await rt.store.queries.commitDetect('q-orders', {
      expectedVersion: 0, state: {}, lastSeq: 0, snapshot: null, health: 'warning', name: null, lastRunId: null, lastBatchId: null,
      lastObservedAt: Date.now() - 3_600_000, timeBehindSec: 95, nowMs: Date.now(),
      changes: [{ type: 'opened', queryId: 'q-orders', queryName: 'orders_enrichment', incident: opened }],
    });
    const record = (await rt.store.incidents.listForQuery('q-orders'))[0]!;
    await rt.store.incidents.assignChannel(record, 'C0DATAALRT');

    await rt.queues.digest.add('all', { kind: 'all', day: '2026-11-29' });
    await waitFor(() => slack!.messages('C0DATAALRT').length === 1 && slack!.messages('C0STREAMNG').length === 1, 'two digests');
    const alerts = slack.messages('C0DATAALRT')[0]!;
    expect(JSON.stringify(alerts.blocks)).toContain('orders_enrichment');
    expect(JSON.stringify(alerts.blocks)).toContain('clickstream');
    expect(JSON.stringify(alerts.blocks)).not.toContain('payments');
    expect(JSON.stringify(slack.messages('C0STREAMNG')[0]!.blocks)).toContain('payments');
    // The time-behind chart goes into the digest's thread (only #data-alerts has samples).
    await waitFor(() => slack!.files().length === 1, 'chart uploaded');

    // A second fire for the same day (two clocks, a retry): job ids and message keys collapse it.
    await rt.queues.digest.add('all', { kind: 'all', day: '2026-11-29' });
    await rt.queues.digest.add('channel', { kind: 'channel', channel: 'C0DATAALRT', day: '2026-11-29' });
    await waitFor(async () => (await rt.queues.digest.getCompletedCount()) >= 5, 'second round done');
    expect(slack.messages('C0DATAALRT')).toHaveLength(1);
    expect(slack.messages('C0STREAMNG')).toHaveLength(1);
    expect(slack.files()).toHaveLength(1);
    expect(slack.files()[0]!.mimetype).toBe('image/png');
  });

  it('fans out once a day however often the schedule fires that day', async () => {
    ({ runtime, slack } = await worker.start('digest-twice'));
    const rt = runtime;
    await rt.store.streams.upsert({ queryId: 'q-orders', name: 'orders_enrichment' });
    // The day's fire and the hour after (dailyCron), as scheduler jobs without a day of their own.
    const first = await rt.queues.digest.add('all', { kind: 'all' });
    const second = await rt.queues.digest.add('all', { kind: 'all' });
    await waitFor(async () => (await rt.queues.digest.getCompletedCount()) >= 3, 'both fires and one channel digest');
    const results = await Promise.all([first, second].map(async (job) => (await rt.queues.digest.getJob(job.id!))!.returnvalue as { channels: number }));
    expect(results.map((r) => r.channels).sort()).toEqual([0, 1]);
    expect(slack.messages('C0DATAALRT')).toHaveLength(1);
  });
});
