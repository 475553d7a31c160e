/**
 * An alert open for an hour shows figures of the last quarter hour, not the ones it opened with:
 * detect asks the engine for the open incidents whose figures moved (`refreshFigures`) and the alert
 * is edited in place (chat.update), with "figures as of" in its status line and nothing in its
 * thread. Real Redis, the real engine and notify worker, the local Slack over HTTP.
 */
import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { createDetectProcessor } from '../../jobs/detect-processor.js';
import { engineTrackers } from '../../jobs/engine-trackers.js';
import { TUNING } from '../../src/diagnosis/engine-options.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { parseProgress } from '../../src/progress/parse-progress.js';
import type { Progress } from '../../src/progress/types.js';
import { StreamSimulator, steppedRate } from '../../src/simulator/index.js';
import { notifyWorkerPerTest, silentLogger, waitFor } from '../pipeline/helpers/harness.js';

const worker = notifyWorkerPerTest();
const CHANNEL = 'C0DATAALRT';
const QID = '5b7c9d1e-2f3a-4b5c-8d6e-7f8a9b0c1d2e';
const T = 30_000;
const START = Date.UTC(2026, 10, 29, 9, 0, 0);

/** Capped at 150,000 offsets a batch (5,000 rows/s on a 30 s trigger); from batch 20 on 6,500 rows/s arrive. */
function reports(count: number): Progress[] {
  const sim = new StreamSimulator(
    {
      id: QID,
      name: 'orders_enriched',
      processing: { rowsPerSecPerCore: 2_500, cores: 8 },
      triggerMs: T,
      arrival: steppedRate(4_000, [{ atMs: START + 20 * T, rowsPerSec: 6_500 }]),
      source: { kind: 'kafka', topic: 'orders', partitions: 8, maxOffsetsPerTrigger: 150_000 },
    },
    { startMs: START, seed: 7 },
  );
  return Array.from({ length: count }, () => {
    const parsed = parseProgress(JSON.parse(sim.next().json));
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.progress;
  });
}

describe('figures of an open alert', () => {
  it('are told again as the lag grows: the alert edited in place, its thread left alone', async () => {
    const { runtime: rt, slack } = await worker.start('refreshed-figures', { routing: { defaultChannel: CHANNEL }, channelIntervalMs: 0 });
    const all = reports(150);
    let nowMs = START;
    const detect = createDetectProcessor({ store: rt.store, queues: rt.queues, trackers: engineTrackers(), metrics: createMetrics({ processMetrics: false }), logger: silentLogger, now: () => nowMs });
    await rt.store.streams.upsert({ queryId: QID, name: 'orders_enriched' });
    // Polls of 10 reports (five minutes of batches), each followed by its detect run.
    for (let i = 0; i < all.length; i += 10) {
      const poll = all.slice(i, i + 10);
      await rt.store.queries.push(QID, poll);
      nowMs = poll.at(-1)!.timestampMs + poll.at(-1)!.batchDurationMs + 5_000;
      await detect({ data: { queryId: QID } } as Job<{ queryId: string }>);
    }
    const [record] = await rt.store.incidents.listForQuery(QID);
    expect(record).toMatchObject({ kind: 'lag', state: 'open' });
    // Opened with under a minute behind; after an hour it reads over ten.
    expect(record!.incident.metrics!.timeBehindSec!).toBeGreaterThan(10 * 60);
    const figuresAt = Date.parse(record!.incident.figuresAt!);
    // At most a quarter hour and a poll (ten batches) old.
    expect(all.at(-1)!.timestampMs - figuresAt).toBeLessThan(TUNING.refreshFiguresMs + 10 * T);
    expect(figuresAt - record!.openedAt).toBeGreaterThan(45 * 60_000);

    const asOf = `figures as of <!date^${Math.floor(figuresAt / 1000)}^`;
    const shown = await waitFor(
      () => slack.messages(CHANNEL).find((m) => !m.thread_ts && JSON.stringify(m.blocks).includes(asOf)),
      'the alert edited with its figures of the last quarter hour',
    );
    expect(JSON.stringify(shown.blocks)).toContain(record!.incident.summary.split(':')[0]!);
    expect(slack.messages(CHANNEL).filter((m) => !m.thread_ts)).toHaveLength(1);
    expect(slack.thread(CHANNEL, shown.ts).filter((m) => m.ts !== shown.ts)).toEqual([]);
    // Opened, then told again about every quarter hour of the hour since (notify renders the latest
    // version, so edits that queue up land as one).
    expect(record!.version).toBeGreaterThanOrEqual(4);
    expect(record!.version).toBeLessThanOrEqual(6);
    expect(slack.calls('chat.update').length).toBeGreaterThanOrEqual(1);
  });
});
