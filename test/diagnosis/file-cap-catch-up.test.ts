/**
 * The catch-up after a stall on a file source whose cap admits about what arrives: the cap holds it
 * back, not the processing. The alert says to raise the file cap by how much (not to add workers,
 * nor "a lag nothing explains"), and a count that holds level while the query processes more than
 * arrives is said so, not "not draining at 4.86K rows/s processed against 1K arriving". Files of
 * varying size read a different number of rows at the cap, which Auto Loader's offsets count in
 * files: the advice is the same (it asked for 246 times the throughput before).
 */
import { describe, expect, it } from 'vitest';
import type { FileSourceSpec } from '../../src/simulator/spec.js';
import { runStream } from './run-stream.js';

/**
 * Auto Loader, 60 files of 1,000 rows a minute admitted against 1,000 rows/s arriving; batch 40 hangs
 * 20 minutes. `spread`: the files' sizes vary by up to that share of their mean, so the reads at the
 * cap are 60 files but not 60,000 rows (its offsets say the files).
 */
function run(spread: number, source: FileSourceSpec = { kind: 'autoloader' }) {
  return runStream(
    {
      name: 'events_bronze',
      arrival: 1_000,
      arrivalNoise: 0.02,
      processing: { rowsPerSecPerCore: 1_250, cores: 4, overheadMs: 1_000 },
      triggerMs: 60_000,
      source: { ...source, rowsPerFile: 1_000, rowsPerFileSpread: spread, maxFilesPerTrigger: 60 },
      events: [{ type: 'stall', atBatch: 40, durationMs: 20 * 60_000 }],
    },
    90,
  );
}

describe.each([0, 0.4])('a catch-up a file cap holds back (file sizes ±%s)', (spread) => {
  const lag = run(spread).changes.filter((c) => c.incident.kind === 'lag');

  it('opens once, as catching up, advising a larger file cap by a factor', () => {
    expect(lag.filter((c) => c.type === 'opened')).toHaveLength(1);
    const opened = lag[0]!.incident;
    expect(opened.summary).toMatch(/^Catching up after a 20m stall/);
    // The catch-up first; the cap may be named too (files of varying size read about the same
    // rows while the files hold), never a lack of throughput.
    expect(opened.causes[0]!.code).toBe('catching_up');
    expect(opened.causes.map((c) => c.code)).not.toContain('insufficient_capacity');
    const raise = opened.advice.find((a) => a.setting === 'cloudFiles.maxFilesPerTrigger');
    expect(raise?.text).toMatch(/to about 1\.\d× its current value for the catch-up, to drain the 1\.\d+K files it left within 30m/);
    expect(opened.advice.some((a) => a.throughputFactor !== undefined)).toBe(false);
  });

  it('never falls back on "the source reports too little", and a level count says the query processes more than arrives', () => {
    for (const change of lag) {
      expect(change.incident.causes.map((c) => c.evidence).join(' ')).not.toContain('reports too little');
      // Every reading of it says what to change: the file cap, when the catch-up stopped coming down;
      // never more workers (the query processes several times what the cap admits).
      expect(change.incident.advice.length).toBeGreaterThan(0);
      expect(change.incident.advice.filter((a) => a.throughputFactor !== undefined).map((a) => a.text)).toEqual([]);
      if (change.incident.summary.includes('not draining')) {
        expect(change.incident.advice[0]!.setting).toBe('cloudFiles.maxFilesPerTrigger');
        expect(change.incident.summary).toMatch(/not draining: it has not come down over the recent batches, though the query processes [\d.]+K rows\/s against [\d.]+K rows\/s arriving$/);
      }
    }
    expect(lag.some((c) => c.incident.summary.includes('not draining'))).toBe(true);
  });
});

// Delta's offsets count files within one table version: the same catch-up on a table whose upstream
// commits hold many files is read at the cap in files too (it asked for 246 times the throughput).
describe('a catch-up a Delta file cap holds back (file sizes ±0.4, 1,000 files per table version)', () => {
  const lag = run(0.4, { kind: 'delta', filesPerVersion: 1_000 }).changes.filter((c) => c.incident.kind === 'lag');

  it('advises a larger file cap, never more throughput', () => {
    expect(lag.filter((c) => c.type === 'opened')).toHaveLength(1);
    expect(lag[0]!.incident.summary).toMatch(/^Catching up after a 20m stall/);
    for (const change of lag) {
      expect(change.incident.advice.filter((a) => a.throughputFactor !== undefined).map((a) => a.text)).toEqual([]);
    }
    expect(lag.some((c) => c.incident.advice.some((a) => a.setting === 'maxFilesPerTrigger' && /to about 1\.\d× its current value/.test(a.text)))).toBe(true);
  });
});
