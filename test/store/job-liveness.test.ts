/** Job liveness as the job-runs poll saw it: running or not, the active run's start, the poll time. */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/index.js';
import { testRedis } from '../helpers/redis.js';

const redis = testRedis();
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
  it('keeps each job’s answer with its active run’s start; older answers read as start unknown', async () => {
    await store.jobs.record([{ jobId: '881', running: true, runStartedAtMs: T - 3_600_000 }, { jobId: '882', running: false }], T);
    expect(await store.jobs.get('881')).toEqual({ running: true, atMs: T, runStartedAtMs: T - 3_600_000 });
    expect(await store.jobs.get('882')).toEqual({ running: false, atMs: T, runStartedAtMs: null });
    expect(await store.jobs.get('999')).toBeNull(); // never seen
    await store.jobs.record([{ jobId: '882', running: true }], T + 10_000);
    expect(await store.jobs.get('882')).toEqual({ running: true, atMs: T + 10_000, runStartedAtMs: null });
    // Written before the run start was kept.
    await redis.hset(store.keys.jobLiveness(), '884', `1|${T}`);
    expect(await store.jobs.get('884')).toEqual({ running: true, atMs: T, runStartedAtMs: null });
    await redis.hset(store.keys.jobLiveness(), '883', 'garbage');
    expect(await store.jobs.get('883')).toBeNull();
  });

  it('drops answers of jobs no longer watched once past the retention; watched jobs stay', async () => {
    const hour = store.jobs.retentionMs;
    expect(hour).toBe(3_600_000);
    // Two sources (workspaces) share the hash: A watches 881 and 882, B watches 990.
    await store.jobs.record([{ jobId: '881', running: true }, { jobId: '882', running: false }], T);
    await store.jobs.record([{ jobId: '990', running: true }], T);
    await redis.hset(store.keys.jobLiveness(), '883', 'garbage');
    // 882 leaves A's watch file; both sources keep polling every 10 minutes.
    let pruned = 0;
    for (let t = T + 600_000; t <= T + hour + 600_000; t += 600_000) {
      pruned += await store.jobs.record([{ jobId: '881', running: true }], t);
      pruned += await store.jobs.record([{ jobId: '990', running: false }], t + 1_000);
    }
    expect(pruned).toBe(2); // the unreadable entry at once, 882 after an hour
    expect(Object.keys(await redis.hgetall(store.keys.jobLiveness())).sort()).toEqual(['881', '990']);
    expect(await store.jobs.get('882')).toBeNull();
    expect(await store.jobs.get('990')).toEqual({ running: false, atMs: T + hour + 601_000, runStartedAtMs: null });
    // 882 was still known while its answer was young (one poll after it left the watch file).
    const young = new RedisStore({ redis, prefix: `${store.keys.prefix}-young` });
    await young.jobs.record([{ jobId: '882', running: false }], T);
    expect(await young.jobs.record([{ jobId: '881', running: true }], T + 600_000)).toBe(0);
    expect(await young.jobs.get('882')).toEqual({ running: false, atMs: T, runStartedAtMs: null });
    await young.deleteEverything();
    // A job-runs source left with no watched jobs still ages the old answers out.
    expect(await store.jobs.record([], T + 3 * hour)).toBe(2);
    expect(await redis.exists(store.keys.jobLiveness())).toBe(0);
  });
});
