/**
 * A capped Kafka query whose noisy input steps a little past what its cap admits: every batch reads
 * the cap and the offsets behind climb by about a tenth of the cap per batch, but noise leaves them
 * lower for a batch now and then, so they seldom rise at each of 5 batches in a row. Lag opens at
 * the latest once, over the last 8 batches at the cap, they rose to their highest by 5 % of the cap
 * per batch with a Mann–Kendall trend (S ≥ 18, as a capped file source's files waiting). Generated
 * streams, 30 seeds; the offsets behind are read from the reports as Spark prints them.
 */
import { describe, expect, it } from 'vitest';
import { mannKendallS } from '../../src/diagnosis/statistics.js';
import { steppedRate, type StreamSpec } from '../../src/simulator/index.js';
import { MIN, START, opened, runStream } from './run-stream.js';

const CAP = 60_000;
const STEP_AT = START + 5 * MIN;

/** 8 partitions capped at 60,000 offsets (about 15,800 rows/s); the input steps from about 80 % to 111 % of that. */
const spec: StreamSpec = {
  name: 'orders_raw',
  arrival: steppedRate(12_600, [{ atMs: STEP_AT, rowsPerSec: 17_500 }]),
  arrivalNoise: 0.12,
  processing: { rowsPerSecPerCore: 3_000, cores: 16, overheadMs: 1_000 },
  triggerMs: 2_000,
  source: { kind: 'kafka', partitions: 8, maxOffsetsPerTrigger: CAP },
  platform: 'spark-3.5',
};

interface Report {
  numInputRows: number;
  sources: { endOffset: Record<string, Record<string, number>>; latestOffset: Record<string, Record<string, number>> }[];
}

const total = (offsets: Record<string, Record<string, number>>) =>
  Object.values(offsets).reduce((sum, partitions) => sum + Object.values(partitions).reduce((a, b) => a + b, 0), 0);

/** The first batch at which the last 8 read the cap and their offsets behind rose as the rank test asks. */
function rankRiseAt(reports: Report[], from: number): number {
  const behind = reports.map((r) => total(r.sources[0]!.latestOffset) - total(r.sources[0]!.endOffset));
  for (let i = from + 7; i < reports.length; i += 1) {
    const window = behind.slice(i - 7, i + 1);
    const capped = reports.slice(i - 7, i + 1).every((r) => Math.abs(r.numInputRows - CAP) <= 0.01 * CAP);
    const steps = window.slice(1).map((b, k) => b - window[k]!);
    const rise = window[7]! - window[0]!;
    if (capped && window[7]! >= Math.max(...window) && rise >= 0.05 * CAP * 7 && Math.max(...steps) <= 0.6 * rise && mannKendallS(window) >= 18) return i;
  }
  return Infinity;
}

describe('a capped Kafka query a little past its cap, with noisy input', () => {
  it('opens once the offsets behind have risen over 8 batches at the cap, dips and all', () => {
    const late: string[] = [];
    let dipped = 0;
    for (let seed = 1; seed <= 30; seed += 1) {
      const run = runStream(spec, 160, {}, seed);
      const reports = run.json.map((line) => JSON.parse(line) as Report);
      const step = run.batches.findIndex((b) => b.truth.startMs >= STEP_AT);
      const lag = opened(run, 'lag');
      expect(lag.length, `seed ${seed}`).toBeGreaterThan(0);
      expect(lag[0]!.index, `seed ${seed}: no lag before the step`).toBeGreaterThanOrEqual(step);
      const due = rankRiseAt(reports, step);
      if (due < Infinity) {
        // The offsets behind fell at some batch of the last 5 there: the every-batch test alone waits.
        const behind = reports.slice(due - 4, due + 1).map((r) => total(r.sources[0]!.latestOffset) - total(r.sources[0]!.endOffset));
        if (behind.some((b, k) => k > 0 && b <= behind[k - 1]!)) dipped += 1;
      }
      if (lag[0]!.index > due) late.push(`seed ${seed}: opened at ${lag[0]!.index}, the offsets behind had risen by ${due}`);
    }
    expect(late).toEqual([]);
    // The case this is about happens in these streams.
    expect(dipped).toBeGreaterThanOrEqual(3);
  });
});
