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
import { streamLine } from '../../src/slack/render/status-table.js';
import { MIN, START } from './run-stream.js';

function track(cap: number | null): QueryTracker {
  const sim = new StreamSimulator(
    {
      name: 'payments_raw',
      arrival: steppedRate(6_000, [{ atMs: START + 20 * MIN, rowsPerSec: 9_000 }]),
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
    expect(text).toMatch(/Note: these reports carry no backlog figure .* lag shows here only once the cap has bound for 30m/);

    const line = streamLine({ queryId: 'q', name: 'payments_raw', health: snapshot.health, backlogUnreported: true, lastProgressAt: snapshot.lastProgressAt }, Date.parse(snapshot.lastProgressAt!));
    expect(line).toContain('backlog not reported (capped; these reports print none)');
  });

  it('is not flagged uncapped, where the batch durations carry the backlog', () => {
    const tracker = track(null);
    expect(tracker.snapshot().backlogUnreported).toBe(false);
    expect(renderTextReport({ queries: [tracker.report()] } as never, new Map([['q', tracker.snapshot()]]))).not.toMatch(/Note:/);
  });
});
