/**
 * A job or pipeline taken out of the watch file while it has an incident open: nothing would ever
 * resolve it (no run or update of it is read any more), so the source says it is unwatched and its
 * open `failed` and `source_unreadable` incidents close, saying why. Local Databricks, real Redis.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applySignals, hostLiveness } from '../../jobs/signal-incidents.js';
import { createDatabricksClient, type DatabricksClient } from '../../src/databricks/index.js';
import { JobRunsSource, PipelineEventsSource, type WatchedJob } from '../../src/sources/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';
import { RedisStore } from '../../src/store/index.js';
import { testRedis } from '../helpers/redis.js';

const PAT = 'dapi-local-test-token-000000000041';
const T = Date.UTC(2026, 10, 29, 8, 0, 0);
const ORDERS = 1;
const PAYMENTS = 2;
const P = 'abcdef12-abcd-3456-7890-abcd1234ef99';
const redis = testRedis();
let store: RedisStore;
let local: LocalDatabricks;
let client: DatabricksClient;

beforeEach(async () => {
  store = new RedisStore({ redis, prefix: `sdtest-unwatched-${randomUUID().slice(0, 8)}` });
  local = await startLocalDatabricks({
    tokens: [PAT],
    startMs: T,
    speed: 0,
    jobs: [
      { jobId: ORDERS, name: 'orders-stream-prd', continuous: true },
      { jobId: PAYMENTS, name: 'payments-stream-prd', continuous: true },
    ],
    pipelines: [{ pipelineId: P, name: 'orders-dlt' }],
  });
  client = createDatabricksClient({ host: local.url, credentials: { kind: 'pat', token: PAT }, retry: { baseDelayMs: 1 }, sleep: async () => undefined });
});
afterEach(async () => {
  await local.close();
  await store.deleteEverything();
});
afterAll(() => redis.disconnect());

async function pollAndApply<C>(source: { poll(c: C | null): Promise<{ signals?: unknown[]; cursor: C }> }, cursor: C | null, sourceId: string): Promise<C> {
  const result = await source.poll(cursor);
  await applySignals(store, result.signals ?? [], sourceId, local.clock.now());
  return result.cursor;
}

describe('a host taken out of the watch file', () => {
  it('a job: its open failed incident closes, unconfirmed, and the job left watched is untouched', async () => {
    // A run of each job failed a moment ago.
    for (const jobId of [ORDERS, PAYMENTS]) local.endRun(local.startRun(jobId, T - 600_000), 'FAILED', 'Kafka topic was deleted');
    local.clock.advance(1_000);
    let watched: WatchedJob[] = [{ jobId: ORDERS }, { jobId: PAYMENTS }];
    const source = new JobRunsSource({ client, jobs: () => watched, now: () => local.clock.now() });
    let cursor = await pollAndApply(source, null, 'prod.jobs');
    expect((await store.incidents.listForQuery(`job-${PAYMENTS}`)).map((r) => `${r.kind}:${r.state}`)).toEqual(['failed:open']);

    watched = [{ jobId: ORDERS }];
    local.clock.advance(60_000);
    cursor = await pollAndApply(source, cursor, 'prod.jobs');
    const [record] = await store.incidents.listForQuery(`job-${PAYMENTS}`);
    expect(record).toMatchObject({ kind: 'failed', state: 'resolved', resolvedAt: T + 61_000 });
    expect(record!.incident.summary).toContain('Closed unconfirmed: taken out of the watch file');
    expect((await store.outbox.read(`job-${PAYMENTS}`)).map((e) => e.change).at(-1)).toBe('resolved');
    expect((await store.incidents.listForQuery(`job-${ORDERS}`)).map((r) => r.state)).toEqual(['open']);

    // Said once: the next poll's cursor no longer holds the job.
    local.clock.advance(60_000);
    const next = await source.poll(cursor);
    expect(next.signals.filter((s) => s.type === 'host_unwatched')).toEqual([]);
  });

  it('a job whose runs could not be read: its source_unreadable incident closes too', async () => {
    await applySignals(store, [{ type: 'job_unreadable', jobId: PAYMENTS, jobName: 'payments-stream-prd', errorCode: 'PERMISSION_DENIED', httpStatus: 403, message: 'no CAN VIEW', sinceMs: T, permanent: true }], 'prod.jobs', T);
    const source = new JobRunsSource({ client, jobs: [{ jobId: ORDERS }], now: () => local.clock.now() });
    local.clock.advance(30_000);
    // The stored cursor still names the job the previous configuration watched.
    await pollAndApply(source, { v: 1, jobs: { [String(PAYMENTS)]: { endedAfterMs: T - 900_000, reported: [] } } }, 'prod.jobs');
    expect((await store.incidents.listForQuery(`job-${PAYMENTS}`)).map((r) => `${r.kind}:${r.state}`)).toEqual(['source_unreadable:resolved']);
  });

  it('a pipeline: its failed incident closes and its streams are judged again', async () => {
    let ids = [P];
    const source = new PipelineEventsSource({ client, pipelineIds: () => ids, now: () => local.clock.now() });
    local.appendPipelineEvent(P, { event_type: 'update_progress', level: 'ERROR', origin: { update_id: 'u1' }, details: { update_progress: { state: 'FAILED' } } }, T + 5_000);
    local.clock.advance(10_000);
    let cursor = await pollAndApply(source, null, 'prod.pipelines');
    expect((await hostLiveness(store, { pipelineId: P }, local.clock.now())).down).toBe(true);

    ids = [];
    local.clock.advance(60_000);
    cursor = await pollAndApply(source, cursor, 'prod.pipelines');
    const [record] = await store.incidents.listForQuery(`pipeline-${P}`);
    expect(record).toMatchObject({ kind: 'failed', state: 'resolved' });
    expect(record!.incident.summary).toContain('Closed unconfirmed: taken out of the watch file');
    expect((await hostLiveness(store, { pipelineId: P }, local.clock.now())).down).toBe(false);
    expect(cursor.pipelines).toEqual({});
  });
});
