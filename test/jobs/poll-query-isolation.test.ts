/**
 * One query whose keys Redis refuses to write (a meta field of the wrong type, so the inbox push's
 * HINCRBY fails) never fails the whole poll: that query's reports are skipped with a warning naming
 * it, the others are stored and marked for detect, and the cursor moves on. Real Redis and queues.
 */
import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { createPollProcessor } from '../../jobs/poll-processor.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { fakeSource } from '../helpers/fake-source.js';
import { storeAndQueuesPerTest } from '../helpers/store-and-queues.js';
import { kafkaProgress } from '../store/fixtures.js';

const fresh = storeAndQueuesPerTest('poll-isolation');
const IDS = ['0a1b2c3d-0000-4000-8000-00000000e011', '0a1b2c3d-0000-4000-8000-00000000e012', '0a1b2c3d-0000-4000-8000-00000000e013'];

describe('poll: one query whose keys cannot be written', () => {
  it.each(['x', '1.5', '99999999999999999999'])('inboxSeq = %s: the other queries are stored and detected, the cursor saved', async (bad) => {
    const { store, queues, redis } = fresh;
    const { lines, logger } = capturedLogger();
    const T0 = Date.now() - 60_000;
    let round = 0;
    const source = fakeSource(async () => ({ progress: IDS.map((id) => ({ progress: kafkaProgress(id, round, T0) })), cursor: { round: ++round } }));
    const poll = createPollProcessor({ store, queues, metrics: createMetrics({ processMetrics: false }), logger, sources: new Map([['ws.progress', { id: 'ws.progress', source }]]) });
    await redis.hset(store.keys.streamMeta(IDS[1]!), 'inboxSeq', bad);

    const outcome = await poll({ name: 'poll', id: 'p1', data: { sourceId: 'ws.progress' } } as Job<{ sourceId?: string }>);
    expect(outcome).toMatchObject({ progress: 3, skipped: 1 });
    expect(await Promise.all(IDS.map((id) => store.queries.inboxLength(id)))).toEqual([1, 0, 1]);
    expect(await store.cursors.get('ws.progress')).toBe(JSON.stringify({ round: 1 }));
    const pending = (await Promise.all([...new Set(IDS.map((id) => store.pendingDetect.shardOf(id)))].map((s) => store.pendingDetect.read(s)))).flat().map((m) => m.queryId);
    expect(pending.sort()).toEqual([IDS[0], IDS[2]].sort());
    expect(lines.some((l) => l.level === 'warn' && l.queryId === IDS[1] && String(l.msg).includes('skipped'))).toBe(true);
  });
});
