/**
 * A continuous job's run fails and Databricks queues the next one (a concurrency limit): the job's
 * `failed` incident opens and stays open while the run waits, and is resolved only once the run is
 * RUNNING, not in the poll that opened it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applySignals } from '../../jobs/signal-incidents.js';
import { createDatabricksClient } from '../../src/databricks/index.js';
import { JobRunsSource } from '../../src/sources/index.js';
import { RedisStore } from '../../src/store/index.js';
import { startJobRunsServer, type JobRunsServer } from '../helpers/job-runs-server.js';
import { testRedis } from '../helpers/redis.js';

const redis = testRedis();
const T = Date.UTC(2026, 10, 29, 8, 0, 0);
const JOB = 19064954;
let store: RedisStore;
let server: JobRunsServer;

beforeEach(async () => {
  store = new RedisStore({ redis, prefix: `sdtest-queuedrun-${randomUUID().slice(0, 8)}` });
  server = await startJobRunsServer([{ jobId: JOB, name: 'orders-stream-prd', continuous: true }]);
});
afterEach(async () => {
  await server.close();
  await store.deleteEverything();
});
afterAll(() => redis.disconnect());

describe('a failed job whose next run is queued', () => {
  it('keeps its failed incident open until the queued run is RUNNING', async () => {
    const failed = server.runs.startRun(JOB, T - 3_600_000);
    server.runs.endRun(failed.run_id, T - 60_000, 'FAILED', 'Task stream failed with message: Kafka topic orders was deleted');
    const queued = server.runs.queueRun(JOB, T - 50_000, 'QUEUED');
    let now = T;
    const client = createDatabricksClient({ host: server.url, credentials: { kind: 'pat', token: 'dapi-local-test-token-000000000048' }, sleep: async () => undefined });
    const source = new JobRunsSource({ client, jobs: [{ jobId: JOB }], now: () => now });

    const first = await source.poll(null);
    await applySignals(store, first.signals, 'prod.jobs', now);
    expect((await store.incidents.listForQuery(`job-${JOB}`)).map((r) => [r.kind, r.state])).toEqual([['failed', 'open']]);

    now = T + 60_000;
    const second = await source.poll(first.cursor);
    await applySignals(store, second.signals, 'prod.jobs', now);
    expect((await store.incidents.listForQuery(`job-${JOB}`)).map((r) => r.state)).toEqual(['open']);

    now = T + 120_000;
    server.runs.beginRun(queued.run_id, now);
    const third = await source.poll(second.cursor);
    await applySignals(store, third.signals, 'prod.jobs', now);
    const [record] = await store.incidents.listForQuery(`job-${JOB}`);
    expect(record).toMatchObject({ kind: 'failed', state: 'resolved' });
    expect((await store.outbox.read(`job-${JOB}`)).map((e) => e.change)).toEqual(['opened', 'resolved']);
  });
});
