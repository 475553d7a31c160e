/**
 * Slack's limits are per method: chat.update has a Tier 3 budget for the whole workspace (about 50 a
 * minute), chat.postMessage one per channel. A call refused for its rate waits out its Retry-After
 * on its own (every process holds that method, or that channel, meanwhile), and the rest still goes
 * out at once. Local Slack over HTTP with its budgets cut; real Redis and notify worker.
 */
import { describe, expect, it } from 'vitest';
import { incidentIdOf } from '../../src/store/index.js';
import { lagIncident } from '../store/fixtures.js';
import { commitAndDrain, notifyWorkerPerTest, waitFor } from '../pipeline/helpers/harness.js';

const worker = notifyWorkerPerTest();
const CHANNEL = 'C0DATAALRT';
const QID = (i: number) => `6d2e4f1a-3b5c-4d7e-8f90-${String(i).padStart(12, '0')}`;

describe('a chat.update refused for its rate', () => {
  it('waits alone: the next alert is posted at once, and chat.update is not tried again before Retry-After', async () => {
    // Storms off: a second opening would join the first's group, whose message is an update.
    const { runtime: rt, slack } = await worker.start('update-429', { routing: { defaultChannel: CHANNEL }, channelIntervalMs: 0, store: { storm: { windowMs: 30_000, threshold: 100 } } }, { rateLimit: { perSecond: 100, burst: 100, updatesPerMinute: 1 } });
    const opened = lagIncident('2026-11-29T10:06:40.000Z');
    const a = QID(1);
    await rt.store.streams.upsert({ queryId: a, name: 'orders_enrich' });
    await commitAndDrain(rt, a, [{ type: 'opened', queryId: a, queryName: 'orders_enrich', incident: opened }]);
    const ref = await waitFor(async () => (await rt.store.incidents.get(incidentIdOf(a, opened)))?.slack, 'the first alert');
    // Two changes: the first spends the minute's update, the second is refused (429).
    for (const summary of ['now 12 min behind', 'now 20 min behind']) {
      await commitAndDrain(rt, a, [{ type: 'updated', queryId: a, queryName: 'orders_enrich', incident: { ...opened, severity: 'critical', summary } }], { health: 'critical' });
      await waitFor(async () => {
        const { notify } = await rt.queues.depths();
        return notify!.active === 0 && notify!.waiting === 0;
      }, 'notify idle', 10_000, 25);
    }
    await waitFor(() => slack.calls('chat.update').some((call) => !call.ok), 'a refused update');
    // Local Slack logs the refusal before the worker has read the answer and set the cooldown.
    const updateHold = await waitFor(async () => Math.max(0, await rt.redis.pttl(rt.store.keys.slackMethodCooldown('chat.update'))), 'the chat.update cooldown', 5_000, 10);
    expect(updateHold).toBeGreaterThan(10_000);
    // The job is delayed after the cooldown is set (the poster releases its lock in between).
    await waitFor(async () => (await rt.queues.notify.getDelayedCount()) >= 1, 'the refused update delayed', 5_000, 10);

    // A new incident meanwhile: posted within seconds, not after the minute the update waits.
    const b = QID(2);
    await rt.store.streams.upsert({ queryId: b, name: 'payments' });
    const startedAt = Date.now();
    await commitAndDrain(rt, b, [{ type: 'opened', queryId: b, queryName: 'payments', incident: opened }]);
    await waitFor(async () => (await rt.store.incidents.get(incidentIdOf(b, opened)))?.slack, 'the second alert', 10_000, 25);
    expect(Date.now() - startedAt).toBeLessThan(10_000);
    // The refused update is still to come, and no further chat.update was spent on the budget meanwhile.
    expect(slack.messages(CHANNEL).find((m) => m.ts === ref.ts)!.text).not.toContain('20 min');
    expect(slack.calls('chat.update').filter((call) => !call.ok)).toHaveLength(1);
  });
});

describe('a chat.postMessage refused for its rate', () => {
  it('holds that channel only: an alert for another channel is posted at once', async () => {
    // One message per 10 s per channel, no burst; storms off (a group's message is an update).
    const { runtime: rt, slack } = await worker.start(
      'post-429',
      { routing: { defaultChannel: CHANNEL, queries: { [QID(12)]: 'C0STREAMNG' } }, channelIntervalMs: 0, store: { storm: { windowMs: 30_000, threshold: 100 } } },
      { rateLimit: { perSecond: 0.1, burst: 0, updatesPerMinute: 1_000 } },
    );
    const opened = lagIncident('2026-11-29T10:06:40.000Z');
    for (const i of [10, 11]) {
      await rt.store.streams.upsert({ queryId: QID(i), name: `orders_${i}` });
      await commitAndDrain(rt, QID(i), [{ type: 'opened', queryId: QID(i), queryName: `orders_${i}`, incident: opened }]);
    }
    await waitFor(() => slack.calls('chat.postMessage').some((call) => !call.ok), 'a refused post');
    // Local Slack logs the refusal before the worker has read the answer and held the channel.
    const channelHold = await waitFor(async () => Math.max(0, await rt.redis.pttl(rt.store.keys.channelPostSlot(CHANNEL))), 'the channel hold', 5_000, 10);
    expect(channelHold).toBeGreaterThan(5_000);
    const startedAt = Date.now();
    await rt.store.streams.upsert({ queryId: QID(12), name: 'payments' });
    await commitAndDrain(rt, QID(12), [{ type: 'opened', queryId: QID(12), queryName: 'payments', incident: opened }]);
    await waitFor(async () => (await rt.store.incidents.get(incidentIdOf(QID(12), opened)))?.slack, 'the other channel’s alert', 8_000, 25);
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    expect(slack.messages(CHANNEL)).toHaveLength(1);
  });
});

describe('a message lookup refused for its rate', () => {
  it('holds conversations.history only: the alert whose post was interrupted waits, another is posted at once, and nothing is posted twice', async () => {
    const { runtime: rt, slack } = await worker.start('history-429', { routing: { defaultChannel: CHANNEL }, channelIntervalMs: 0, store: { storm: { windowMs: 30_000, threshold: 100 } } });
    const opened = lagIncident('2026-11-29T10:06:40.000Z');
    // The first post reaches Slack but its answer is lost (a reset): the retry must look the
    // message up before posting, and that lookup is refused for 15 s.
    slack.faults.inject({ kind: 'reset_after', method: 'chat.postMessage', times: 1 });
    slack.faults.inject({ kind: 'rate_limit', method: 'conversations.history', retryAfterSec: 15, times: 1 });
    const a = QID(20);
    await rt.store.streams.upsert({ queryId: a, name: 'orders_enrich' });
    await commitAndDrain(rt, a, [{ type: 'opened', queryId: a, queryName: 'orders_enrich', incident: opened }]);
    await waitFor(() => slack.calls('conversations.history').some((call) => !call.ok), 'a refused lookup', 10_000, 25);
    // Local Slack logs the refusal before the worker has read the answer and set the cooldown.
    const lookupHold = await waitFor(async () => Math.max(0, await rt.redis.pttl(rt.store.keys.slackMethodCooldown('conversations.history'))), 'the conversations.history cooldown', 5_000, 10);
    expect(lookupHold).toBeGreaterThan(10_000);

    // Another alert meanwhile needs no lookup: posted within seconds, not after the lookup's 15 s.
    const b = QID(21);
    await rt.store.streams.upsert({ queryId: b, name: 'payments' });
    const startedAt = Date.now();
    await commitAndDrain(rt, b, [{ type: 'opened', queryId: b, queryName: 'payments', incident: opened }]);
    await waitFor(async () => (await rt.store.incidents.get(incidentIdOf(b, opened)))?.slack, 'the other alert', 10_000, 25);
    expect(Date.now() - startedAt).toBeLessThan(8_000);

    // Once the cooldown is over, the first alert adopts the message its lost post left: one message each.
    const ref = await waitFor(async () => (await rt.store.incidents.get(incidentIdOf(a, opened)))?.slack, 'the interrupted alert adopted', 30_000, 100);
    expect(slack.calls('conversations.history').filter((call) => !call.ok)).toHaveLength(1);
    expect(slack.messages(CHANNEL)).toHaveLength(2);
    expect(slack.messages(CHANNEL).map((m) => m.ts)).toContain(ref.ts);
  }, 45_000);
});
