/**
 * Spark 3.0-era Kafka reports carry no latestOffset and no source metrics. Uncapped, the batch
 * durations carry the backlog; capped, every batch reads the same count whether a burst drains or
 * arrivals outrun the cap for good, so how far behind the query is cannot be read. People are told
 * so where they look (the snapshot, the text report, `/stream status`), not left with a green "ok".
 */
import { describe, expect, it } from 'vitest';
import { QueryTracker } from '../../src/diagnosis/query-tracker.js';
import { renderTextReport } from '../../src/diagnosis/text-report.js';
import { parseProgress } from '../../src/progress/parse-progress.js';
import { StreamSimulator, steppedRate } from '../../src/simulator/index.js';
import { readFileSync } from 'node:fs';
import { readProgressInput } from '../../src/progress/read-progress-input.js';
import { toStreamView } from '../../src/slack/operations/stream-views.js';
import { streamLine } from '../../src/slack/render/status-table.js';
import type { StreamRecord } from '../../src/store/types.js';
import { MIN, START } from './run-stream.js';

function track(cap: number | null, noise = 0.05): QueryTracker {
  const sim = new StreamSimulator(
    {
      name: 'payments_raw',
      arrival: steppedRate(6_000, [{ atMs: START + 20 * MIN, rowsPerSec: 9_000 }]),
      arrivalNoise: noise,
      processing: { rowsPerSecPerCore: 2_500, cores: 8, overheadMs: 600 },
      triggerMs: 10_000,
      source: { kind: 'kafka', partitions: 8, maxOffsetsPerTrigger: cap },
      platform: 'spark-3.0',
    },
    { startMs: START, seed: 4 },
  );
  const tracker = QueryTracker.create('q', 'payments_raw');
  for (let i = 0; i < 180; i += 1) {
    const parsed = parseProgress(JSON.parse(sim.next().json));
    if (!parsed.ok) throw new Error(parsed.error);
    tracker.observe(parsed.progress);
  }
  return tracker;
}

describe('a capped query whose reports carry no backlog figure', () => {
  it('is flagged in the snapshot, the text report and the status line', () => {
    const tracker = track(80_000);
    const snapshot = tracker.snapshot();
    expect(snapshot.timeBehindSec).toBeNull();
    expect(snapshot.backlogUnreported).toBe(true);

    const text = renderTextReport({ queries: [tracker.report()] } as never, new Map([['q', snapshot]]));
    expect(text).toMatch(/Note: these reports carry no backlog figure .* lag shows here once reads rise into the cap and stay there for 8 batches and 10s or more \(longer when the rise is within the reads' noise; 30m after a restart or a slow batch, whose backlog it may be draining, or sooner after a restart once the backlog estimated from the arrivals before it will not drain within that\)/);

    // As /stream status shows it: the stored snapshot through the view the renderers read.
    const record = { queryId: 'q', name: 'payments_raw', snapshot, health: snapshot.health, updatedAt: 0, lastRunId: null } as unknown as StreamRecord;
    const line = streamLine(toStreamView(record), Date.parse(snapshot.lastProgressAt!));
    expect(line).toContain('backlog not reported (capped; these reports print none)');
    expect(line).not.toMatch(/behind/);
  });

  it('is not flagged uncapped, where the batch durations carry the backlog, even on a nearly noiseless feed', () => {
    for (const noise of [0.05, 0.0005]) {
      const tracker = track(null, noise);
      expect(tracker.snapshot().backlogUnreported, `noise ${noise}`).toBe(false);
      expect(renderTextReport({ queries: [tracker.report()] } as never, new Map([['q', tracker.snapshot()]]))).not.toMatch(/Note:/);
    }
  });

  it('is not flagged for other sources reading a steady count (real local Spark, a rate source)', () => {
    const text = readFileSync(new URL('../fixtures/real-spark/healthy.jsonl', import.meta.url), 'utf8');
    const records = readProgressInput(text).records;
    const tracker = QueryTracker.create(records[0]!.progress.id, null);
    for (const { progress } of records) {
      tracker.observe(progress);
      expect(tracker.snapshot().backlogUnreported).toBe(false);
    }
  });
});
