/**
 * A resolve reply interrupted by a worker's death is still posted once (found by the fault suite:
 * `npm run test:faults`, worker kills). The resolving job set the reply's claim and died before
 * chat.postMessage; a later job of the same version (a delayed 'updated' job rendering the latest,
 * resolved record) took the claim for a posted reply, skipped it and marked the version notified, so
 * the resolving job, retried after its stall, was stale: no reply, and a claim stuck for 30 days.
 */
import { describe, expect, it } from 'vitest';
import type { NotifyJobData } from '../../jobs/queue-names.js';
import type { WorkerRuntime } from '../../src/runtime/pipeline-runtime.js';
import type { LocalSlack } from '../../src/standins/slack/index.js';
import { incidentIdOf } from '../../src/store/index.js';
import { lagIncident } from '../store/fixtures.js';
import { messageKeyOf } from '../helpers/alert-ledger.js';
import { commitAndDrain, notifyWorkerPerTest, waitFor } from '../pipeline/helpers/harness.js';

const worker = notifyWorkerPerTest();
let runtime: WorkerRuntime | undefined;
let slack: LocalSlack | undefined;

const CHANNEL = 'C0DATAALRT';
const QID = '5e1f0a2b-0000-4000-8000-00000000a001';

describe('an interrupted resolve reply', () => {
  it('is posted once even when a later job of the same version runs before the interrupted one', async () => {
    ({ runtime, slack } = await worker.start('reply', { routing: { defaultChannel: CHANNEL }, channelIntervalMs: 0 }));
    const rt = runtime;
    const incident = lagIncident('2026-11-29T10:06:40.000Z');
    const id = incidentIdOf(QID, incident);
    await rt.store.streams.upsert({ queryId: QID, name: 'payments_ledger' });
    await commitAndDrain(rt, QID, [{ type: 'opened', queryId: QID, queryName: 'payments_ledger', incident }]);
    const ts = (await waitFor(async () => (await rt.store.incidents.get(id))?.slack, 'alert posted')).ts;
    const notifyWorker = rt.workers.workers.find((w) => w.name.endsWith('notify'))!;
    await waitFor(async () => (await rt.store.incidents.get(id))?.notifiedVersion === 1, 'version 1 notified');

    // The resolving job is taken by a worker that dies after claiming the reply, before posting it.
    await notifyWorker.pause();
    await commitAndDrain(rt, QID, [{ type: 'resolved', queryId: QID, queryName: null, incident: { ...incident, resolvedAt: '2026-11-29T10:30:00.000Z', resolvedAtBatchId: 80 } }], { health: 'ok' });
    const [resolving] = await rt.queues.notify.getJobs(['waiting', 'prioritized', 'delayed'], 0, 10);
    expect(resolving?.data).toMatchObject({ kind: 'incident', change: 'resolved' });
    const resolvingData = resolving!.data as NotifyJobData;
    await resolving!.remove();
    await rt.redis.set(rt.store.keys.messageClaim(CHANNEL, `${id}.resolved`), `${Date.now()}|${ts}`, 'PX', 60_000);

    // A delayed 'updated' job of the same version runs first (it renders the latest record: resolved).
    const late = await rt.queues.notify.add('notify', { ...(resolvingData as Extract<NotifyJobData, { kind: 'incident' }>), change: 'updated' }, { jobId: 'late-update' });
    notifyWorker.resume();
    await waitFor(async () => (await late.getState()) === 'completed', 'late update done');
    // Then the interrupted resolving job comes back from its stall.
    const back = await rt.queues.notify.add('notify', resolvingData, { jobId: 'resolving-retry' });
    await waitFor(async () => (await back.getState()) === 'completed', 'resolving job done');

    const replies = slack.thread(CHANNEL, ts).filter((m) => messageKeyOf(m) === `${id}.resolved`);
    expect(replies).toHaveLength(1);
    expect(await rt.redis.exists(rt.store.keys.messageClaim(CHANNEL, `${id}.resolved`))).toBe(0);
    expect(slack.messages(CHANNEL)).toHaveLength(1);
  });
});
