/**
 * A severity change of an open incident is told once in the alert's thread ("🔺 Escalated to
 * critical" / "🔻 Down to warning"), besides the alert edited in place; a storm group's thread names
 * the stream. Real Redis, the local Slack over HTTP, the real notify worker.
 */
import { describe, expect, it } from 'vitest';
import type { IncidentChange } from '../../src/diagnosis/types.js';
import type { WorkerRuntime } from '../../src/runtime/pipeline-runtime.js';
import type { LocalSlack } from '../../src/standins/slack/index.js';
import { incidentIdOf } from '../../src/store/index.js';
import { lagIncident } from '../store/fixtures.js';
import { commitAndDrain, notifyWorkerPerTest, waitFor } from '../pipeline/helpers/harness.js';

const worker = notifyWorkerPerTest();
let slack: LocalSlack | undefined;
const CHANNEL = 'C0DATAALRT';
const QID = (i: number) => `3c9e1a2b-4d5f-4a6b-8c7d-${String(i).padStart(12, '0')}`;
const OPENED = '2026-11-29T10:06:40.000Z';

async function change(rt: WorkerRuntime, queryId: string, type: IncidentChange['type'], incident = lagIncident(OPENED)): Promise<string> {
  await rt.store.streams.upsert({ queryId, name: `orders_${queryId.slice(-2)}` });
  await commitAndDrain(rt, queryId, [{ type, queryId, queryName: `orders_${queryId.slice(-2)}`, incident }]);
  return incidentIdOf(queryId, incident);
}

async function idle(rt: WorkerRuntime): Promise<boolean> {
  const d = await rt.queues.depths();
  return d.notify!.waiting + d.notify!.active + d.notify!.delayed === 0;
}

function keyOf(m: { metadata?: unknown }): string | undefined {
  return (m.metadata as { event_payload?: { key?: string } } | undefined)?.event_payload?.key;
}

describe('notify: severity changes in the thread', () => {
  it('tells each escalation and de-escalation once, escaped, and a replayed job repeats nothing', async () => {
    const started = await worker.start('severity', { routing: { defaultChannel: CHANNEL }, channelIntervalMs: 0 });
    const rt = started.runtime;
    slack = started.slack;
    const id = await change(rt, QID(1), 'opened');
    const posted = await waitFor(async () => (await rt.store.incidents.get(id))?.slack, 'posted');
    const replies = () => slack!.thread(CHANNEL, posted.ts).filter((m) => m.ts !== posted.ts);

    // A cause change at the same severity says nothing in the thread.
    await change(rt, QID(1), 'updated', lagIncident(OPENED, { summary: 'same level, new cause' }));
    await waitFor(() => idle(rt), 'idle');
    expect(replies()).toHaveLength(0);

    await change(rt, QID(1), 'updated', lagIncident(OPENED, { severity: 'critical', summary: 'now 20 min behind <!channel> & more' }));
    await waitFor(async () => (await idle(rt)) && replies().length === 1, 'escalation line');
    const up = replies()[0]!;
    expect(up.text).toContain('Escalated to critical');
    const upBlocks = JSON.stringify(up.blocks);
    expect(upBlocks).toContain('🔺 *Escalated to critical*');
    expect(upBlocks).toContain('&lt;!channel&gt; &amp; more');
    expect(upBlocks).not.toContain('<!channel>');

    // A replayed refresh (same version) and a retried job post nothing more.
    await rt.queues.notify.add('refresh', { kind: 'refresh', incidentId: id, committedAt: Date.now() });
    await waitFor(() => idle(rt), 'idle');
    expect(replies()).toHaveLength(1);

    await change(rt, QID(1), 'updated', lagIncident(OPENED, { severity: 'warning', summary: 'back to 6 min behind' }));
    await waitFor(async () => (await idle(rt)) && replies().length === 2, 'de-escalation line');
    expect(replies()[1]!.text).toContain('Down to warning');
    expect(JSON.stringify(replies()[1]!.blocks)).toContain('🔻 *Down to warning*: back to 6 min behind');
    expect(await rt.queues.notify.getFailedCount()).toBe(0);
  });

  it('in a storm group, the line goes to the group thread and names the stream', async () => {
    const started = await worker.start('severity-group', {
      routing: { defaultChannel: CHANNEL },
      channelIntervalMs: 0,
      groupDebounceMs: 300,
      store: { storm: { windowMs: 30_000, threshold: 2 } },
    });
    const rt = started.runtime;
    slack = started.slack;
    const ids: string[] = [];
    for (let i = 10; i < 14; i++) ids.push(await change(rt, QID(i), 'opened'));
    await waitFor(async () => (await idle(rt)) && slack!.messages(CHANNEL).some((m) => String(keyOf(m)).startsWith('group.')), 'storm handled', 10_000);
    const group = slack!.messages(CHANNEL).find((m) => String(keyOf(m)).startsWith('group.'))!;
    const member = (await rt.store.incidents.getMany(ids)).find((r) => r.groupId && JSON.stringify(group.blocks).includes(`incident:${r.id}`))!;
    await change(rt, member.queryId, 'updated', lagIncident(OPENED, { severity: 'critical', summary: 'now 20 min behind' }));
    const lines = () => slack!.thread(CHANNEL, group.ts).filter((m) => m.ts !== group.ts && m.text.includes('critical'));
    await waitFor(async () => (await idle(rt)) && lines().length === 1, 'escalation in the group thread', 10_000);
    expect(JSON.stringify(lines()[0]!.blocks)).toContain(`\`${(await rt.store.streams.get(member.queryId))!.name}\` escalated to critical`);
    expect(await rt.queues.notify.getFailedCount()).toBe(0);
  });
});
