/**
 * One bad progress row never stops a source's ingestion: a report nested thousands of levels deep
 * (read from the local Databricks' progress table) is stored within the depth bound, one that cannot
 * be encoded at all or carries an id no query has is skipped with a warning naming its row, the
 * others are stored and the cursor moves on; a poll retried after it failed may store its reports
 * again, and the detect run observes each of them once.
 */
import type { Job } from 'bullmq';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDetectProcessor } from '../../jobs/detect-processor.js';
import { engineTrackers } from '../../jobs/engine-trackers.js';
import { createPollProcessor } from '../../jobs/poll-processor.js';
import { PipelineQueues } from '../../jobs/queues.js';
import { createDatabricksClient } from '../../src/databricks/index.js';
import { createMetrics } from '../../src/observability/metrics.js';
import type { Progress } from '../../src/progress/types.js';
import { ProgressTableSource } from '../../src/sources/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';
import { RedisStore } from '../../src/store/index.js';
import { STORED_PROGRESS_MAX_DEPTH } from '../../src/store/inbox-codec.js';
import { fakeSource } from '../helpers/fake-source.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { storeAndQueuesPerTest } from '../helpers/store-and-queues.js';
import { silentLogger } from '../pipeline/helpers/harness.js';
import { simulatedBatches } from '../sources/simulated-progress.js';
import { kafkaProgress } from '../store/fixtures.js';

const T0 = Date.parse('2026-11-29T10:00:00.000Z');
const TABLE = 'main.streamdoctor.streaming_progress';
const fresh = storeAndQueuesPerTest('poll-bad-rows');
let store: RedisStore;
let queues: PipelineQueues;
beforeEach(() => {
  ({ store, queues } = fresh);
});

const pollJob = { name: 'poll', id: '1', data: { sourceId: 'ws.progress' } } as Job<{ sourceId?: string }>;

function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  return 1 + Math.max(0, ...Object.values(value).map(depthOf));
}

describe('poll: one bad progress row', () => {
  let local: LocalDatabricks | undefined;
  afterEach(async () => {
    await local?.close();
    local = undefined;
  });

  it('a progress_json nested 6,000 levels deep is stored within the depth bound; the other query and the cursor move on', async () => {
    const PAT = 'dapi-local-test-token-000000000001';
    const START = Date.UTC(2026, 8, 14, 10, 0, 0);
    local = await startLocalDatabricks({ tokens: [PAT], startMs: START, speed: 0 });
    const client = createDatabricksClient({ host: local.url, credentials: { kind: 'pat', token: PAT }, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 }, sleep: async () => undefined });
    const good = simulatedBatches('orders_agg', 6, START, 1);
    const bad = simulatedBatches('payments_agg', 1, START, 2)[0]!;
    // JSON.parse takes it; JSON.stringify of it overflows the stack.
    const nested = '{"a":'.repeat(6000) + '1' + '}'.repeat(6000);
    const badJson = bad.json.replace('"sources"', `"deep":${nested},"sources"`).replace('"startOffset":', `"startOffset":{"x":${nested}},"_s":`);
    for (const batch of good) local.insertProgress(batch.json, { ingestedAtMs: batch.endMs });
    local.insertProgress(badJson, { ingestedAtMs: good[0]!.endMs + 1 });
    local.clock.advance(10 * 60_000);
    const source = new ProgressTableSource({ client, warehouseId: '0c7d5e2f9a1b3c46', table: TABLE, watched: { queryIds: [good[0]!.id, bad.id], queryNames: [] }, now: () => local!.clock.now(), statement: { pollIntervalMs: 10 } });
    const poll = createPollProcessor({ store, queues, metrics: createMetrics({ processMetrics: false }), logger: silentLogger, sources: new Map([['ws.progress', { id: 'ws.progress', source }]]) });

    for (let i = 0; i < 3; i += 1) {
      await expect(poll(pollJob)).resolves.toMatchObject({ sourceId: 'ws.progress' });
      expect(await store.cursors.get('ws.progress')).not.toBeNull();
      // Re-reads of the overlap window are not stored again (the source's cursor leaves them out).
      expect(await store.queries.inboxLength(good[0]!.id)).toBe(6);
    }
    const load = await store.queries.loadForDetect(bad.id);
    expect(load.corrupt).toBe(0);
    expect(load.entries).toHaveLength(1);
    const stored = load.entries[0]!.progress;
    // The report's figures are kept; only the offset below the bound is cut.
    expect(stored).toMatchObject({ id: bad.id, batchId: bad.batchId, numInputRows: JSON.parse(bad.json).numInputRows });
    expect(depthOf(stored)).toBeLessThanOrEqual(STORED_PROGRESS_MAX_DEPTH);
  });

  it('a report that cannot be encoded, or whose id is no query’s, is skipped with a warning naming its row', async () => {
    const a = 'aaaaaaaa-0000-4000-8000-00000000000a';
    const b = 'bbbbbbbb-0000-4000-8000-00000000000b';
    const huge = 'q'.repeat(5_000);
    // A BigInt cannot be written as JSON (TypeError from JSON.stringify).
    const unencodable = kafkaProgress(b, 1, T0, { durationMs: { addBatch: 10n as unknown as number } });
    const ref = (p: Progress) => `${TABLE} query_id=${p.id} run_id=${p.runId} batch_id=${p.batchId}`;
    const reports = [kafkaProgress(a, 1, T0), kafkaProgress(a, 2, T0), unencodable, kafkaProgress(b, 2, T0), kafkaProgress(huge, 1, T0), kafkaProgress(a, 3, T0)];
    const source = fakeSource(async () => ({
      progress: reports.map((progress) => ({ progress, origin: { source: 'progress_table' as const, ref: ref(progress) } })),
      cursor: { v: 1, watermarkUs: 1_795_000_000_000_000 },
    }));
    const { lines, logger } = capturedLogger();
    const poll = createPollProcessor({ store, queues, metrics: createMetrics({ processMetrics: false }), logger, sources: new Map([['ws.progress', { id: 'ws.progress', source }]]) });

    expect(await poll(pollJob)).toMatchObject({ progress: 6, skipped: 2 });
    expect(await store.cursors.get('ws.progress')).toBe(JSON.stringify({ v: 1, watermarkUs: 1_795_000_000_000_000 }));
    expect(await store.queries.inboxLength(a)).toBe(3);
    expect((await store.queries.loadForDetect(b)).entries.map((e) => e.progress.batchId)).toEqual([2]);
    expect(await store.streams.get(huge)).toBeNull();

    const skipped = lines.filter((line) => line.msg === 'progress report skipped: it cannot be stored');
    expect(skipped).toHaveLength(2);
    const [notJson, notAnId] = [skipped.find((line) => line.queryId === b)!, skipped.find((line) => line.queryId !== b)!];
    expect(notJson).toMatchObject({ level: 'warn', sourceId: 'ws.progress', batchId: 1, row: ref(unencodable) });
    expect(String(notJson.reason)).toMatch(/BigInt/);
    expect(notAnId).toMatchObject({ batchId: 1, reason: 'query or run id longer than 128 characters' });
    expect(String(notAnId.queryId).length).toBeLessThanOrEqual(128);
  });

  it('a poll that fails before it saves its cursor, retried, may store its reports again; detect observes each once', async () => {
    const a = 'aaaaaaaa-0000-4000-8000-00000000000a';
    const source = fakeSource(async () => ({ progress: [1, 2, 3].map((n) => ({ progress: kafkaProgress(a, n, T0) })), cursor: { v: 1, watermarkUs: 1 } }));
    const poll = createPollProcessor({ store, queues, metrics: createMetrics({ processMetrics: false }), logger: silentLogger, sources: new Map([['ws.progress', { id: 'ws.progress', source }]]) });
    const save = store.cursors.set.bind(store.cursors);
    let failures = 1;
    store.cursors.set = async (...args) => {
      if (failures-- > 0) throw new Error('READONLY You can’t write against a read only replica.');
      return save(...args);
    };
    await expect(poll(pollJob)).rejects.toThrow(/READONLY/);
    expect(await store.cursors.get('ws.progress')).toBeNull();
    // The retry reads the same rows again (the cursor did not move) and stores them again.
    await poll(pollJob);
    expect(await store.cursors.get('ws.progress')).toBe(JSON.stringify({ v: 1, watermarkUs: 1 }));
    expect(await store.queries.inboxLength(a)).toBe(6);

    // Detect observes each report once: the second copies are skipped as already observed.
    const detect = createDetectProcessor({ store, queues, trackers: engineTrackers(), metrics: createMetrics({ processMetrics: false }), logger: silentLogger, now: () => T0 + 200_000 });
    const detectJob = { data: { queryId: a } } as Job<{ queryId: string }>;
    expect(await detect(detectJob)).toMatchObject({ observed: 3, duplicates: 3 });
    expect(await store.queries.inboxLength(a)).toBe(0);
    expect(await store.streams.get(a)).toMatchObject({ observedCount: 3, lastObservedBatchId: 3 });
    // Later reports of the query are observed as usual.
    await store.queries.push(a, [kafkaProgress(a, 3, T0), kafkaProgress(a, 4, T0)]);
    expect(await detect(detectJob)).toMatchObject({ observed: 1, duplicates: 1 });
    expect(await store.streams.get(a)).toMatchObject({ observedCount: 4, lastObservedBatchId: 4 });
  });
});
