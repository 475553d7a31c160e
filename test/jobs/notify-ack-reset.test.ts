/**
 * A problem that came back or got worse must not look handled: a relapse (the engine re-opens a
 * resolved incident in its cool-down) and an escalation (warning → critical) clear the
 * acknowledgement in the same commit that records them, so the alert offers Acknowledge again, its
 * header shows the severity, and App Home no longer shows who acknowledged it. Real Redis (fresh
 * prefix), the local Slack over HTTP, the real notify worker.
 */
import { describe, expect, it } from 'vitest';
import { webApi } from '@slack/bolt';
import { queueAlertRefresher } from '../../jobs/notify-processor.js';
import type { IncidentChange, Incident } from '../../src/diagnosis/types.js';
import type { WorkerRuntime } from '../../src/runtime/pipeline-runtime.js';
import type { SlackDeps } from '../../src/slack/deps.js';
import { acknowledgeIncident } from '../../src/slack/operations/incident-actions.js';
import { PermissionChecker } from '../../src/slack/permissions.js';
import { renderAppHome } from '../../src/slack/render/app-home.js';
import type { LocalSlack } from '../../src/standins/slack/index.js';
import { incidentIdOf } from '../../src/store/index.js';
import { lagIncident } from '../store/fixtures.js';
import { commitAndDrain, notifyWorkerPerTest, silentLogger, waitFor } from '../pipeline/helpers/harness.js';

const worker = notifyWorkerPerTest();
let slack: LocalSlack | undefined;
const CHANNEL = 'C0DATAALRT';
const MARIA = 'U0MARIA001';
const QID = (i: number) => `3c9e1a2b-4d5f-4a6b-8c7d-${String(i).padStart(12, '0')}`;
const OPENED = '2026-11-29T10:06:40.000Z';

async function setup(tag: string): Promise<{ rt: WorkerRuntime; deps: SlackDeps; client: webApi.WebClient }> {
  const started = await worker.start(tag, { routing: { defaultChannel: CHANNEL }, channelIntervalMs: 0 });
  slack = started.slack;
  const rt = started.runtime;
  const deps: SlackDeps = { store: rt.store, logger: silentLogger, permissions: new PermissionChecker(), alerts: queueAlertRefresher(rt.queues) };
  return { rt, deps, client: new webApi.WebClient('xoxb-local-streamdoctor', { slackApiUrl: slack.apiUrl }) };
}

async function change(rt: WorkerRuntime, queryId: string, type: IncidentChange['type'], incident: Incident): Promise<string> {
  await rt.store.streams.upsert({ queryId, name: 'orders_enrichment' });
  await commitAndDrain(rt, queryId, [{ type, queryId, queryName: 'orders_enrichment', incident }]);
  return incidentIdOf(queryId, incident);
}

async function idle(rt: WorkerRuntime): Promise<boolean> {
  const d = await rt.queues.depths();
  return d.notify!.waiting + d.notify!.active + d.notify!.delayed === 0;
}

const alertBlocks = (ts: string): string => JSON.stringify(slack!.messages(CHANNEL).find((m) => m.ts === ts)!.blocks);

/** Opens an incident, waits for its alert, and has Maria acknowledge it (shown in the alert). */
async function openAndAcknowledge(tag: string, qid: string, incident: Incident) {
  const { rt, deps, client } = await setup(tag);
  const id = await change(rt, qid, 'opened', incident);
  const posted = await waitFor(async () => (await rt.store.incidents.get(id))?.slack, 'posted');
  await acknowledgeIncident(client, deps, id, MARIA);
  await waitFor(() => alertBlocks(posted.ts).includes('Acknowledged by'), 'acknowledged view');
  await waitFor(() => idle(rt), 'idle');
  expect(alertBlocks(posted.ts)).toContain('incident_unacknowledge');
  return { rt, id, ts: posted.ts };
}

async function expectUnacknowledged(rt: WorkerRuntime, id: string, ts: string, emoji: string): Promise<void> {
  const record = (await rt.store.incidents.get(id))!;
  expect(record).toMatchObject({ state: 'open', acknowledgedBy: null, acknowledgedAt: null });
  const blocks = alertBlocks(ts);
  expect(blocks).not.toContain('Acknowledged by');
  expect(blocks).toContain('"action_id":"incident_acknowledge"');
  expect(blocks).not.toContain('incident_unacknowledge');
  const header = slack!.messages(CHANNEL).find((m) => m.ts === ts)!.blocks!.find((b) => (b as { type: string }).type === 'header');
  expect(JSON.stringify(header)).toContain(emoji);
  const home = renderAppHome({ userId: MARIA, nowMs: Date.now(), openIncidents: await rt.store.incidents.listOpen(), silences: [], watches: [] });
  expect(JSON.stringify(home.blocks)).not.toContain('👀');
}

describe('notify: a relapse or an escalation clears the acknowledgement', () => {
  it('a relapse re-opens the alert unacknowledged, with the Acknowledge button again', async () => {
    const opened = lagIncident(OPENED);
    const { rt, id, ts } = await openAndAcknowledge('ack-relapse', QID(1), opened);
    await change(rt, QID(1), 'resolved', { ...opened, resolvedAt: '2026-11-29T10:40:00.000Z', resolvedAtBatchId: 300 });
    await waitFor(async () => (await idle(rt)) && slack!.thread(CHANNEL, ts).some((m) => /Resolved/.test(m.text ?? '')), 'resolve reply');
    // The engine re-opens it in its cool-down: same incident, open again.
    await change(rt, QID(1), 'updated', { ...opened, relapses: 1, relapsedAt: '2026-11-29T10:52:00.000Z', summary: 'Falling behind again: 4m of data waiting' });
    await waitFor(() => slack!.thread(CHANNEL, ts).some((m) => /Back/.test(m.text ?? '')), 'relapse line');
    await waitFor(() => idle(rt), 'idle');
    await expectUnacknowledged(rt, id, ts, '🟠');
    // Open again: no resolution time is left on it.
    expect(await rt.store.incidents.get(id)).toMatchObject({ state: 'open', resolvedAt: null });
  });

  it('an escalation to critical clears the ack and the header turns red; a de-escalation keeps a new ack', async () => {
    const opened = lagIncident(OPENED);
    const { rt, id, ts } = await openAndAcknowledge('ack-escalation', QID(2), opened);
    // Same severity, new figures: the ack stays.
    await change(rt, QID(2), 'updated', lagIncident(OPENED, { summary: 'same level, new figures' }));
    await waitFor(() => idle(rt), 'idle');
    expect((await rt.store.incidents.get(id))!.acknowledgedBy).toBe(MARIA);

    await change(rt, QID(2), 'updated', lagIncident(OPENED, { severity: 'critical', summary: 'now 20 min behind' }));
    await waitFor(() => slack!.thread(CHANNEL, ts).some((m) => /Escalated to critical/.test(m.text ?? '')), 'escalation line');
    await waitFor(() => idle(rt), 'idle');
    await expectUnacknowledged(rt, id, ts, '🔴');

    // Acknowledged again while critical; going down to warning is no reason to clear it.
    await rt.store.incidents.acknowledgeFirst(id, MARIA);
    await change(rt, QID(2), 'updated', lagIncident(OPENED, { severity: 'warning', summary: 'back to 6 min behind' }));
    await waitFor(() => idle(rt), 'idle');
    expect((await rt.store.incidents.get(id))!.acknowledgedBy).toBe(MARIA);
  });

  it('changes recorded outside detect (job runs) clear it the same way', async () => {
    const { rt } = await setup('ack-signal');
    const qid = QID(3);
    const failed = lagIncident(OPENED, { kind: 'failed', summary: 'Run failed' });
    const id = incidentIdOf(qid, failed);
    await rt.store.queries.commitChanges(qid, [{ type: 'opened', queryId: qid, queryName: null, incident: failed }]);
    await rt.store.incidents.acknowledgeFirst(id, MARIA);
    await rt.store.queries.commitChanges(qid, [{ type: 'resolved', queryId: qid, queryName: null, incident: { ...failed, resolvedAt: '2026-11-29T10:40:00.000Z' } }]);
    expect((await rt.store.incidents.get(id))!.acknowledgedBy).toBe(MARIA);
    await rt.store.queries.commitChanges(qid, [{ type: 'opened', queryId: qid, queryName: null, incident: failed }]);
    expect(await rt.store.incidents.get(id)).toMatchObject({ state: 'open', acknowledgedBy: null, acknowledgedAt: null });

    await rt.store.incidents.acknowledgeFirst(id, MARIA);
    await rt.store.queries.commitChanges(qid, [{ type: 'updated', queryId: qid, queryName: null, incident: { ...failed, severity: 'critical' } }]);
    expect(await rt.store.incidents.get(id)).toMatchObject({ state: 'open', acknowledgedBy: null, acknowledgedAt: null });
  });
});
