import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabricksClient, type DatabricksClient } from '../../src/databricks/index.js';
import { JobRunsSource } from '../../src/sources/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';
import { simulator } from './simulated-progress.js';

const PAT = 'dapi-local-test-token-000000000003';
const START = Date.UTC(2026, 8, 14, 10, 0, 0);
const JOB = 19064954;

let local: LocalDatabricks;
let client: DatabricksClient;

beforeEach(async () => {
  local = await startLocalDatabricks({
    tokens: [PAT],
    startMs: START,
    speed: 0,
    jobs: [
      { jobId: JOB, name: 'orders-stream-prd', continuous: true },
      { jobId: 555, name: 'nightly-compaction', continuous: false },
    ],
  });
  client = createDatabricksClient({ host: local.url, credentials: { kind: 'pat', token: PAT }, retry: { baseDelayMs: 1 }, sleep: async () => undefined });
});
afterEach(async () => {
  await local.close();
});

describe('JobRunsSource', () => {
  it('says the job is running, then reports the failed run once with its message and link, then that it is down', async () => {
    local.addStream('orders', { generator: simulator('orders_agg', START), table: 'main.streamdoctor.streaming_progress', jobId: JOB });
    const source = new JobRunsSource({ client, jobs: [{ jobId: JOB }], now: () => local.clock.now() });
    expect(source.liveness()).toEqual([]);

    const first = await source.poll(null);
    expect(first.signals).toEqual([expect.objectContaining({ type: 'job_running', jobId: JOB, runPageUrl: expect.stringContaining(`#job/${JOB}/run/`) })]);
    // With the active run's start, so detect judges a restarted query's silence from it.
    const runStart = (first.signals[0] as { startedAtMs: number }).startedAtMs;
    expect(runStart).toBeGreaterThan(0);
    expect(source.liveness()).toEqual([{ jobId: String(JOB), running: true, runStartedAtMs: runStart }]);

    local.clock.advance(60_000);
    local.stopStream('orders', 'org.apache.spark.sql.streaming.StreamingQueryException: Kafka topic orders was deleted');
    const second = await source.poll(first.cursor);
    const failed = second.signals.find((signal) => signal.type === 'job_run_failed');
    expect(failed).toMatchObject({
      jobId: JOB,
      resultState: 'FAILED',
      stateMessage: expect.stringContaining('Kafka topic orders was deleted'),
      runPageUrl: expect.stringContaining(local.url),
    });
    // Inferred continuous from the run's trigger: no active run is an incident too.
    expect(second.signals.find((signal) => signal.type === 'job_not_running')).toMatchObject({ lastRun: { resultState: 'FAILED' } });
    expect(source.liveness()).toEqual([{ jobId: String(JOB), running: false, runStartedAtMs: null }]);

    const third = await source.poll(second.cursor);
    expect(third.signals.filter((signal) => signal.type === 'job_run_failed')).toEqual([]);
    expect(third.signals.map((signal) => signal.type)).toEqual(['job_not_running']);
  });

  it('pages through many runs and ignores successful ones', async () => {
    for (let i = 0; i < 30; i += 1) {
      const runId = local.startRun(555);
      local.clock.advance(1_000);
      local.endRun(runId, i === 27 ? 'TIMEDOUT' : 'SUCCESS', i === 27 ? 'Run timed out after 1h' : '');
    }
    const source = new JobRunsSource({ client, jobs: [{ jobId: 555, continuous: false }], now: () => local.clock.now() });
    local.resetRequestCounts();
    const result = await source.poll(null);
    expect(result.signals).toEqual([expect.objectContaining({ type: 'job_run_failed', resultState: 'TIMEDOUT', stateMessage: 'Run timed out after 1h' })]);
    expect(local.requests().byRoute['GET /api/2.2/jobs/runs/list']).toBe(3); // active + two pages of completed
  });
});
