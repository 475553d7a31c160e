/** Job liveness as the job-runs poll saw it: known stopped only when fresh; unknown is not stopped. */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jobLivenessOf } from '../../jobs/progress-source.js';
import { RedisStore } from '../../src/store/index.js';

const redis = new Redis('redis://127.0.0.1:6379');
let store: RedisStore;
const T = Date.parse('2026-11-29T08:00:00.000Z');

beforeEach(() => {
  store = new RedisStore({ redis, prefix: `sdtest-liveness-${randomUUID().slice(0, 8)}` });
});
afterEach(async () => {
  await store.deleteEverything();
});
afterAll(() => redis.disconnect());

describe('job liveness', () => {
  it('says stopped only for a fresh "not running" answer', async () => {
    await store.jobs.record([{ jobId: '881', running: true }, { jobId: '882', running: false }], T);
    expect(await store.jobs.get('882')).toEqual({ running: false, atMs: T });
    expect(await store.jobs.isKnownStopped('882', T + 60_000, 300_000)).toBe(true);
    expect(await store.jobs.isKnownStopped('882', T + 301_000, 300_000)).toBe(false); // stale: unknown
    expect(await store.jobs.isKnownStopped('881', T + 60_000, 300_000)).toBe(false);
    expect(await store.jobs.isKnownStopped('999', T, 300_000)).toBe(false); // never seen
    await store.jobs.record([{ jobId: '882', running: true }], T + 10_000);
    expect(await store.jobs.isKnownStopped('882', T + 20_000, 300_000)).toBe(false);
    await redis.hset(store.keys.jobLiveness(), '883', 'garbage');
    expect(await store.jobs.get('883')).toBeNull();
  });

  it('reads a job-runs poll: the cursor names the jobs, the source says which run', () => {
    const source = { poll: async () => ({ progress: [], cursor: null, warnings: [] }), isJobRunning: (id: number) => (id === 881 ? true : id === 882 ? false : undefined) };
    const cursor = { v: 1, jobs: { '881': { endedAfterMs: T, reported: [] }, '882': { endedAfterMs: T, reported: [] }, '883': { endedAfterMs: T, reported: [] } } };
    expect(jobLivenessOf(source, cursor)).toEqual([
      { jobId: '881', running: true },
      { jobId: '882', running: false },
    ]);
    expect(jobLivenessOf({ poll: source.poll }, cursor)).toEqual([]);
    expect(jobLivenessOf(source, 'not a cursor')).toEqual([]);
  });
});
