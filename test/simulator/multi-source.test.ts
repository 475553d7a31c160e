import { describe, expect, it } from 'vitest';
import { StreamSimulator, steppedRate, type StreamSpec } from '../../src/simulator/index.js';

type Obj = Record<string, unknown>;
type Offsets = Record<string, Record<string, number>>;
const sum = (o: unknown) => Object.values(o as Offsets).reduce((a, p) => a + Object.values(p).reduce((x, y) => x + y, 0), 0);
const T0 = Date.UTC(2026, 8, 14, 10, 0, 0);

const join: StreamSpec = {
  name: 'ad_attribution',
  arrival: 9_000,
  source: { kind: 'kafka', topic: 'impressions', partitions: 8 },
  extraSources: [
    {
      source: { kind: 'kafka', topic: 'clicks', partitions: 4, maxOffsetsPerTrigger: 60_000 },
      arrival: steppedRate(1_000, [{ atMs: T0 + 20 * 60_000, rowsPerSec: 3_000 }]),
    },
  ],
  processing: { rowsPerSecPerCore: 2_500, cores: 8 },
  triggerMs: 30_000,
  state: { operator: 'symmetricHashJoin', watermarkMs: 15 * 60_000 },
};

describe('several sources (a stream-stream join)', () => {
  const batches = new StreamSimulator(join, { startMs: T0, seed: 8 }).take(90);

  it('sources[] lists every input in order; top-level rows and rates are their sums', () => {
    for (const b of batches.slice(1)) {
      const sources = b.progress.sources as Obj[];
      expect(sources.map((s) => s.description)).toEqual(['KafkaV2[Subscribe[impressions]]', 'KafkaV2[Subscribe[clicks]]']);
      expect(b.progress.numInputRows).toBe((sources[0]!.numInputRows as number) + (sources[1]!.numInputRows as number));
      expect(b.progress.inputRowsPerSecond as number).toBeCloseTo(
        (sources[0]!.inputRowsPerSecond as number) + (sources[1]!.inputRowsPerSecond as number),
        6,
      );
      expect(b.progress.processedRowsPerSecond as number).toBeCloseTo(
        (sources[0]!.processedRowsPerSecond as number) + (sources[1]!.processedRowsPerSecond as number),
        6,
      );
      for (const s of sources) {
        if (s.startOffset !== null) expect(sum(s.endOffset) - sum(s.startOffset)).toBe(s.numInputRows);
      }
    }
  });

  it('only the capped side falls behind; the truth backlog is the sum of both sides', () => {
    const late = batches.slice(60);
    for (const b of late) {
      const [impressions, clicks] = b.progress.sources as Obj[];
      // The cap, each of the 4 partitions' shares floored (Spark's rate limit).
      expect(clicks!.numInputRows).toBeLessThanOrEqual(60_000);
      expect(clicks!.numInputRows).toBeGreaterThan(60_000 - 4);
      expect((impressions!.metrics as Record<string, string>).maxOffsetsBehindLatest).not.toBe('0');
      const behind = (s: Obj) => sum(s.latestOffset) - sum(s.endOffset);
      expect(behind(impressions!) + behind(clicks!)).toBe(b.truth.backlogRows);
    }
    const clicksBehind = late.map((b) => {
      const c = (b.progress.sources as Obj[])[1]!;
      return sum(c.latestOffset) - sum(c.endOffset);
    });
    // (3,000 − 60,000 / 30 s) × 30 s = 30,000 more offsets per batch.
    expect((clicksBehind[29]! - clicksBehind[0]!) / 29).toBeGreaterThan(30_000 * 0.9);
    expect((clicksBehind[29]! - clicksBehind[0]!) / 29).toBeLessThan(30_000 * 1.1);
    expect(late[0]!.truth.loadFactor).toBeCloseTo(1.5, 1);
    expect(late[0]!.truth.arrivalRate).toBe(12_000);
  });

  it('a join has four state store instances per partition', () => {
    const op = (batches[10]!.progress.stateOperators as Obj[])[0]!;
    expect(op.operatorName).toBe('symmetricHashJoin');
    expect(op.numStateStoreInstances).toBe((op.numShufflePartitions as number) * 4);
  });
});
