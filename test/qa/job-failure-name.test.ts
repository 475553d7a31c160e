/**
 * A `failed` incident names the job as people know it: the watch file's name, else the `run_name`
 * the Jobs API carries, with the id as secondary text. Real path: local Databricks runs/list →
 * JobRunsSource → poll → signal incidents → notify → local Slack. Pipelines: origin.pipeline_name.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { applySignals } from '../../jobs/signal-incidents.js';
import { engineTrackers } from '../../jobs/engine-trackers.js';
import { POLL_JOB } from '../../jobs/queue-names.js';
import { WebClientChat } from '../../src/slack/gateway/slack-chat.js';
import { createDatabricksClient } from '../../src/databricks/databricks-client.js';
import { startWorker, type WorkerRuntime } from '../../src/runtime/pipeline-runtime.js';
import { renderIncidentMessage } from '../../src/slack/render/incident-message.js';
import { JobRunsSource, PipelineEventsSource, type WatchedJob } from '../../src/sources/index.js';
import { RedisStore } from '../../src/store/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';
import { startLocalSlack, type LocalSlack } from '../../src/standins/slack/index.js';
import { deletePrefix, REDIS_URL, silentLogger, uniquePrefix, waitFor } from '../pipeline/helpers/harness.js';

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

const JOB_ID = 912004377120455;
const SOURCE = 'prod.jobs';
const CHANNEL = 'C0STREAMNG';

async function pollOnce(rt: WorkerRuntime, n: number): Promise<void> {
  const job = await rt.queues.poll.add(POLL_JOB.poll, { sourceId: SOURCE }, { jobId: `test-poll-${n}` });
  await waitFor(async () => (await rt.queues.poll.getJobState(job.id!)) === 'completed', `poll ${n} done`, 10_000, 50);
}

/** Runs a job, fails it, and returns the alert the bot posted. */
async function failedAlert(watched: WatchedJob, runName: string): Promise<{ text: string; blocks: string; mrkdwn: string; header: string }> {
  const p = uniquePrefix('jobname');
  prefix = p.prefix;
  databricks = await startLocalDatabricks({ jobs: [{ jobId: JOB_ID, name: runName, continuous: false }] });
  slack = await startLocalSlack({ rateLimit: false });
  const client = createDatabricksClient({ host: databricks.url, credentials: { kind: 'pat', token: 'dapi-local-0123456789abcdef' } });
  runtime = await startWorker({
    redisUrl: REDIS_URL,
    ...p,
    logger: silentLogger,
    sources: new Map([[SOURCE, { id: SOURCE, source: new JobRunsSource({ client, jobs: [watched] }) }]]),
    trackers: engineTrackers(),
    chat: new WebClientChat({ token: 'xoxb-local-streamdoctor', slackApiUrl: slack.apiUrl }),
    routing: { jobs: { [String(JOB_ID)]: CHANNEL }, defaultChannel: 'C0DATAALRT' },
  });
  const rt = runtime;
  const run = databricks.startRun(JOB_ID);
  await pollOnce(rt, 1);
  databricks.endRun(run, 'FAILED', 'Task ingest failed');
  await pollOnce(rt, 2);
  await waitFor(async () => {
    const list = await rt.store.incidents.listForQuery(`job-${JOB_ID}`);
    return list.length === 1 && list[0]!.slack ? list : null;
  }, 'failed incident posted');
  const [message] = await waitFor(async () => {
    const list = slack!.messages(CHANNEL);
    return list.length === 1 ? list : null;
  }, 'alert in the job channel');
  const blocks = message!.blocks as { type: string; text?: { text: string } }[];
  return { text: message!.text ?? '', blocks: JSON.stringify(blocks), mrkdwn: JSON.stringify(blocks.filter((b) => b.type !== 'header')), header: blocks.find((b) => b.type === 'header')!.text!.text };
}

describe('failed job incidents name the job', () => {
  it('uses the run_name from the Jobs API when the watch file names no job', async () => {
    const alert = await failedAlert({ jobId: JOB_ID }, 'orders_ingest_stream');
    expect(alert.header).toBe('🔴 Run failed · orders_ingest_stream');
    expect(alert.blocks).toContain(`\`orders_ingest_stream\` (job ${JOB_ID})`);
    expect(alert.blocks).not.toContain(`\`job ${JOB_ID}\``);
    expect(alert.text).toContain('orders_ingest_stream');
  }, 30_000);

  it('prefers the watch file name over run_name, and escapes it', async () => {
    const alert = await failedAlert({ jobId: JOB_ID, name: 'Orders <ingest> & enrich' }, 'orders_ingest_stream');
    expect(alert.blocks).toContain(`\`Orders &lt;ingest&gt; &amp; enrich\` (job ${JOB_ID})`);
    // The header is plain_text (shown literally); mrkdwn gets the escaped name.
    expect(alert.header).toBe('🔴 Run failed · Orders <ingest> & enrich');
    expect(alert.mrkdwn).not.toContain('<ingest>');
    expect(alert.blocks).not.toContain('orders_ingest_stream');
  }, 30_000);
});

describe('subject line without a name', () => {
  it('a job known only by id shows the id once; a query shows its name', () => {
    const base = {
      id: 'inc-1',
      kind: 'failed',
      state: 'open' as const,
      openedAt: 1_764_400_000_000,
      incident: { kind: 'failed', severity: 'critical', openedAtBatchId: null, openedAt: '2025-11-29T07:06:40.000Z', resolvedAtBatchId: null, resolvedAt: null, summary: 'Run 7 of job 42 ended FAILED: x', causes: [], advice: [], metrics: {} },
    } as const;
    const job = JSON.stringify(renderIncidentMessage({ ...base, queryId: 'job-42', queryName: 'job 42' } as never, { nowMs: 1_764_400_060_000 }).blocks);
    expect(job).toContain('job `42`');
    expect(job).not.toContain('(job 42)');
    const query = JSON.stringify(renderIncidentMessage({ ...base, queryId: '9f1c2a4e-0d3b-4c7e-8a55-2b6f0e1d7c90', queryName: 'orders_enrich' } as never, { nowMs: 1_764_400_060_000 }).blocks);
    expect(query).toContain('query `orders_enrich`');
  });
});

describe('failed pipeline incidents name the pipeline', () => {
  it('takes origin.pipeline_name from the event log through to the alert', async () => {
    const PIPELINE = 'abcdef12-abcd-3456-7890-abcd1234ef56';
    const START = Date.parse('2026-11-29T08:00:00.000Z');
    databricks = await startLocalDatabricks({ startMs: START, speed: 0, pipelines: [{ pipelineId: PIPELINE, name: 'orders-dlt' }] });
    databricks.appendPipelineEvent(
      PIPELINE,
      {
        event_type: 'update_progress',
        level: 'ERROR',
        message: 'Update 7e1c is FAILED.',
        origin: { pipeline_id: PIPELINE, pipeline_name: 'orders <dlt>', update_id: '7e1c-update' },
        error: { fatal: true, exceptions: [{ class_name: 'org.apache.spark.SparkException', message: 'Job aborted due to stage failure' }] },
        details: { update_progress: { state: 'FAILED' } },
      },
      START + 5_000,
    );
    databricks.clock.advance(10_000);
    const client = createDatabricksClient({ host: databricks.url, credentials: { kind: 'pat', token: 'dapi-local-0123456789abcdef' } });
    const { signals } = await new PipelineEventsSource({ client, pipelineIds: [PIPELINE], now: () => databricks!.clock.now() }).poll(null);
    expect(signals).toEqual([expect.objectContaining({ type: 'pipeline_failed', pipelineName: 'orders <dlt>' })]);

    const redis = new Redis('redis://127.0.0.1:6379');
    const store = new RedisStore({ redis, prefix: `sdtest-qa-pipename-${randomUUID().slice(0, 8)}` });
    try {
      expect(await applySignals(store, signals, 'prod.pipeline', START + 10_000)).toEqual([`pipeline-${PIPELINE}`]);
      const stream = (await store.streams.list()).find((s) => s.queryId === `pipeline-${PIPELINE}`)!;
      expect(stream.name).toBe('orders <dlt>');
      const [record] = await store.incidents.listForQuery(`pipeline-${PIPELINE}`);
      const blocks = JSON.stringify(renderIncidentMessage({ ...record!, queryName: stream.name } as never, { nowMs: START + 20_000 }).blocks);
      expect(blocks).toContain(`\`orders &lt;dlt&gt;\` (pipeline ${PIPELINE})`);
    } finally {
      await store.deleteEverything();
      redis.disconnect();
    }
  });
});
