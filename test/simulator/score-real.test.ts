/**
 * The real-trace scorer on generated streams: an expected incident with `resolveByBatchId` is scored
 * for when it resolved, and a relapse (the resolved incident re-opened within its cool-down) counts as
 * an opening where it happens, so a second lag in one trace is a false alarm as in the randomized eval.
 * In a trace of several queries interleaved, an expected incident names its query and batchIds are
 * that query's own.
 */
import { describe, expect, it } from 'vitest';
import { scoreRealTrace, type RealTraceLabels } from '../../src/simulator/evaluation/score-real.js';
import { StreamSimulator, steppedRate, type StreamSpec } from '../../src/simulator/index.js';

const START = Date.UTC(2026, 8, 14, 10);
const MIN = 60_000;

/** 20,000 rows/s of capacity at a 10 s trigger; input 60 % of it, 140 % during each window. */
function trace(windows: [number, number][], count = 260, name = 'orders'): { jsonl: string; batchAt: (ms: number) => number; endsMs: number[] } {
  const steps = windows.flatMap(([from, to]) => [
    { atMs: START + from * MIN, rowsPerSec: 28_000 },
    { atMs: START + to * MIN, rowsPerSec: 12_000 },
  ]);
  const spec: StreamSpec = {
    name,
    arrival: steppedRate(12_000, steps),
    processing: { rowsPerSecPerCore: 2_500, cores: 8 },
    triggerMs: 10_000,
    source: { kind: 'kafka', topic: 'orders', partitions: 8 },
  };
  const batches = new StreamSimulator(spec, { startMs: START, seed: name.length }).take(count);
  const batchAt = (ms: number) => batches.find((b) => b.endMs >= START + ms)!.truth.batchId;
  return { jsonl: batches.map((b) => b.json).join('\n'), batchAt, endsMs: batches.map((b) => b.endMs) };
}

const labels = (expect: RealTraceLabels['expect']): RealTraceLabels => ({ trace: 't.jsonl', description: '', expect, allow: [] });

describe('scoreRealTrace', () => {
  it('says when an expected incident resolved, and null while it is still open', () => {
    const { jsonl, batchAt } = trace([[10, 14]]);
    const onset = batchAt(10 * MIN);
    const score = scoreRealTrace('dip', jsonl, labels([{ kind: 'lag', onsetBatchId: onset, detectByBatchId: onset + 8, resolveByBatchId: onset + 200 }]));
    const lag = score.expected[0]!;
    expect(lag.found).not.toBeNull();
    expect(lag.resolvedAfterBatchId).not.toBeNull();
    expect(lag.resolvedAfterBatchId!).toBeGreaterThan(batchAt(14 * MIN));
    expect(score.falseAlarms).toEqual([]);

    // Back to back at 140 %, batches grow by 40 % each: 75 batches end hours before the overload does.
    const stillOpen = trace([[10, 24 * 60]], 75);
    const late = stillOpen.batchAt(10 * MIN);
    const open = scoreRealTrace('open', stillOpen.jsonl, labels([{ kind: 'lag', onsetBatchId: late, detectByBatchId: late + 8, resolveByBatchId: late + 20 }]));
    expect(open.expected[0]!.found).not.toBeNull();
    expect(open.expected[0]!.resolvedAfterBatchId).toBeNull();
  });

  it('counts a relapse within the cool-down as an opening: a false alarm when only one episode is expected', () => {
    // Two overloads 12 minutes apart: the second re-opens the first incident (same id) inside the
    // 30-minute cool-down.
    const { jsonl, batchAt } = trace([
      [10, 14],
      [26, 30],
    ]);
    const onset = batchAt(10 * MIN);
    const score = scoreRealTrace('twice', jsonl, labels([{ kind: 'lag', onsetBatchId: onset, detectByBatchId: onset + 8 }]));
    expect(score.expected[0]!.found).not.toBeNull();
    expect(score.falseAlarms.map((o) => o.kind)).toEqual(['lag']);
    expect(score.falseAlarms[0]!.incidentId).toBe(score.expected[0]!.found!.incidentId);
    expect(score.falseAlarms[0]!.afterBatchId!).toBeGreaterThanOrEqual(batchAt(26 * MIN) - 2);
  });

  it('in a trace of several queries, takes only the named query\'s opening, counted in its own batches', () => {
    const lagging = trace([[10, 14]], 120, 'orders');
    // A healthy query whose batches are offset by 25: its batchId at any time is not the lagging one's.
    const healthy = new StreamSimulator(
      { name: 'clicks', arrival: 5_000, processing: { rowsPerSecPerCore: 2_500, cores: 8 }, triggerMs: 10_000, source: { kind: 'kafka', topic: 'clicks', partitions: 4 } },
      { startMs: START - 250_000, seed: 3 },
    )
      .take(400)
      // Both report to the end: a query that stops reporting while the other goes on is a stall.
      .filter((b) => b.endMs <= lagging.endsMs.at(-1)!);
    // Interleaved by the time each report was written (its batch's end), as the progress table is read.
    const lines = [
      ...lagging.jsonl.split('\n').map((json, i) => ({ json, atMs: lagging.endsMs[i]! })),
      ...healthy.map((b) => ({ json: b.json, atMs: b.endMs })),
    ].sort((a, b) => a.atMs - b.atMs);
    const jsonl = lines.map((l) => l.json).join('\n');
    const onset = lagging.batchAt(10 * MIN);
    const named = scoreRealTrace('mixed', jsonl, labels([{ kind: 'lag', query: 'orders', onsetBatchId: onset, detectByBatchId: onset + 8 }]));
    expect(named.queries).toBe(2);
    expect(named.expected[0]!.found).toMatchObject({ query: 'orders' });
    expect(named.expected[0]!.delayBatches!).toBeLessThanOrEqual(8);
    expect(named.falseAlarms.map((o) => [o.query, o.kind, o.afterBatchId])).toEqual([]);
    // Labelled on the healthy query instead: nothing there to find, and the lag is a false alarm.
    const wrong = scoreRealTrace('mixed', jsonl, labels([{ kind: 'lag', query: 'clicks', onsetBatchId: onset, detectByBatchId: onset + 8 }]));
    expect(wrong.expected[0]!.found).toBeNull();
    expect(wrong.falseAlarms.map((o) => o.query)).toEqual(['orders']);
  });
});
