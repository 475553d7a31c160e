/**
 * A saved tracker state that cannot be used never wedges detect: one that is not JSON, one that
 * parses but is not a tracker's (restore refuses it), and one the engine throws on are discarded
 * with one warning, the query starts afresh on the same progress, its inbox drains, and the
 * incidents the lost state had open are closed, saying why, rather than left open in Slack.
 */
import { readFileSync } from 'node:fs';
import type { Job } from 'bullmq';
import { beforeEach, describe, expect, it } from 'vitest';
import { createDetectProcessor } from '../../jobs/detect-processor.js';
import { engineTrackers } from '../../jobs/engine-trackers.js';
import { PipelineQueues } from '../../jobs/queues.js';
import type { TrackerFactory } from '../../jobs/tracker-factory.js';
import { QueryTracker, type TrackerState } from '../../src/diagnosis/query-tracker.js';
import type { Incident } from '../../src/diagnosis/types.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { readProgressInput } from '../../src/progress/read-progress-input.js';
import type { Progress } from '../../src/progress/types.js';
import { RedisStore } from '../../src/store/index.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { storeAndQueuesPerTest } from '../helpers/store-and-queues.js';
import { silentLogger } from '../pipeline/helpers/harness.js';
import { kafkaProgress } from '../store/fixtures.js';

const fresh = storeAndQueuesPerTest('detect-corrupt');
let store: RedisStore;
let queues: PipelineQueues;
beforeEach(() => {
  ({ store, queues } = fresh);
});

/** A real Kafka query whose capped reads fall behind: lag is open after its first 150 batches. */
const overload: Progress[] = readProgressInput(readFileSync(new URL('../fixtures/real-spark/kafka-capped-overload.jsonl', import.meta.url), 'utf8')).records.map((r) => r.progress);
const QID = overload[0]!.id;
const endOf = (p: Progress) => p.timestampMs + p.batchDurationMs;

/** Pushes `reports` in poll-sized slices, running detect after each at the newest report's end. */
async function feed(reports: Progress[], detect: (nowMs: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < reports.length; i += 20) {
    const slice = reports.slice(i, i + 20);
    await store.queries.push(QID, slice);
    await detect(endOf(slice.at(-1)!));
  }
}

const corruptions: [string, (stateText: string) => string][] = [
  ['is not JSON', (text) => text.slice(0, text.length / 2)],
  ['has open.lag = null', (text) => JSON.stringify({ ...JSON.parse(text), open: { lag: null } })],
  ['lacks open.lag.memo', (text) => { const s = JSON.parse(text) as TrackerState; delete (s.open.lag as Partial<NonNullable<TrackerState['open']['lag']>>).memo; return JSON.stringify(s); }],
  ['lacks the open incident’s causes', (text) => { const s = JSON.parse(text) as TrackerState; delete (s.open.lag!.incident as Partial<Incident>).causes; return JSON.stringify(s); }],
];

describe('detect with a tracker state that cannot be used', () => {
  it.each(corruptions)('a state that %s is discarded once, the inbox drains and the open lag incident is closed saying why', async (_what, corrupt) => {
    const { lines, logger } = capturedLogger();
    let nowMs = 0;
    const detect = createDetectProcessor({ store, queues, trackers: engineTrackers(), metrics: createMetrics({ processMetrics: false }), logger, now: () => nowMs });
    const run = (at: number) => {
      nowMs = at;
      return detect({ data: { queryId: QID } } as Job<{ queryId: string }>);
    };
    await store.streams.upsert({ queryId: QID, name: 'kafka_capped_overload' });
    await feed(overload.slice(0, 150), run);
    const [lag] = await store.incidents.listForQuery(QID);
    expect(lag).toMatchObject({ kind: 'lag', state: 'open' });

    const key = store.keys.trackerState(QID);
    await fresh.redis.set(key, corrupt((await fresh.redis.get(key))!));
    const rest = overload.slice(150, 170);
    await store.queries.push(QID, rest);
    await expect(run(endOf(rest.at(-1)!))).resolves.toMatchObject({ observed: rest.length });
    expect(await store.queries.inboxLength(QID)).toBe(0);
    // The fresh state is a tracker's again, and the next run restores it without a word.
    const saved = (await store.queries.getTrackerState(QID))!.state as TrackerState;
    expect(() => QueryTracker.restore(saved)).not.toThrow();

    const closed = (await store.incidents.get(lag!.id))!;
    expect(closed.state).toBe('resolved');
    expect(closed.incident.summary).toMatch(/^Closed unconfirmed: StreamDoctor could not use its saved detection state/);
    expect((await queues.notify.getJobs(['waiting'])).map((j) => j.id)).toContain(`notify.${lag!.id}.v${closed.version}`);
    const warnings = lines.filter((line) => line.msg === 'tracker state discarded; detection starts afresh for this query');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: 'warn', queryId: QID, closed: [lag!.id] });

    const more = overload.slice(170, 175);
    await store.queries.push(QID, more);
    await run(endOf(more.at(-1)!));
    expect(lines.filter((line) => line.msg === 'tracker state discarded; detection starts afresh for this query')).toHaveLength(1);
  });

  it('a tracker that throws on its restored state for one query of a group does not hold up the others', async () => {
    const real = engineTrackers();
    const poisoned = 'bbbbbbbb-0000-4000-8000-00000000000b';
    const healthy = 'aaaaaaaa-0000-4000-8000-00000000000a';
    // A state restore accepts but the engine cannot serialize (what a validator may not foresee).
    const trackers: TrackerFactory = {
      create: real.create,
      restore: (state) => {
        const tracker = real.restore(state);
        if ((state as TrackerState).id === poisoned) {
          tracker.snapshot = () => {
            throw new TypeError("Cannot read properties of null (reading 'incident')");
          };
        }
        return tracker;
      },
    };
    const T0 = Date.parse('2026-11-29T10:00:00.000Z');
    const detect = createDetectProcessor({ store, queues, trackers, metrics: createMetrics({ processMetrics: false }), logger: silentLogger, now: () => T0 + 200_000 });
    const group = { data: { queryIds: [poisoned, healthy] } } as Job<{ queryIds: string[] }>;
    for (const id of [poisoned, healthy]) await store.queries.push(id, [0, 1, 2].map((b) => kafkaProgress(id, b, T0)));
    await detect(group as never);
    for (const id of [poisoned, healthy]) await store.queries.push(id, [3, 4].map((b) => kafkaProgress(id, b, T0)));
    await expect(detect(group as never)).resolves.toMatchObject({ observed: 4, queries: 2 });
    for (const id of [poisoned, healthy]) {
      expect(await store.queries.inboxLength(id)).toBe(0);
      expect((await store.streams.get(id))!.lastObservedBatchId).toBe(4);
    }
  });
});
