/**
 * A Delta source capped by `maxFilesPerTrigger` whose files vary in size, its files waiting counted
 * after each batch (a Delta table's newest version): the files waiting hold what arrived while the
 * batch ran, so none are "left at planning", and the rows each batch reads vary with the files'
 * sizes. Delta's offsets name a table version and the index of the last file read in it, so each
 * batch that stays within one version says how many files it read (`filesInCommit`): the engine
 * reads the cap in files from those (`cappedFiles`) and lifts the load veto a rate read off the
 * capped reads would put on the files' rise. Generated streams: 4 files of about 10,000 rows
 * (60–140 %) a batch, 10 files per upstream commit, a 5 s trigger (8,000 rows/s admitted).
 */
import { describe, expect, it } from 'vitest';
import { steppedRate, type StreamSpec } from '../../src/simulator/index.js';
import { MIN, START, opened, runStream } from './run-stream.js';

/** What the cap admits, rows/s: 4 files of 10,000 rows every 5 s. */
const ADMITTED = 8_000;
const CHANGE_AT = START + 40 * MIN;

function spec(before: number, after: number, maxFilesPerTrigger: number | null = 4): StreamSpec {
  return {
    name: 'bronze_to_silver',
    arrival: steppedRate(before * ADMITTED, [{ atMs: CHANGE_AT, rowsPerSec: after * ADMITTED }]),
    arrivalNoise: 0.05,
    processing: { rowsPerSecPerCore: 5_000, cores: 4, overheadMs: 600 },
    triggerMs: 5_000,
    source: {
      kind: 'delta',
      path: 's3://acme-lake/bronze/events',
      rowsPerFile: 10_000,
      rowsPerFileSpread: 0.4,
      maxFilesPerTrigger,
      filesPerVersion: 10,
      backlogCountedAt: 'end',
    },
    platform: 'dbr-17.1',
  };
}

const onsetOf = (run: ReturnType<typeof runStream>) => run.batches.findIndex((b) => b.truth.startMs >= CHANGE_AT);

describe('a Delta source at a cap of files whose sizes vary, counted after each batch', () => {
  it('opens lag within 8 batches of a step past its cap and names the cap in files', () => {
    const named: number[] = [];
    for (const seed of [1, 2, 3, 4, 5]) {
      const run = runStream(spec(0.7, 1.2), 900, {}, seed);
      const onset = onsetOf(run);
      // The cap binds, and its reads vary with the files' sizes.
      expect(new Set(run.batches.slice(onset + 4, onset + 12).map((b) => b.truth.rows)).size).toBeGreaterThan(5);
      const lag = opened(run, 'lag');
      expect(lag, `seed ${seed}`).toHaveLength(1);
      expect(lag[0]!.index - onset, `seed ${seed}`).toBeGreaterThanOrEqual(0);
      expect(lag[0]!.index - onset, `seed ${seed}`).toBeLessThanOrEqual(8);
      // Named by the files read where the offsets say, or (while too few batches have said) by the
      // rows the cap lets through.
      const evidence = lag[0]!.incident.causes.find((c) => c.code === 'rate_limit_too_low')?.evidence ?? '';
      expect(evidence).toMatch(/read exactly 4 files \(the admission cap\)|read about [\d.]+K rows each \(about: the files an admission cap lets through\)/);
      if (evidence.includes('that stayed within one table version read exactly 4 files (the admission cap)')) named.push(seed);
    }
    expect(named.length, `seeds naming the cap in files: ${named.join(', ')}`).toBeGreaterThanOrEqual(3);
  });

  it.each([1, 2, 3])('stays quiet while its input stays under the cap (seed %i)', (seed) => {
    const run = runStream(spec(0.7, 0.9), 900, {}, seed);
    expect(opened(run).map((c) => `#${c.index} ${c.incident.summary}`)).toEqual([]);
  });

  it.each([1, 2, 3])('stays quiet without a cap on a feed of a few files a batch (seed %i)', (seed) => {
    const run = runStream(spec(0.7, 0.9, null), 900, {}, seed);
    expect(opened(run).map((c) => `#${c.index} ${c.incident.summary}`)).toEqual([]);
  });
});
