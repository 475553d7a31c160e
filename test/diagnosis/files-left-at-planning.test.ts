/**
 * A Delta source counts the files waiting when a batch is planned, and without a cap each batch
 * reads all it lists, leaving none. A capped one whose files vary in size reads a different number
 * of rows each batch, and where each upstream commit holds one file Delta's offsets never say how
 * many files a batch read (only a batch within one table version does), so neither `cappedRows` nor
 * `cappedFiles` sees the cap; at 2 files a batch the reads also scatter too widely for
 * `heldFileReads`. Files left at planning batch after batch, more of them per ms of batch,
 * where the run left none before, are the cap's (`filesLeftAtPlanning`); files counted after each
 * batch, which hold what arrived while it ran, are not. Generated streams: 2 files of about 20,000 rows (60–140 %)
 * a batch, a 4 s trigger (10,000 rows/s admitted).
 */
import { describe, expect, it } from 'vitest';
import { steppedRate, type StreamSpec } from '../../src/simulator/index.js';
import { MIN, START, opened, runStream } from './run-stream.js';

/** What the cap admits, rows/s: 2 files of 20,000 rows every 4 s. */
const ADMITTED = 10_000;
const STEP_AT = START + 40 * MIN;

function spec(after: number): StreamSpec {
  return {
    name: 'orders_silver',
    arrival: steppedRate(0.6 * ADMITTED, [{ atMs: STEP_AT, rowsPerSec: after * ADMITTED }]),
    arrivalNoise: 0.05,
    processing: { rowsPerSecPerCore: 10_000, cores: 4, overheadMs: 700 },
    triggerMs: 4_000,
    source: { kind: 'delta', path: 's3://acme-lake/silver/orders', rowsPerFile: 20_000, rowsPerFileSpread: 0.4, maxFilesPerTrigger: 2, filesPerVersion: 1 },
    platform: 'dbr-17.1',
  };
}

describe('a capped Delta source that leaves files at planning', () => {
  it.each([1, 2, 3, 4, 5])('opens lag within 8 batches of a step past its cap and says files were left at planning (seed %i)', (seed) => {
    const run = runStream(spec(1.5), 900, {}, seed);
    // The onset as the eval's labels read it: the first batch after the step whose true time
    // behind passes the most it reached before (whole files arrive, so the backlog starts a few
    // batches after the step).
    const step = run.batches.findIndex((b) => b.truth.startMs >= STEP_AT);
    const range = Math.max(...run.batches.slice(0, step).map((b) => b.truth.timeBehindSec));
    const onset = run.batches.findIndex((b, i) => i >= step && b.truth.timeBehindSec > range);
    // The cap binds, and its reads vary with the files' sizes.
    expect(new Set(run.batches.slice(onset + 4, onset + 12).map((b) => b.truth.rows)).size).toBeGreaterThan(5);
    const lag = opened(run, 'lag');
    expect(lag).toHaveLength(1);
    expect(lag[0]!.index - onset).toBeGreaterThanOrEqual(-2);
    expect(lag[0]!.index - onset).toBeLessThanOrEqual(8);
    const cause = lag[0]!.incident.causes.find((c) => c.code === 'rate_limit_too_low');
    expect(cause?.evidence).toContain('planned with files still waiting');
  });

  it.each([1, 2, 3])('stays quiet while its input stays under the cap (seed %i)', (seed) => {
    const run = runStream(spec(0.85), 900, {}, seed);
    expect(opened(run).map((c) => `#${c.index} ${c.incident.summary}`)).toEqual([]);
  });

  // Counted after each batch, what arrived while it ran waits too: a sparse feed that steps up
  // under capacity counts files at every batch where it counted none, and that is no cap.
  it.each(['delta', 'autoloader'] as const)('stays quiet when a sparse %s feed without a cap steps up and its files are counted after each batch', (kind) => {
    for (const seed of [1, 2, 3]) {
      const source: StreamSpec['source'] = {
        kind,
        path: 's3://acme-lake/silver/orders',
        rowsPerFile: 2_000,
        rowsPerFileSpread: 0.4,
        maxFilesPerTrigger: null,
        backlogCountedAt: 'end',
      };
      const run = runStream({ ...spec(0.05), arrival: steppedRate(400, [{ atMs: STEP_AT, rowsPerSec: 8_800 }]), source }, 900, {}, seed);
      expect(opened(run).map((c) => `seed ${seed} #${c.index} ${c.incident.summary}`)).toEqual([]);
    }
  });
});
