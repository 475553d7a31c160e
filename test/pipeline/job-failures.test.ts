/**
 * Job runs end to end: the job-runs source reads the local Databricks Jobs API
 * (`GET /api/2.2/jobs/runs/list`), the poll turns a run that ended FAILED into one `failed` incident,
 * notify posts it in the job's routed channel with the state message and the run page behind
 * "Open in Databricks", and a new active run resolves it (same message, one thread reply).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { engineTrackers } from '../../jobs/engine-trackers.js';
import { POLL_JOB } from '../../jobs/queue-names.js';
import { WebClientChat } from '../../src/slack/gateway/slack-chat.js';
import { createDatabricksClient } from '../../src/databricks/databricks-client.js';
import { startWorker, type WorkerRuntime } from '../../src/runtime/pipeline-runtime.js';
import { JobRunsSource } from '../../src/sources/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';
import { startLocalSlack, type LocalSlack } from '../../src/standins/slack/index.js';
import { deletePrefix, REDIS_URL, silentLogger, uniquePrefix, waitFor } from './helpers/harness.js';

let runtime: WorkerRuntime | undefined;
let slack: LocalSlack | undefined;
let databricks: LocalDatabricks | undefined;
let prefix: string | undefined;

afterEach(async () => {
  await runtime?.close();
  await slack?.close();
  await databricks?.close();
  if (prefix) await deletePrefix(REDIS_URL, prefix);
  runtime = slack = databricks = prefix = undefined;
});

const JOB_ID = 881;
const SOURCE = 'prod.jobs';
const CHANNEL = 'C0STREAMNG'; // #streaming, where the job's owners are

function keyOf(m: { metadata?: unknown }): string | undefined {
  return (m.metadata as { event_payload?: { key?: string } } | undefined)?.event_payload?.key;
}

async function pollOnce(rt: WorkerRuntime, n: number): Promise<void> {
  const job = await rt.queues.poll.add(POLL_JOB.poll, { sourceId: SOURCE }, { jobId: `test-poll-${n}` });
  await waitFor(async () => (await rt.queues.poll.getJobState(job.id!)) === 'completed', `poll ${n} done`, 10_000, 50);
}

async function notifyIdle(rt: WorkerRuntime): Promise<boolean> {
  const d = await rt.queues.depths();
  return d.notify!.waiting + d.notify!.active + d.notify!.delayed === 0;
}

describe('job runs to failed incidents, end to end', () => {
  it('a failed run is one incident in the job channel with the run page; a new run resolves it', async () => {
    const p = uniquePrefix('jobfail');
    prefix = p.prefix;
    databricks = await startLocalDatabricks({ jobs: [{ jobId: JOB_ID, name: 'orders_ingest', continuous: false }] });
    slack = await startLocalSlack({ rateLimit: false });
    const client = createDatabricksClient({ host: databricks.url, credentials: { kind: 'pat', token: 'dapi-local-0123456789abcdef' } });
    const source = new JobRunsSource({ client, jobs: [{ jobId: JOB_ID }] });
    runtime = await startWorker({
      redisUrl: REDIS_URL,
      ...p,
      logger: silentLogger,
      sources: new Map([[SOURCE, { id: SOURCE, source }]]),
      trackers: engineTrackers(),
      chat: new WebClientChat({ token: 'xoxb-local-streamdoctor', slackApiUrl: slack.apiUrl }),
      routing: { jobs: { [String(JOB_ID)]: CHANNEL }, defaultChannel: 'C0DATAALRT' },
    });
    const rt = runtime;

    // A healthy run: nothing to say.
    const first = databricks.startRun(JOB_ID);
    await pollOnce(rt, 1);
    expect(await rt.store.incidents.listForQuery(`job-${JOB_ID}`)).toEqual([]);

    // It fails; two polls see the failure, one incident and one message come of it.
    databricks.endRun(first, 'FAILED', 'Task ingest_orders failed with message: <b>OutOfMemoryError</b> & retries exhausted');
    await pollOnce(rt, 2);
    await pollOnce(rt, 3);
    const [record] = await waitFor(async () => {
      const list = await rt.store.incidents.listForQuery(`job-${JOB_ID}`);
      return list.length === 1 && list[0]!.slack ? list : null;
    }, 'failed incident posted');
    expect(record).toMatchObject({ kind: 'failed', state: 'open', channel: CHANNEL });
    await waitFor(() => notifyIdle(rt), 'notify idle');
    const messages = slack.messages(CHANNEL);
    expect(messages).toHaveLength(1);
    expect(slack.messages('C0DATAALRT')).toHaveLength(0);
    const message = messages[0]!;
    expect(keyOf(message)).toBe(record!.id);
    const blocks = JSON.stringify(message.blocks);
    expect(blocks).toContain(`Run ${first} of job ${JOB_ID} ended FAILED`);
    // Databricks text is escaped before it enters mrkdwn.
    expect(blocks).toContain('&lt;b&gt;OutOfMemoryError&lt;/b&gt; &amp; retries exhausted');
    expect(blocks).not.toContain('<b>');
    const runPage = `${databricks.url}/?o=1234567890123456#job/${JOB_ID}/run/${first}`;
    const buttons = (message.blocks as { type: string; elements?: { type: string; url?: string; text?: { text: string } }[] }[])
      .flatMap((b) => b.elements ?? [])
      .filter((e) => e.type === 'button' && e.text?.text === 'Open in Databricks');
    expect(buttons.map((b) => b.url)).toEqual([runPage]);

    // The job runs again: resolved in place, one thread reply, nothing new at the top level.
    databricks.startRun(JOB_ID);
    await pollOnce(rt, 4);
    await waitFor(async () => (await rt.store.incidents.get(record!.id))?.state === 'resolved', 'resolved');
    await waitFor(async () => slack!.thread(CHANNEL, message.ts).length === 2, 'resolve reply');
    await waitFor(() => notifyIdle(rt), 'notify idle');
    expect(slack.messages(CHANNEL)).toHaveLength(1);
    expect(JSON.stringify(slack.messages(CHANNEL)[0]!.blocks)).toContain('Resolved');
    await pollOnce(rt, 5);
    await waitFor(() => notifyIdle(rt), 'notify idle');
    expect(slack.messages(CHANNEL)).toHaveLength(1);
    expect(slack.thread(CHANNEL, message.ts)).toHaveLength(2);
    expect(await rt.queues.notify.getFailedCount()).toBe(0);
  }, 40_000);
});
