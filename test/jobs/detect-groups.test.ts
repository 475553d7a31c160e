/**
 * Detect runs queries together: the poll marks queries pending in their shard and one job
 * per shard runs them. Real Redis, the real engine: a shard's run observes every marked query once,
 * in order, with the same result as one job per query; a query marked again while the run worked
 * stays marked; a lost version race re-runs on fresh state inside the job; a query another run
 * drained is skipped without its state; the sweep's group ticks every stream.
 */
import type { Job } from 'bullmq';
import { beforeEach, describe, expect, it } from 'vitest';
import { createDetectProcessor } from '../../jobs/detect-processor.js';
import { engineTrackers } from '../../jobs/engine-trackers.js';
import { createPollProcessor } from '../../jobs/poll-processor.js';
import { fakeSource } from '../helpers/fake-source.js';
import type { DetectJobData } from '../../jobs/queue-names.js';
import { PipelineQueues } from '../../jobs/queues.js';
import type { TrackerFactory } from '../../jobs/tracker-factory.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { RedisStore } from '../../src/store/index.js';
import { silentLogger } from '../pipeline/helpers/harness.js';
import { kafkaProgress } from '../store/fixtures.js';
import { storeAndQueuesPerTest } from '../helpers/store-and-queues.js';

const T0 = Date.parse('2026-11-29T10:00:00.000Z');
const qid = (i: number) => `cccccccc-0000-4000-8000-${String(i).padStart(12, '0')}`;

const fresh = storeAndQueuesPerTest('groups', { detectShards: 4 });
let store: RedisStore;
let queues: PipelineQueues;
beforeEach(() => {
  ({ store, queues } = fresh);
});
const { redis } = fresh;

const job = (data: DetectJobData) => ({ data }) as Job<DetectJobData>;
const detectWith = (trackers: TrackerFactory = engineTrackers()) =>
  createDetectProcessor({ store, queues, trackers, metrics: createMetrics({ processMetrics: false }), logger: silentLogger, now: () => T0 + 600_000 });

describe('detect groups', () => {
  it('a poll marks its queries by shard and one job per shard observes each report once, as one job per query would', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => qid(i));
    let batch = 0;
    const source = fakeSource(async () => {
      batch += 1;
      return { progress: ids.map((id) => ({ progress: kafkaProgress(id, batch, T0) })), cursor: null };
    });
    const poll = createPollProcessor({ store, queues, metrics: createMetrics({ processMetrics: false }), logger: silentLogger, sources: new Map([['ws.progress', { id: 'ws.progress', source }]]) });
    await poll({ name: 'poll', id: 'p1', data: { sourceId: 'ws.progress' } } as Job<{ sourceId?: string }>);
    await poll({ name: 'poll', id: 'p2', data: { sourceId: 'ws.progress' } } as Job<{ sourceId?: string }>);
    const waiting = await queues.detect.getJobs(['waiting'], 0, 100, true);
    const shards = new Set(ids.map((id) => store.pendingDetect.shardOf(id)));
    // One pending job per shard touched, however many polls.
    expect(waiting.map((j) => j.data.shard).sort()).toEqual([...shards].sort());
    const detect = detectWith();
    let observed = 0;
    for (const j of waiting) observed += (await detect(job(j.data))).observed;
    expect(observed).toBe(24);
    for (const id of ids) {
      expect(await store.queries.inboxLength(id)).toBe(0);
      expect(await store.streams.get(id)).toMatchObject({ observedCount: 2, lastObservedBatchId: 2 });
    }
    for (const shard of shards) expect(await store.pendingDetect.read(shard)).toEqual([]);

    // The same reports through one job per query give the same state, snapshot and incidents.
    const other = new RedisStore({ redis, prefix: `${store.keys.prefix}-single` });
    const single = createDetectProcessor({ store: other, queues, trackers: engineTrackers(), metrics: createMetrics({ processMetrics: false }), logger: silentLogger, now: () => T0 + 600_000 });
    try {
      for (const id of ids) {
        await other.queries.push(id, [kafkaProgress(id, 1, T0)]);
        await single(job({ queryId: id }));
        await other.queries.push(id, [kafkaProgress(id, 2, T0)]);
        await single(job({ queryId: id }));
        expect((await other.queries.getTrackerState(id))!.state).toEqual((await store.queries.getTrackerState(id))!.state);
      }
    } finally {
      await other.deleteEverything();
    }
  });

  it('a query marked again while its shard ran stays marked; one already drained is skipped without its state', async () => {
    const [a, b] = [qid(1), qid(2)];
    await store.queries.push(a, [kafkaProgress(a, 1, T0)]);
    await store.pendingDetect.mark([a, b]);
    // b has nothing in its inbox (another run drained it): skipped, and no state is ever written.
    const shardA = store.pendingDetect.shardOf(a);
    const read = await store.pendingDetect.read(shardA);
    // New progress for a arrives (and is marked) after the run read the shard.
    await store.queries.push(a, [kafkaProgress(a, 2, T0)]);
    await store.pendingDetect.mark([a], Date.now() + 5);
    await store.pendingDetect.unmark(shardA, read);
    expect((await store.pendingDetect.read(shardA)).map((m) => m.queryId)).toEqual([a]);
    expect(await store.queries.loadIfPending(b)).toBeNull();
    const detect = detectWith();
    const outcome = await detect(job({ queryId: a, shard: shardA }));
    expect(outcome).toMatchObject({ observed: 2, queries: 1 });
    expect(await store.pendingDetect.read(shardA)).toEqual([]);
    expect(await store.queries.getTrackerState(b)).toBeNull();
  });

  it('two runs of one query at once: the one that loses the version race re-runs on fresh state in its job, nothing observed twice', async () => {
    const a = qid(7);
    await store.queries.push(a, [0, 1, 2].map((n) => kafkaProgress(a, n, T0)));
    const real = engineTrackers();
    const race: { single?: Promise<{ observed: number }> } = {};
    // While the group's run serializes its state, a single-query job for the same query starts.
    const racing: TrackerFactory = {
      create: (id, name) => {
        const tracker = real.create(id, name);
        const toState = tracker.toState.bind(tracker);
        tracker.toState = () => {
          race.single ??= detectWith()(job({ queryId: a }));
          return toState();
        };
        return tracker;
      },
      restore: real.restore,
    };
    const group = await detectWith(racing)(job({ queryId: a, queryIds: [a], tick: true }));
    const single = await race.single!;
    expect(group.observed + single.observed).toBe(3);
    expect((await store.streams.get(a))!).toMatchObject({ observedCount: 3, lastObservedBatchId: 2 });
    expect(await store.queries.inboxLength(a)).toBe(0);
  });

  it('the sweep ticks every stream in groups, nothing pending or not', async () => {
    const ids = Array.from({ length: 5 }, (_, i) => qid(20 + i));
    for (const id of ids) await store.streams.upsert({ queryId: id, name: `orders_${id.slice(-2)}` });
    const sweep = createPollProcessor({ store, queues, metrics: createMetrics({ processMetrics: false }), logger: silentLogger, sources: new Map() });
    await sweep({ name: 'sweep', id: 's1', data: {} } as Job<{ sourceId?: string }>);
    const waiting = await queues.detect.getJobs(['waiting'], 0, 100, true);
    expect(waiting).toHaveLength(1);
    expect(waiting[0]!.data).toMatchObject({ queryIds: [...ids].sort(), tick: true });
    const outcome = await detectWith()(job(waiting[0]!.data));
    expect(outcome.queries).toBe(5);
    for (const id of ids) expect(await store.queries.getTrackerState(id)).not.toBeNull();
  });
});
