/**
 * One writer of alert messages: an ack or a silence from Slack never edits the
 * alert itself; it asks the notify worker for a refresh, which holds the message lock and renders
 * with the one renderer, so the first post and every later view show the same thing (the "Open in
 * Databricks" button included). Real Redis, the local Slack over HTTP, the real notify worker.
 */
import { describe, expect, it } from 'vitest';
import { webApi } from '@slack/bolt';
import { queueAlertRefresher } from '../../jobs/notify-processor.js';
import type { WorkerRuntime } from '../../src/runtime/pipeline-runtime.js';
import type { SlackDeps } from '../../src/slack/deps.js';
import { acknowledgeIncident, silenceStream } from '../../src/slack/operations/incident-actions.js';
import { PermissionChecker } from '../../src/slack/permissions.js';
import type { LocalSlack } from '../../src/standins/slack/index.js';
import { incidentIdOf } from '../../src/store/index.js';
import { lagIncident } from '../store/fixtures.js';
import { commitAndDrain, silentLogger, notifyWorkerPerTest, waitFor } from '../pipeline/helpers/harness.js';

const worker = notifyWorkerPerTest();
let slack: LocalSlack | undefined;
const CHANNEL = 'C0DATAALRT';
const QID = '3c9e1a2b-4d5f-4e6a-9b8c-000000000701';
const JOB_URL = 'https://adb-1234567890123456.7.azuredatabricks.net/jobs/4471';

async function setup(): Promise<{ rt: WorkerRuntime; deps: SlackDeps; client: webApi.WebClient; id: string; ts: string }> {
  const started = await worker.start('onewriter', { routing: { defaultChannel: CHANNEL }, channelIntervalMs: 0 });
  ({ slack } = started);
  const rt = started.runtime;
  // A job's stream: Databricks gave no run page, so the button links the job page.
  await rt.store.streams.upsert({ queryId: QID, name: 'sensor_ingest', jobId: '4471', workspace: 'adb-1234567890123456.7.azuredatabricks.net' });
  const incident = lagIncident('2026-11-29T10:06:40.000Z');
  await commitAndDrain(rt, QID, [{ type: 'opened', queryId: QID, queryName: 'sensor_ingest', incident }]);
  const id = incidentIdOf(QID, incident);
  const ref = await waitFor(async () => (await rt.store.incidents.get(id))?.slack, 'first post');
  await waitFor(async () => (await rt.queues.depths()).notify!.active === 0, 'idle');
  const deps: SlackDeps = { store: rt.store, logger: silentLogger, permissions: new PermissionChecker(), alerts: queueAlertRefresher(rt.queues) };
  return { rt, deps, client: new webApi.WebClient('xoxb-local-streamdoctor', { slackApiUrl: slack.apiUrl }), id, ts: ref.ts };
}

const alertOf = (ts: string) => slack!.messages(CHANNEL).find((m) => m.ts === ts)!;

describe('one write path for alert messages', () => {
  it('the first post already has the Open in Databricks button, and it is the same after an ack', async () => {
    const { deps, client, id, ts } = await setup();
    const first = JSON.stringify(alertOf(ts).blocks);
    expect(first).toContain(JOB_URL);
    await acknowledgeIncident(client, deps, id, 'U0MARIA001');
    const acked = await waitFor(() => (JSON.stringify(alertOf(ts).blocks).includes('Acknowledged by') ? JSON.stringify(alertOf(ts).blocks) : null), 'acknowledged view');
    expect(acked).toContain(JOB_URL);
  });

  it('an ack and a silence only ask notify: the alert changes when the worker runs, with one thread note each', async () => {
    const { rt, deps, client, id, ts } = await setup();
    const notify = rt.workers.workers.find((w) => w.name === 'notify')!;
    await notify.pause();
    await acknowledgeIncident(client, deps, id, 'U0MARIA001');
    await silenceStream(client, deps, QID, 2 * 3_600_000, 'U0MARIA001');
    // Nothing in Slack was touched by the app itself.
    expect(alertOf(ts).edited).toBeUndefined();
    expect(slack!.thread(CHANNEL, ts)).toHaveLength(1);
    expect((await rt.queues.notify.getWaiting()).map((job) => job.data.kind)).toEqual(['refresh', 'refresh']);
    notify.resume();
    await waitFor(() => {
      const body = JSON.stringify(alertOf(ts).blocks);
      return body.includes('Acknowledged by') && body.includes('🔕');
    }, 'refreshed by the worker');
    await waitFor(() => slack!.thread(CHANNEL, ts).length === 3, 'two notes');
    const notes = slack!.thread(CHANNEL, ts).slice(1).map((m) => m.text);
    expect(notes).toEqual(['Acknowledged', 'Silenced for 2h']);
    // A replayed refresh (same job data, new id) updates; it never posts a note twice.
    const again = (await rt.queues.notify.getCompleted()).find((job) => job.data.kind === 'refresh' && 'note' in job.data && job.data.note?.kind === 'ack')!;
    await rt.queues.notify.add('refresh', again.data);
    await waitFor(async () => (await rt.queues.depths()).notify!.waiting + (await rt.queues.depths()).notify!.active === 0, 'idle');
    expect(slack!.thread(CHANNEL, ts)).toHaveLength(3);
    expect(slack!.messages(CHANNEL)).toHaveLength(1);
  });
});
