/**
 * An Auto Loader source capped by `cloudFiles.maxFilesPerTrigger` whose files vary in size reads
 * the same number of files in each batch, not of rows. Its offsets say so (the `seqNum` grows by
 * the files read), so the engine sees the cap in files (`cappedFiles`) and no longer takes the
 * reads for the arrival rate: a load factor read off them vetoed the trend of the files waiting,
 * and the durations' fit (`converging`) called a query losing capacity under its cap healthy.
 * Generated streams: 4 files of about 10,000 rows (60–140 %) a batch, a 5 s trigger (8,000 rows/s
 * admitted).
 */
import { describe, expect, it } from 'vitest';
import { steppedRate, type StreamSpec } from '../../src/simulator/index.js';
import { MIN, START, opened, runStream } from './run-stream.js';

/** What the cap admits, rows/s: 4 files of 10,000 rows every 5 s. */
const ADMITTED = 8_000;
const CHANGE_AT = START + 40 * MIN;

function spec(before: number, after: number, events: StreamSpec['events'] = []): StreamSpec {
  return {
    name: 'landing_events',
    arrival: steppedRate(before * ADMITTED, [{ atMs: CHANGE_AT, rowsPerSec: after * ADMITTED }]),
    arrivalNoise: 0.05,
    processing: { rowsPerSecPerCore: 5_000, cores: 4, overheadMs: 600 },
    triggerMs: 5_000,
    source: { kind: 'autoloader', path: 's3://acme-landing/events/', rowsPerFile: 10_000, rowsPerFileSpread: 0.4, maxFilesPerTrigger: 4 },
    platform: 'dbr-17.1',
    events,
  };
}

const onsetOf = (run: ReturnType<typeof runStream>) => run.batches.findIndex((b) => b.truth.startMs >= CHANGE_AT);

describe('an Auto Loader source at a cap of files whose sizes vary', () => {
  it.each([1, 2, 3, 4, 5])('opens lag within 8 batches of a step past its cap and names the cap in files (seed %i)', (seed) => {
    const run = runStream(spec(0.7, 1.2), 900, {}, seed);
    const onset = onsetOf(run);
    // The cap binds, and its reads vary with the files' sizes.
    expect(new Set(run.batches.slice(onset + 4, onset + 12).map((b) => b.truth.rows)).size).toBeGreaterThan(5);
    const lag = opened(run, 'lag');
    expect(lag).toHaveLength(1);
    expect(lag[0]!.index - onset).toBeGreaterThanOrEqual(0);
    expect(lag[0]!.index - onset).toBeLessThanOrEqual(8);
    const cause = lag[0]!.incident.causes.find((c) => c.code === 'rate_limit_too_low');
    expect(cause?.evidence).toContain('read exactly 4 files (the admission cap)');
  });

  it.each([1, 2, 3])('opens lag within 8 batches when it loses capacity under the cap (seed %i)', (seed) => {
    // Executors lost: 4 files take about 7.5 s of busy time and overhead, admitting about 5,300
    // rows/s of the 6,800 arriving.
    const run = runStream(spec(0.85, 0.85, [{ type: 'change', atBatch: 0, atMs: CHANGE_AT, rowsPerSecPerCore: 1_500 }]), 900, {}, seed);
    const onset = onsetOf(run);
    const lag = opened(run, 'lag');
    expect(lag).toHaveLength(1);
    expect(lag[0]!.index - onset).toBeGreaterThanOrEqual(0);
    expect(lag[0]!.index - onset).toBeLessThanOrEqual(8);
  });

  it.each([1, 2, 3])('stays quiet while its input stays under the cap (seed %i)', (seed) => {
    const run = runStream(spec(0.7, 0.9), 900, {}, seed);
    expect(opened(run).map((c) => `#${c.index} ${c.incident.summary}`)).toEqual([]);
  });

  it.each([1, 2, 3])('stays quiet without a cap on a feed of a few files a batch (seed %i)', (seed) => {
    const uncapped = spec(0.7, 0.9);
    uncapped.source = { kind: 'autoloader', path: 's3://acme-landing/events/', rowsPerFile: 10_000, rowsPerFileSpread: 0.4, maxFilesPerTrigger: null };
    const run = runStream(uncapped, 900, {}, seed);
    expect(opened(run).map((c) => `#${c.index} ${c.incident.summary}`)).toEqual([]);
  });
});
