import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabricksClient } from '../../src/databricks/index.js';
import { JobRunsSource, LivenessTracker, type LivenessContext } from '../../src/sources/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';
import { simulator } from './simulated-progress.js';

const PAT = 'dapi-local-test-token-000000000005';
const START = Date.UTC(2026, 8, 14, 10, 0, 0);
const JOB = 19064954;
let local: LocalDatabricks;

beforeEach(async () => {
  local = await startLocalDatabricks({ tokens: [PAT], startMs: START, speed: 0, jobs: [{ jobId: JOB, name: 'orders-stream-prd', continuous: true }] });
});
afterEach(async () => {
  await local.close();
});

const context: LivenessContext = {
  streamsOfJob: (jobId) => (jobId === JOB ? [{ queryId: '8f3c2a51-6b0e-4d7a-9c1e-2b5f7d9a0e34', name: 'orders_5min_agg' }] : []),
  jobName: (jobId) => (jobId === JOB ? 'orders-stream-prd' : null),
};

describe('LivenessTracker with the job-runs source', () => {
  it('opens one failed incident with the state message and run page, keeps it quiet, and resolves on a new run', async () => {
    const client = createDatabricksClient({ host: local.url, credentials: { kind: 'pat', token: PAT }, sleep: async () => undefined });
    const source = new JobRunsSource({ client, jobs: [{ jobId: JOB }], now: () => local.clock.now() });
    local.addStream('orders', { generator: simulator('orders_5min_agg', START), table: 'main.streamdoctor.streaming_progress', jobId: JOB });

    let tracker = LivenessTracker.create();
    let result = await source.poll(null);
    expect(tracker.observe(result.signals, context, local.clock.now())).toEqual([]);

    local.clock.advance(120_000);
    local.stopStream('orders', 'StreamingQueryException: Kafka topic orders was deleted');
    result = await source.poll(result.cursor);
    const opened = tracker.observe(result.signals, context, local.clock.now());
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({ type: 'opened', queryId: '8f3c2a51-6b0e-4d7a-9c1e-2b5f7d9a0e34', incident: { kind: 'failed', severity: 'critical' } });
    expect(opened[0]!.incident.summary).toContain('orders-stream-prd: run');
    expect(opened[0]!.incident.summary).toContain('ended FAILED: StreamingQueryException: Kafka topic orders was deleted');
    expect(opened[0]!.incident.advice[0]!.text).toContain(`${local.url}/?o=1234567890123456#job/${JOB}/run/`);

    // Restored from its JSON state, the tracker stays quiet while the job stays down.
    tracker = LivenessTracker.restore(JSON.parse(JSON.stringify(tracker.toState())));
    result = await source.poll(result.cursor);
    expect(tracker.observe(result.signals, context, local.clock.now())).toEqual([]);

    local.clock.advance(60_000);
    local.startRun(JOB);
    result = await source.poll(result.cursor);
    const resolved = tracker.observe(result.signals, context, local.clock.now());
    expect(resolved).toHaveLength(1);
    expect(resolved[0]).toMatchObject({ type: 'resolved', incident: { kind: 'failed', resolvedAt: expect.any(String) } });
  });

  it('files a job with no configured stream under job:<id> and says a continuous job is not running', () => {
    const tracker = LivenessTracker.create();
    const changes = tracker.observe([{ type: 'job_not_running', jobId: 7, lastRun: null }], { streamsOfJob: () => [] }, START);
    expect(changes).toEqual([expect.objectContaining({ type: 'opened', queryId: 'job:7' })]);
    expect(changes[0]!.incident.summary).toBe('job 7 is a continuous job with no active run');
  });
});
