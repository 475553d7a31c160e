/**
 * An incident routed to a channel that is gone: once the route is fixed, an incident never shown
 * follows it (its next change is posted in the new channel, once, and the digest lists it there);
 * one whose alert already lives in the old channel stays there, and the failure says so rather
 * than "fix the route". Real worker, real Redis, the local Slack (which has no C0GONE1234).
 */
import { describe, expect, it } from 'vitest';
import { incidentIdOf } from '../../src/store/index.js';
import { lagIncident } from '../store/fixtures.js';
import { commitAndDrain, notifyWorkerPerTest, waitFor } from '../pipeline/helpers/harness.js';

const worker = notifyWorkerPerTest();
const QID = '0a1b2c3d-0000-4000-8000-00000000e006';
const GONE = 'C0GONE1234';
const FIXED = 'C0STREAMNG';
// Opened a minute ago: the channel's list for the digest keeps the last 24 h.
const incident = lagIncident(new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000).toISOString());
const ID = incidentIdOf(QID, incident);
const worse = { ...incident, severity: 'critical' as const, summary: 'orders_enrichment is 20 min behind' };

describe('an incident routed to a channel that is gone', () => {
  it('never shown: follows the fixed route with its next change', async () => {
    const { runtime: rt, slack } = await worker.start('reroute', { channelIntervalMs: 0 });
    await rt.store.routing.setRoute('query', QID, GONE);
    await rt.store.streams.upsert({ queryId: QID, name: 'orders' });
    await commitAndDrain(rt, QID, [{ type: 'opened', queryId: QID, queryName: 'orders', incident }]);
    const failed = await waitFor(async () => (await rt.queues.notify.getFailed())[0], 'the first post refused', 10_000);
    expect(failed.failedReason).toContain('fix the route');

    await rt.store.routing.setRoute('query', QID, FIXED);
    await commitAndDrain(rt, QID, [{ type: 'updated', queryId: QID, queryName: 'orders', incident: worse }]);
    await waitFor(() => slack.messages(FIXED).length === 1, 'posted in the fixed channel');
    expect((await rt.store.incidents.get(ID))!.channel).toBe(FIXED);
    expect((await rt.store.incidents.listForChannel(FIXED, 0)).map((e) => e.incidentId)).toEqual([ID]);
    expect(await rt.store.incidents.listForChannel(GONE, 0)).toEqual([]);
    expect(await rt.queues.notify.getFailedCount()).toBe(1);
  });

  it('already shown there: stays, and the failure says its alert lives in the old channel', async () => {
    const { runtime: rt, slack } = await worker.start('reroute', { channelIntervalMs: 0 });
    await rt.store.routing.setRoute('query', QID, FIXED);
    await rt.store.streams.upsert({ queryId: QID, name: 'orders' });
    await rt.store.queries.commitChanges(QID, [{ type: 'opened', queryId: QID, queryName: 'orders', incident }]);
    // Posted in GONE before that channel was deleted (and the route fixed).
    await rt.redis.hset(rt.store.keys.incident(QID, ID), 'channel', GONE, 'slackChannel', GONE, 'slackTs', '1796000000.000100', 'notifiedVersion', '1');
    await commitAndDrain(rt, QID, [{ type: 'updated', queryId: QID, queryName: 'orders', incident: worse }]);
    const failed = await waitFor(async () => (await rt.queues.notify.getFailed())[0], 'the update refused', 10_000);
    expect(failed.attemptsMade).toBe(1);
    expect(failed.failedReason).toContain(`incident ${ID} already has its alert in ${GONE}`);
    expect((await rt.store.incidents.get(ID))!.channel).toBe(GONE);
    expect(slack.messages(FIXED)).toHaveLength(0);
  });
});
