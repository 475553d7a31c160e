/**
 * A query that stops reporting while its job runs is `stalled`; a query that stops because its job
 * failed gets no `stalled` on top of the job's `failed` incident (one alert for one cause), and one
 * whose job ended normally (a scheduled run that finished) is not stalled either. Real
 * Redis, the local Databricks Jobs API behind the job-runs source, simulated progress, local Slack.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { engineTrackers } from '../../jobs/engine-trackers.js';
import type { SourceEntry } from '../../src/sources/source.js';
import { POLL_JOB } from '../../jobs/queue-names.js';
import { WebClientChat } from '../../src/slack/gateway/slack-chat.js';
import { createDatabricksClient } from '../../src/databricks/databricks-client.js';
import { startWorker, type WorkerRuntime } from '../../src/runtime/pipeline-runtime.js';
import { JobRunsSource } from '../../src/sources/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';
import { startLocalSlack, type LocalSlack } from '../../src/standins/slack/index.js';
import { deletePrefix, REDIS_URL, silentLogger, uniquePrefix, waitFor } from './helpers/harness.js';
import { queryIdOf, SimulatedSource } from './helpers/sim-source.js';

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

async function run(rt: WorkerRuntime, name: string, data: { sourceId?: string }, id: string): Promise<void> {
  const job = await rt.queues.poll.add(name, data, { jobId: id });
  await waitFor(async () => (await rt.queues.poll.getJobState(job.id!)) === 'completed', `${id} done`, 10_000, 50);
}

async function quiet(rt: WorkerRuntime): Promise<boolean> {
  const d = await rt.queues.depths();
  return [d.detect!, d.notify!].every((q) => q.waiting + q.active + q.delayed === 0);
}

describe('silent queries and their jobs', () => {
  it('stalled while the job runs; no stalled when the job failed', async () => {
    const p = uniquePrefix('stalljob');
    prefix = p.prefix;
    databricks = await startLocalDatabricks({
      jobs: [
        { jobId: 881, name: 'orders_ingest', continuous: false },
        { jobId: 882, name: 'payments_ingest', continuous: false },
        { jobId: 883, name: 'refunds_hourly', continuous: false },
      ],
    });
    slack = await startLocalSlack({ rateLimit: false });
    // Three Kafka queries with data arriving: 24 batches each, the last one about 6 minutes ago, then
    // nothing (the stall threshold is 5 minutes for a 10 s trigger).
    const sim = new SimulatedSource({ queries: 3, laggingQueries: 0, startMs: Date.now() - 10 * 60_000, batches: 24 });
    const running = queryIdOf(0);
    const orphaned = queryIdOf(1);
    const finished = queryIdOf(2);
    const jobOf: Record<string, string> = { [running]: '881', [orphaned]: '882', [finished]: '883' };
    const client = createDatabricksClient({ host: databricks.url, credentials: { kind: 'pat', token: 'dapi-local-0123456789abcdef' } });
    runtime = await startWorker({
      redisUrl: REDIS_URL,
      ...p,
      logger: silentLogger,
      sources: new Map<string, SourceEntry>([
        ['sim', { id: 'sim', source: sim, describe: (progress) => ({ jobId: jobOf[progress.id] }) }],
        ['prod.jobs', { id: 'prod.jobs', source: new JobRunsSource({ client, jobs: [{ jobId: 881 }, { jobId: 882 }, { jobId: 883 }] }) }],
      ]),
      trackers: engineTrackers(),
      chat: new WebClientChat({ token: 'xoxb-local-streamdoctor', slackApiUrl: slack.apiUrl }),
      routing: { defaultChannel: 'C0DATAALRT' },
    });
    const rt = runtime;

    // The run that printed the progress (a run that started after the last report would be a
    // restart still planning its first batch: silent from its start, not stalled yet).
    databricks.startRun(881, Date.now() - 11 * 60_000);
    const failedRun = databricks.startRun(882);
    databricks.endRun(failedRun, 'FAILED', 'Driver terminated abnormally: process exited with code 137');
    databricks.endRun(databricks.startRun(883), 'SUCCESS', '');
    await run(rt, POLL_JOB.poll, { sourceId: 'prod.jobs' }, 'poll-jobs-1');
    await run(rt, POLL_JOB.poll, { sourceId: 'sim' }, 'poll-sim-1');
    await waitFor(() => quiet(rt), 'pipeline quiet');
    await run(rt, POLL_JOB.sweep, {}, 'sweep-1');
    await waitFor(() => quiet(rt), 'pipeline quiet after sweep');

    const stalled = (await rt.store.incidents.listForQuery(running)).filter((r) => r.kind === 'stalled');
    expect(stalled).toHaveLength(1);
    expect(stalled[0]).toMatchObject({ state: 'open', channel: 'C0DATAALRT' });
    expect(stalled[0]!.slack).not.toBeNull();
    expect(stalled[0]!.incident.summary).toMatch(/^No progress for/);

    expect((await rt.store.incidents.listForQuery(orphaned)).filter((r) => r.kind === 'stalled')).toEqual([]);
    expect((await rt.store.incidents.listForQuery(finished)).filter((r) => r.kind === 'stalled')).toEqual([]);
    expect(await rt.store.jobs.get('883')).toMatchObject({ running: false });
    expect(await rt.store.jobs.get('881')).toMatchObject({ running: true });
    expect(await rt.store.incidents.listForQuery('job-883')).toEqual([]);
    const [jobFailed] = await rt.store.incidents.listForQuery('job-882');
    expect(jobFailed).toMatchObject({ kind: 'failed', state: 'open' });
    expect(jobFailed!.incident.summary).toContain('exited with code 137');
    expect(jobFailed!.slack).not.toBeNull();
    expect(await rt.store.incidents.listForQuery('job-881')).toEqual([]);

    // Both are in Slack (one storm message or two), and the orphaned query is not mentioned.
    const text = JSON.stringify(slack.messages('C0DATAALRT').map((m) => m.blocks));
    expect(text).toContain('No progress for');
    expect(text).toContain('job 882');
    expect(text).not.toContain('orders_steady_1');
    expect(text).not.toContain('orders_steady_2');
  }, 40_000);
});
