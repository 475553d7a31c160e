/**
 * A Delta source capped by `maxFilesPerTrigger` whose files vary in size (as real files do) reads
 * the same number of files in each batch but not of rows, so the engine does not see the cap in its
 * reads (`cappedRows`), and it took the reads for the arrival rate: a load factor of about 0.6 vetoed
 * the trend of the files waiting, which then rose without bound and never opened lag. Files waiting
 * that rise while the reads hold at the most the run reads, more of them per ms of batch too, now
 * lift that veto. Generated streams: Delta capped at 10 files of about 20,000 rows (60–140 %), a
 * 10 s trigger, input stepping from 70 % to 130 % of what the cap admits.
 */
import { describe, expect, it } from 'vitest';
import { steppedRate, type StreamSpec } from '../../src/simulator/index.js';
import { MIN, START, opened, runStream } from './run-stream.js';

/** What the cap admits, rows/s: 10 files of 20,000 rows every 10 s. */
const ADMITTED = 20_000;
const STEP_AT = START + 60 * MIN;

function spec(after: number): StreamSpec {
  return {
    name: 'orders_bronze',
    arrival: steppedRate(0.7 * ADMITTED, [{ atMs: STEP_AT, rowsPerSec: after * ADMITTED }]),
    arrivalNoise: 0.05,
    processing: { rowsPerSecPerCore: 20_000, cores: 8, overheadMs: 800 },
    triggerMs: 10_000,
    source: { kind: 'delta', path: 's3://acme-lake/bronze/orders', rowsPerFile: 20_000, rowsPerFileSpread: 0.4, maxFilesPerTrigger: 10 },
    platform: 'dbr-17.1',
  };
}

describe('a capped Delta source whose files vary in size', () => {
  it.each([1, 2, 3, 4, 5])('opens lag within 10 batches of a step past its cap (seed %i)', (seed) => {
    const run = runStream(spec(1.3), 480, {}, seed);
    const onset = run.batches.findIndex((b) => b.endMs > STEP_AT);
    const rows = run.batches.slice(onset + 2, onset + 12).map((b) => b.truth.rows);
    // The cap binds, and its reads vary with the files' sizes.
    expect(new Set(rows).size).toBeGreaterThan(5);
    const lag = opened(run, 'lag');
    expect(lag.map((c) => c.index - onset)).toHaveLength(1);
    expect(lag[0]!.index - onset).toBeGreaterThanOrEqual(0);
    expect(lag[0]!.index - onset).toBeLessThanOrEqual(10);
  });

  it.each([1, 2, 3])('stays quiet while its input stays under the cap (seed %i)', (seed) => {
    const run = runStream(spec(0.8), 480, {}, seed);
    expect(opened(run).map((c) => `#${c.index} ${c.incident.summary}`)).toEqual([]);
  });
});
