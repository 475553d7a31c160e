/**
 * `runs/list?active_only=true` lists QUEUED, PENDING, RUNNING and TERMINATING runs. Only a RUNNING
 * one means the job runs: a queued run (a concurrency limit) or a pending one (its cluster starting)
 * is no recovery from a failure, and leaves the job not running; once it begins, it is. Read from
 * `status.state`, or from `state.life_cycle_state` when a listing carries that alone.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabricksClient, type DatabricksClient } from '../../src/databricks/index.js';
import { JobRunsSource } from '../../src/sources/index.js';
import { startJobRunsServer, type JobRunsServer } from '../helpers/job-runs-server.js';

const PAT = 'dapi-local-test-token-000000000047';
const START = Date.UTC(2026, 8, 14, 10, 0, 0);
const ORDERS = 7;
const NIGHTLY = 8;

let server: JobRunsServer;
let client: DatabricksClient;

beforeEach(async () => {
  server = await startJobRunsServer([
    { jobId: ORDERS, name: 'orders-stream-prd', continuous: true },
    { jobId: NIGHTLY, name: 'nightly-compaction', continuous: false },
  ]);
  client = createDatabricksClient({ host: server.url, credentials: { kind: 'pat', token: PAT }, retry: { baseDelayMs: 1 }, sleep: async () => undefined });
});
afterEach(async () => {
  await server.close();
});

/** A run of the continuous job that ran an hour and failed a minute before START. */
function failedRun(): number {
  const run = server.runs.startRun(ORDERS, START - 3_600_000);
  server.runs.endRun(run.run_id, START - 60_000, 'FAILED', 'org.apache.spark.sql.streaming.StreamingQueryException: Kafka topic orders was deleted');
  return run.run_id;
}

describe('JobRunsSource with runs that wait to start', () => {
  it('a queued run after a failure: the failure is reported, the job is not running, and no recovery until the run begins', async () => {
    failedRun();
    const queued = server.runs.queueRun(ORDERS, START - 50_000, 'QUEUED');
    let now = START;
    const source = new JobRunsSource({ client, jobs: [{ jobId: ORDERS }], now: () => now });

    const first = await source.poll(null);
    expect(first.signals.map((s) => s.type)).toEqual(['job_run_failed']);
    expect(source.liveness()).toEqual([{ jobId: String(ORDERS), running: false, runStartedAtMs: null }]);

    // Still queued a minute later: nothing new, still not running.
    now = START + 60_000;
    const second = await source.poll(first.cursor);
    expect(second.signals).toEqual([]);
    expect(source.liveness()[0]!.running).toBe(false);

    now = START + 120_000;
    server.runs.beginRun(queued.run_id, now);
    const third = await source.poll(second.cursor);
    expect(third.signals).toEqual([expect.objectContaining({ type: 'job_running', jobId: ORDERS, runId: queued.run_id, startedAtMs: START - 50_000 })]);
    expect(source.liveness()).toEqual([{ jobId: String(ORDERS), running: true, runStartedAtMs: START - 50_000 }]);
  });

  it('a pending run (its cluster starting) is not running either', async () => {
    const pending = server.runs.queueRun(NIGHTLY, START - 30_000, 'PENDING');
    let now = START;
    const source = new JobRunsSource({ client, jobs: [{ jobId: NIGHTLY, continuous: false }], now: () => now });
    expect((await source.poll(null)).signals).toEqual([]);
    expect(source.liveness()).toEqual([{ jobId: String(NIGHTLY), running: false, runStartedAtMs: null }]);

    now = START + 240_000;
    server.runs.beginRun(pending.run_id, now);
    expect((await source.poll(null)).signals).toEqual([expect.objectContaining({ type: 'job_running', runId: pending.run_id })]);
    expect(source.liveness()[0]!.running).toBe(true);
  });

  it('a continuous job whose next run waits is not reported as having no run', async () => {
    failedRun();
    server.runs.queueRun(ORDERS, START - 10_000, 'PENDING');
    const source = new JobRunsSource({ client, jobs: [{ jobId: ORDERS }], now: () => START });
    const signals = (await source.poll(null)).signals;
    expect(signals.map((s) => s.type)).toEqual(['job_run_failed']);
  });

  it('a RUNNING run counts while a newer run waits in the queue behind it', async () => {
    const running = server.runs.startRun(NIGHTLY, START - 600_000);
    server.runs.queueRun(NIGHTLY, START - 60_000, 'QUEUED');
    const source = new JobRunsSource({ client, jobs: [{ jobId: NIGHTLY }], now: () => START });
    expect((await source.poll(null)).signals).toEqual([expect.objectContaining({ type: 'job_running', runId: running.run_id, startedAtMs: START - 600_000 })]);
    expect(source.liveness()).toEqual([{ jobId: String(NIGHTLY), running: true, runStartedAtMs: START - 600_000 }]);
  });

  it('reads `state.life_cycle_state` when a listing has no `status`', async () => {
    // The same answers without `status` (the field `state` was the only one before it).
    const stateOnly = {
      ...client,
      jobs: {
        ...client.jobs,
        listAllRuns: async (...args: Parameters<DatabricksClient['jobs']['listAllRuns']>) =>
          (await client.jobs.listAllRuns(...args)).map(({ status: _status, ...run }) => run),
      },
    } as DatabricksClient;
    const queued = server.runs.queueRun(NIGHTLY, START - 60_000, 'QUEUED');
    const source = new JobRunsSource({ client: stateOnly, jobs: [{ jobId: NIGHTLY }], now: () => START });
    expect((await source.poll(null)).signals).toEqual([]);
    expect(source.liveness()[0]!.running).toBe(false);

    server.runs.beginRun(queued.run_id, START);
    expect((await source.poll(null)).signals).toEqual([expect.objectContaining({ type: 'job_running', runId: queued.run_id })]);
    expect(source.liveness()[0]!.running).toBe(true);
  });
});
