/**
 * Routes the watch file writes by channel name (`channel: "#data-alerts"`): Slack takes a name only in
 * chat.postMessage, while chat.update, history and uploads need the channel id, so the alert must
 * live under the id from its first post (Slack requires channel ids there).
 * Real Redis, the real notify worker, the local Slack (as strict as Slack about ids) over HTTP.
 */
import { describe, expect, it } from 'vitest';
import type { WorkerRuntime } from '../../src/runtime/pipeline-runtime.js';
import type { LocalSlack } from '../../src/standins/slack/index.js';
import { incidentIdOf } from '../../src/store/index.js';
import { lagIncident } from '../store/fixtures.js';
import type { IncidentChange } from '../../src/diagnosis/types.js';
import { commitAndDrain, notifyWorkerPerTest, waitFor } from '../pipeline/helpers/harness.js';

const worker = notifyWorkerPerTest();
let slack: LocalSlack | undefined;
const QID = '2b7c9d1e-3f4a-4b5c-8d6e-000000000901';

async function change(rt: WorkerRuntime, type: IncidentChange['type'], incident: IncidentChange['incident']): Promise<void> {
  await commitAndDrain(rt, QID, [{ type, queryId: QID, queryName: 'orders_enrich', incident }], { health: type === 'resolved' ? 'ok' : 'warning' });
}

describe('a route written by channel name', () => {
  it('posts under the channel id, then updates in place and replies on resolve', async () => {
    const started = await worker.start('names', { routing: { defaultChannel: '#data-alerts' }, channelIntervalMs: 0 });
    ({ slack } = started);
    const rt = started.runtime;
    await rt.store.streams.upsert({ queryId: QID, name: 'orders_enrich' });
    const opened = lagIncident('2026-11-29T10:06:40.000Z');
    const id = incidentIdOf(QID, opened);
    await change(rt, 'opened', opened);
    const ref = await waitFor(async () => (await rt.store.incidents.get(id))?.slack, 'posted');
    expect(ref.channel).toBe('C0DATAALRT');
    expect((await rt.store.incidents.get(id))?.channel).toBe('C0DATAALRT');
    const worse = lagIncident('2026-11-29T10:06:40.000Z', { severity: 'critical', summary: 'now 20 min behind' });
    await change(rt, 'updated', worse);
    await waitFor(() => slack!.messages('C0DATAALRT').find((m) => m.ts === ref.ts)?.text.includes('20 min'), 'updated in place');
    await change(rt, 'resolved', { ...worse, resolvedAt: '2026-11-29T10:40:00.000Z', resolvedAtBatchId: 300 });
    await waitFor(() => slack!.thread('C0DATAALRT', ref.ts).length === 2, 'resolve reply in the thread');
    expect(slack!.messages('C0DATAALRT')).toHaveLength(1);
    expect(await rt.queues.notify.getFailedCount()).toBe(0);
  });
});
