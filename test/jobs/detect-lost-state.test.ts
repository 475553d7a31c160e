/**
 * A saved state that is gone or cannot be trusted while an incident is open goes the discarded-state
 * way (closed unconfirmed, one warning), never taken for a new query's: evicted, emptied or null
 * while the stored version says one was saved, JSON that is no state, and an open incident whose
 * openedAt is no date (its id would name a phantom record, leaving the real alert open).
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

const fresh = storeAndQueuesPerTest('detect-lost-state');
let store: RedisStore;
let queues: PipelineQueues;
beforeEach(() => ({ store, queues } = fresh));

/** A real Kafka query whose capped reads fall behind: lag is open after its first 150 batches. */
const overload: Progress[] = readProgressInput(readFileSync(new URL('../fixtures/real-spark/kafka-capped-overload.jsonl', import.meta.url), 'utf8')).records.map((r) => r.progress);
const QID = overload[0]!.id;
const endOf = (p: Progress) => p.timestampMs + p.batchDurationMs;
const DISCARDED = 'tracker state discarded; detection starts afresh for this query';

const stateKey = () => store.keys.trackerState(QID);
const withOpenedAt = (openedAt: string) => async () => {
  const s = JSON.parse((await fresh.redis.get(stateKey()))!) as { open: { lag: { incident: { openedAt: string } } } };
  s.open.lag.incident.openedAt = openedAt;
  await fresh.redis.set(stateKey(), JSON.stringify(s));
};

it.each([
  ['deleted (evicted)', () => fresh.redis.del(stateKey())],
  ['an empty string', () => fresh.redis.set(stateKey(), '')],
  ['JSON null', () => fresh.redis.set(stateKey(), 'null')],
  ['JSON 0', () => fresh.redis.set(stateKey(), '0')],
  ['an open lag whose openedAt is "NaN"', withOpenedAt('NaN')],
  ['an open lag whose openedAt is "2026-13-45T99:99:99Z"', withOpenedAt('2026-13-45T99:99:99Z')],
])('a state %s while lag is open: the open lag is closed unconfirmed, with one warning', async (_what, lose) => {
  const { lines, logger } = capturedLogger();
  let nowMs = 0;
  const detect = createDetectProcessor({ store, queues, trackers: engineTrackers(), metrics: createMetrics({ processMetrics: false }), logger, now: () => nowMs });
  const feed = async (slice: Progress[]) => {
    for (let i = 0; i < slice.length; i += 20) {
      const part = slice.slice(i, i + 20);
      await store.queries.push(QID, part);
      nowMs = endOf(part.at(-1)!);
      await detect({ data: { queryId: QID } } as Job<never>);
    }
  };
  await store.streams.upsert({ queryId: QID, name: 'kafka_capped_overload' });
  await feed(overload.slice(0, 150));
  const [lag] = await store.incidents.listForQuery(QID);
  expect(lag).toMatchObject({ kind: 'lag', state: 'open' });
  await lose();
  await feed(overload.slice(150, 190));
  const closed = (await store.incidents.get(lag!.id))!;
  expect(closed.state).toBe('resolved');
  expect(closed.incident.summary).toMatch(/^Closed unconfirmed: StreamDoctor could not use its saved detection state/);
  expect(lines.filter((l) => l.msg === DISCARDED)).toMatchObject([{ level: 'warn', queryId: QID, closed: [lag!.id] }]);
  // No record under an id that is not an epoch (a phantom of a bad openedAt).
  for (const record of await store.incidents.listForQuery(QID)) expect(record.id).toMatch(/\.lag\.\d+$/);
});

it('a query that never saved a state starts without a warning', async () => {
  const { lines, logger } = capturedLogger();
  const detect = createDetectProcessor({ store, queues, trackers: engineTrackers(), metrics: createMetrics({ processMetrics: false }), logger, now: () => endOf(overload[19]!) });
  await store.queries.push(QID, overload.slice(0, 20));
  await expect(detect({ data: { queryId: QID } } as Job<never>)).resolves.toMatchObject({ observed: 20 });
  expect(lines.filter((l) => l.msg === DISCARDED)).toEqual([]);
});
