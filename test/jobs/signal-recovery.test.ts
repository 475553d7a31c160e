/**
 * Host incidents that end: a failed pipeline is resolved by a later update that runs (saying which),
 * so its streams are judged again; a watched job whose runs cannot be read has its own
 * `source_unreadable` incident (not `failed`: the job is not known down), resolved when it reads again.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applySignals, hostLiveness } from '../../jobs/signal-incidents.js';
import { createDatabricksClient } from '../../src/databricks/index.js';
import { PipelineEventsSource } from '../../src/sources/index.js';
import { startLocalDatabricks } from '../../src/standins/databricks/index.js';
import { RedisStore } from '../../src/store/index.js';
import { testRedis } from '../helpers/redis.js';

const redis = testRedis();
let store: RedisStore;
const T = Date.parse('2026-11-29T08:00:00.000Z');
const P = 'abcdef12-abcd-3456-7890-abcd1234ef56';

beforeEach(() => {
  store = new RedisStore({ redis, prefix: `sdtest-sigrecover-${randomUUID().slice(0, 8)}` });
});
afterEach(async () => {
  await store.deleteEverything();
});
afterAll(() => redis.disconnect());

const pipelineFailed = { type: 'pipeline_failed', pipelineId: P, pipelineName: 'orders-dlt', updateId: 'u1', message: 'Flow orders_silver failed', atMs: T };
const running = (updateId: string, startedAtMs: number, atMs = startedAtMs, state = 'RUNNING') => ({ type: 'pipeline_running', pipelineId: P, pipelineName: 'orders-dlt', updateId, state, startedAtMs, atMs });

describe('a failed pipeline, recovered', () => {
  it('is resolved by a later update of the pipeline, whose id the resolved summary names, and its streams are judged again', async () => {
    await applySignals(store, [pipelineFailed], 'prod.pipelines', T);
    expect(await hostLiveness(store, { pipelineId: P }, T + 30_000)).toEqual({ down: true, runStartedAtMs: null });

    expect(await applySignals(store, [running('u2', T + 60_000, T + 90_000), running('u2', T + 60_000, T + 95_000, 'COMPLETED')], 'prod.pipelines', T + 120_000)).toEqual([`pipeline-${P}`]);
    const [record] = await store.incidents.listForQuery(`pipeline-${P}`);
    expect(record).toMatchObject({ kind: 'failed', state: 'resolved', resolvedAt: T + 60_000 });
    expect(record!.incident.summary).toBe(`Pipeline update u1 failed: Flow orders_silver failed Recovered: update u2 reached RUNNING at ${new Date(T + 90_000).toISOString()}.`);
    expect((await store.outbox.read(`pipeline-${P}`)).map((e) => e.change)).toEqual(['opened', 'resolved']);
    expect(await hostLiveness(store, { pipelineId: P }, T + 120_000)).toEqual({ down: false, runStartedAtMs: null });
  });

  it('is not resolved by an update that started before the failure', async () => {
    await applySignals(store, [pipelineFailed], 'prod.pipelines', T);
    expect(await applySignals(store, [running('u0', T - 1_000, T + 10_000)], 'prod.pipelines', T + 10_000)).toEqual([]);
    expect((await store.incidents.listForQuery(`pipeline-${P}`)).map((r) => r.state)).toEqual(['open']);
    expect((await hostLiveness(store, { pipelineId: P }, T + 10_000)).down).toBe(true);
  });

  it('end to end: an update fails, then a new one goes CREATED → RUNNING → COMPLETED on the local Databricks', async () => {
    const PAT = 'dapi-local-test-token-000000000033';
    const local = await startLocalDatabricks({ tokens: [PAT], startMs: T, speed: 0, pipelines: [{ pipelineId: P, name: 'orders-dlt' }] });
    try {
      const client = createDatabricksClient({ host: local.url, credentials: { kind: 'pat', token: PAT }, sleep: async () => undefined });
      const source = new PipelineEventsSource({ client, pipelineIds: [P], now: () => local.clock.now() });
      local.appendPipelineEvent(P, { event_type: 'update_progress', level: 'ERROR', origin: { update_id: 'u1' }, details: { update_progress: { state: 'FAILED' } } }, T + 5_000);
      local.clock.advance(10_000);
      const first = await source.poll(null);
      await applySignals(store, first.signals, 'prod.pipelines', local.clock.now());
      for (const [i, state] of ['CREATED', 'RUNNING', 'COMPLETED'].entries()) {
        local.appendPipelineEvent(P, { event_type: 'update_progress', origin: { update_id: 'u2' }, details: { update_progress: { state } } }, T + 60_000 + i * 1_000);
      }
      local.clock.advance(120_000);
      const second = await source.poll(first.cursor);
      await applySignals(store, second.signals, 'prod.pipelines', local.clock.now());
      const [record] = await store.incidents.listForQuery(`pipeline-${P}`);
      expect(record).toMatchObject({ kind: 'failed', state: 'resolved', resolvedAt: T + 60_000 });
      expect(record!.incident.summary).toContain('Recovered: update u2 reached RUNNING');
      expect((await hostLiveness(store, { pipelineId: P }, local.clock.now())).down).toBe(false);
    } finally {
      await local.close();
    }
  });
});

describe('a watched job that cannot be read', () => {
  const denied = { type: 'job_unreadable', jobId: 2, jobName: 'payments-stream-prd', errorCode: 'PERMISSION_DENIED', httpStatus: 403, message: 'User does not have CAN VIEW on job 2.', sinceMs: T, permanent: true };

  it('opens a source_unreadable incident on the job, once, re-worded only when the answer changes, resolved when it reads again', async () => {
    expect(await applySignals(store, [denied], 'prod.jobs', T)).toEqual(['job-2']);
    expect(await applySignals(store, [denied], 'prod.jobs', T + 60_000)).toEqual([]);
    const [opened] = await store.incidents.listForQuery('job-2');
    expect(opened).toMatchObject({ kind: 'source_unreadable', state: 'open', queryName: 'payments-stream-prd', openedAt: T });
    expect(opened!.incident).toMatchObject({
      severity: 'warning',
      summary: 'StreamDoctor cannot read the runs of job 2: Databricks answered 403 PERMISSION_DENIED (User does not have CAN VIEW on job 2.). Its failed runs and liveness are not reported meanwhile.',
      advice: [{ text: expect.stringContaining('CAN VIEW on the job') }],
    });
    // Routed as the job's own entry (its owners' channel), not the source's.
    expect(await store.streams.get('job-2')).toMatchObject({ jobId: '2', source: 'prod.jobs' });
    // Blindness, not a known-down job: its streams are still judged stalled as usual.
    expect(await hostLiveness(store, { jobId: '2' }, T + 60_000)).toEqual({ down: false, runStartedAtMs: null });

    // Deleted meanwhile: the same incident, re-worded.
    await applySignals(store, [{ ...denied, errorCode: 'RESOURCE_DOES_NOT_EXIST', httpStatus: 404, message: 'Job 2 does not exist.' }], 'prod.jobs', T + 120_000);
    const [updated] = await store.incidents.listForQuery('job-2');
    expect(updated).toMatchObject({ id: opened!.id, version: 2, state: 'open' });
    expect(updated!.incident.advice[0]!.text).toContain('Check the job id in the watch file');

    // A run starting does not end it: only reading the job again does.
    expect(await applySignals(store, [{ type: 'job_running', jobId: 2, runId: 9, runPageUrl: null, startedAtMs: T + 130_000 }], 'prod.jobs', T + 130_000)).toEqual([]);
    await applySignals(store, [{ type: 'job_readable', jobId: 2, jobName: 'payments-stream-prd', atMs: T + 180_000 }], 'prod.jobs', T + 180_000);
    const [resolved] = await store.incidents.listForQuery('job-2');
    expect(resolved).toMatchObject({ id: opened!.id, state: 'resolved', resolvedAt: T + 180_000 });
    expect((await store.outbox.read('job-2')).map((e) => e.change)).toEqual(['opened', 'updated', 'resolved']);
  });

  it('lives beside the job\'s failed incident: each ends by its own signal', async () => {
    const failedRun = { type: 'job_run_failed', jobId: 2, runId: 70, resultState: 'FAILED', stateMessage: 'OOM', runPageUrl: null, endedAtMs: T - 60_000 };
    await applySignals(store, [failedRun, denied], 'prod.jobs', T);
    expect((await store.incidents.listForQuery('job-2')).map((r) => `${r.kind}:${r.state}`).sort()).toEqual(['failed:open', 'source_unreadable:open']);
    await applySignals(store, [{ type: 'job_readable', jobId: 2, atMs: T + 60_000 }], 'prod.jobs', T + 60_000);
    expect((await store.incidents.listForQuery('job-2')).map((r) => `${r.kind}:${r.state}`).sort()).toEqual(['failed:open', 'source_unreadable:resolved']);
    await applySignals(store, [{ type: 'job_running', jobId: 2, runId: 71, runPageUrl: null, startedAtMs: T + 60_000 }], 'prod.jobs', T + 60_000);
    expect((await store.incidents.listForQuery('job-2')).map((r) => `${r.kind}:${r.state}`).sort()).toEqual(['failed:resolved', 'source_unreadable:resolved']);
  });
});
