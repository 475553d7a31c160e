/**
 * The real-trace scorer on generated streams: an expected incident with `resolveByBatchId` is scored
 * for when it resolved, and a relapse (the resolved incident re-opened within its cool-down) counts as
 * an opening where it happens, so a second lag in one trace is a false alarm as in the randomized eval.
 */
import { describe, expect, it } from 'vitest';
import { scoreRealTrace, type RealTraceLabels } from '../../src/simulator/evaluation/score-real.js';
import { StreamSimulator, steppedRate, type StreamSpec } from '../../src/simulator/index.js';

const START = Date.UTC(2026, 8, 14, 10);
const MIN = 60_000;

/** 20,000 rows/s of capacity at a 10 s trigger; input 60 % of it, 140 % during each window. */
function trace(windows: [number, number][], count = 260): { jsonl: string; batchAt: (ms: number) => number } {
  const steps = windows.flatMap(([from, to]) => [
    { atMs: START + from * MIN, rowsPerSec: 28_000 },
    { atMs: START + to * MIN, rowsPerSec: 12_000 },
  ]);
  const spec: StreamSpec = {
    name: 'orders',
    arrival: steppedRate(12_000, steps),
    processing: { rowsPerSecPerCore: 2_500, cores: 8 },
    triggerMs: 10_000,
    source: { kind: 'kafka', topic: 'orders', partitions: 8 },
  };
  const batches = new StreamSimulator(spec, { startMs: START, seed: 7 }).take(count);
  const batchAt = (ms: number) => batches.find((b) => b.endMs >= START + ms)!.truth.batchId;
  return { jsonl: batches.map((b) => b.json).join('\n'), batchAt };
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
});
