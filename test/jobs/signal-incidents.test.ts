/**
 * Job and pipeline signals from the sources become `failed` incidents: opened once, updated by a new
 * failure while open, resolved by a new run; notify intents for each change.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applySignals } from '../../jobs/signal-incidents.js';
import { isSignalStream } from '../../src/diagnosis/host-signals.js';
import { RedisStore } from '../../src/store/index.js';
import { testRedis } from '../helpers/redis.js';

const redis = testRedis();
let store: RedisStore;
const T = Date.parse('2026-11-29T08:00:00.000Z');

beforeEach(() => {
  store = new RedisStore({ redis, prefix: `sdtest-signals-${randomUUID().slice(0, 8)}` });
});
afterEach(async () => {
  await store.deleteEverything();
});
afterAll(() => redis.disconnect());

const failedRun = (runId: number, endedAtMs: number) => ({
  type: 'job_run_failed',
  jobId: 881,
  runId,
  resultState: 'FAILED',
  stateMessage: 'Task ingest_orders failed with message: <b>OOM</b> & retries exhausted',
  runPageUrl: `https://adb-1.2.azuredatabricks.net/jobs/881/runs/${runId}`,
  endedAtMs,
});

describe('signals to failed incidents', () => {
  it('opens once per job, updates on a new failure, resolves when a run starts', async () => {
    expect(await applySignals(store, [failedRun(5001, T)], 'prod.jobs', T)).toEqual(['job-881']);
    // The same signal again (a re-poll) changes nothing.
    expect(await applySignals(store, [failedRun(5001, T)], 'prod.jobs', T + 10_000)).toEqual([]);
    const [opened] = await store.incidents.listForQuery('job-881');
    expect(opened).toMatchObject({ kind: 'failed', state: 'open', version: 1, queryName: 'job 881' });
    expect(opened!.incident.summary).toContain('Run 5001 of job 881 ended FAILED');
    expect(await store.streams.get('job-881')).toMatchObject({ jobId: '881', runPageUrl: 'https://adb-1.2.azuredatabricks.net/jobs/881/runs/5001' });

    await applySignals(store, [failedRun(5002, T + 60_000)], 'prod.jobs', T + 60_000);
    const [updated] = await store.incidents.listForQuery('job-881');
    expect(updated).toMatchObject({ id: opened!.id, version: 2, state: 'open' });
    expect(updated!.incident.summary).toContain('Run 5002');

    await applySignals(store, [{ type: 'job_running', jobId: 881, runId: 5003, runPageUrl: null, startedAtMs: T + 120_000 }], 'prod.jobs', T + 120_000);
    const [resolved] = await store.incidents.listForQuery('job-881');
    expect(resolved).toMatchObject({ id: opened!.id, state: 'resolved', resolvedAt: T + 120_000 });
    expect((await store.outbox.read('job-881')).map((e) => e.change)).toEqual(['opened', 'updated', 'resolved']);
  });

  it('covers continuous jobs without a run and failed pipeline updates, and ignores unknown signals', async () => {
    await applySignals(
      store,
      [
        { type: 'job_not_running', jobId: 42, lastRun: { runId: 7, resultState: 'CANCELED', stateMessage: 'cancelled by maria', runPageUrl: null, endedAtMs: T } },
        { type: 'pipeline_failed', pipelineId: 'abcdef12-abcd-3456-7890-abcd1234ef56', updateId: 'u1', message: 'Flow orders_silver failed', atMs: T },
        { type: 'flow_backlog', pipelineId: 'p', flowName: 'f', backlogBytes: 1, backlogFiles: null, atMs: T },
        null,
        'garbage',
      ],
      'prod.jobs',
      T,
    );
    expect((await store.incidents.listForQuery('job-42'))[0]!.incident.summary).toContain('Continuous job 42 has no active run');
    expect((await store.incidents.listForQuery('pipeline-abcdef12-abcd-3456-7890-abcd1234ef56'))[0]!.incident.summary).toContain('orders_silver');
    expect(isSignalStream('job-42')).toBe(true);
    expect(isSignalStream('4f1e1c4a-7d4b-4a8e-9d7e-2b6c0c9a1f00')).toBe(false);
  });
});
