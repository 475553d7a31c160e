/**
 * A malformed value in a query's meta or history hash (the commit script reads them back) never
 * loses an alert: Redis keeps what a script wrote before an error, so a commit that failed half-way
 * saved the state with lag open and no incident record, and the retry found nothing new. The
 * commit repairs such values and detect says which.
 */
import { readFileSync } from 'node:fs';
import type { Job } from 'bullmq';
import { beforeEach, expect, it } from 'vitest';
import { createDetectProcessor } from '../../jobs/detect-processor.js';
import { engineTrackers } from '../../jobs/engine-trackers.js';
import { PipelineQueues } from '../../jobs/queues.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { readProgressInput } from '../../src/progress/read-progress-input.js';
import type { Progress } from '../../src/progress/types.js';
import { RedisStore } from '../../src/store/index.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { storeAndQueuesPerTest } from '../helpers/store-and-queues.js';

const fresh = storeAndQueuesPerTest('detect-commit-repair');
let store: RedisStore;
let queues: PipelineQueues;
beforeEach(() => ({ store, queues } = fresh));

/** Real Spark: lag opens at batch 47. */
const trace: Progress[] = readProgressInput(readFileSync(new URL('../fixtures/real-spark/capacity-dip.jsonl', import.meta.url), 'utf8')).records.map((r) => r.progress);
const QID = trace[0]!.id;
const endOf = (p: Progress) => p.timestampMs + p.batchDurationMs;

it.each([
  ['meta.observed = "12.5"', () => fresh.redis.hset(store.keys.streamMeta(QID), 'observed', '12.5')],
  ['a history field "x"', () => fresh.redis.hset(store.keys.timeBehindHistory(QID), 'x', '1')],
  ['meta.stateVersion = "v7"', () => fresh.redis.hset(store.keys.streamMeta(QID), 'stateVersion', 'v7')],
])('%s before the run that opens lag: the lag incident is recorded and the repair logged', async (_what, poke) => {
  const { lines, logger } = capturedLogger();
  let nowMs = 0;
  const detect = createDetectProcessor({ store, queues, trackers: engineTrackers(), metrics: createMetrics({ processMetrics: false }), logger, now: () => nowMs });
  const run = async (slice: Progress[]) => {
    await store.queries.push(QID, slice);
    nowMs = endOf(slice.at(-1)!);
    return detect({ data: { queryId: QID } } as Job<never>);
  };
  await store.streams.upsert({ queryId: QID, name: 'dip' });
  await run(trace.slice(0, 40));
  await poke();
  await expect(run(trace.slice(40, 60))).resolves.toMatchObject({ observed: 20 });
  const records = await store.incidents.listForQuery(QID);
  expect(records.map((r) => `${r.kind}:${r.state}`)).toContain('lag:open');
  expect(await store.queries.inboxLength(QID)).toBe(0);
  expect((await store.streams.get(QID))!.observedCount).toBeGreaterThanOrEqual(20);
  expect(lines.filter((l) => l.msg === 'stored values of this query were malformed; the commit repaired them')).toMatchObject([{ level: 'warn', queryId: QID }]);
});
