/**
 * A capped Kafka query whose noisy input steps a little past what its cap admits: every batch reads
 * the cap and the offsets behind climb by about a tenth of the cap per batch, but noise leaves them
 * lower for a batch now and then, so they seldom rise at each of 5 batches in a row. Lag opens at
 * the latest once, over the last 8 batches at the cap, they rose by 5 % of the cap per batch with a
 * Mann–Kendall trend (S ≥ 18, as a capped file source's files waiting), the newest within a tenth of
 * that rise of the highest (the dip may come at the newest batch too). Generated streams, 30
 * seeds, and one drawn scenario; the offsets behind are read from the reports as Spark prints them.
 */
import { describe, expect, it } from 'vitest';
import { mannKendallS } from '../../src/diagnosis/statistics.js';
import { drawScenario, simulateRandom } from '../../src/simulator/random/index.js';
import { STEP_AT, STEP_CAP as CAP, cappedStepSpec, drawnLagOpenings, opened, runStream } from './run-stream.js';

/** The input steps from about 80 % to 111 % of what the cap admits. */
const spec = cappedStepSpec(17_500, 0.12, 'spark-3.5');

interface Report {
  numInputRows: number;
  sources: { endOffset: Record<string, Record<string, number>>; latestOffset: Record<string, Record<string, number>> }[];
}

const total = (offsets: Record<string, Record<string, number>>) =>
  Object.values(offsets).reduce((sum, partitions) => sum + Object.values(partitions).reduce((a, b) => a + b, 0), 0);

/** The first batch at which the last 8 read the cap and their offsets behind rose as the rank test asks. */
function rankRiseAt(reports: Report[], from: number, dip = 0.1, cap = CAP): number {
  const behind = reports.map((r) => total(r.sources[0]!.latestOffset) - total(r.sources[0]!.endOffset));
  for (let i = from + 7; i < reports.length; i += 1) {
    const window = behind.slice(i - 7, i + 1);
    const capped = reports.slice(i - 7, i + 1).every((r) => Math.abs(r.numInputRows - cap) <= 0.01 * cap);
    const steps = window.slice(1).map((b, k) => b - window[k]!);
    const rise = window[7]! - window[0]!;
    if (capped && window[7]! >= Math.max(...window) - dip * rise && rise >= 0.05 * cap * 7 && Math.max(...steps) <= 0.6 * rise && mannKendallS(window) >= 18) return i;
  }
  return Infinity;
}

describe('a capped Kafka query a little past its cap, with noisy input', () => {
  it('opens once the offsets behind have risen over 8 batches at the cap, dips and all', () => {
    const late: string[] = [];
    let dipped = 0;
    let newestDipped = 0;
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
        // Found only by letting the newest read a little under the window's highest.
        if (rankRiseAt(reports, step, 0) > due) newestDipped += 1;
      }
      if (lag[0]!.index > due) late.push(`seed ${seed}: opened at ${lag[0]!.index}, the offsets behind had risen by ${due}`);
    }
    expect(late).toEqual([]);
    // The case this is about happens in these streams.
    expect(dipped).toBeGreaterThanOrEqual(3);
    expect(newestDipped).toBeGreaterThanOrEqual(1);
  });
});

describe('a drawn capped Kafka step whose offsets behind dip at the newest batch', () => {
  it('opens when they have risen over 8 batches at the cap, though the newest is not the highest', () => {
    // A step 13 % past a cap over 20 partitions on open-source Spark reports (back to back, 10 %
    // noise), drawn from a development range (the range, 100000 and up, is measured, not tested).
    const seed = 983_090;
    const query = simulateRandom(drawScenario(seed, { family: 'step-overload', mode: 'oss-planning' })).queries[0]!;
    const reports = query.batches.map((b) => b.progress as unknown as Report);
    const source = query.query.spec.source;
    const cap = source.kind === 'kafka' ? source.maxOffsetsPerTrigger! : NaN;
    const { openings, labels } = drawnLagOpenings(seed, 'step-overload', 'oss-planning');
    const onset = labels[0]!.onsetIndex;
    const due = rankRiseAt(reports, onset - 2, 0.1, cap);
    expect(due).toBeLessThan(rankRiseAt(reports, onset - 2, 0, cap));
    expect(openings.find((i) => i >= onset - 2)).toBeLessThanOrEqual(due);
  });
});
