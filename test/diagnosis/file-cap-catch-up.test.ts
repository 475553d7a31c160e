/**
 * The catch-up after a stall on a file source whose cap admits about what arrives: the cap holds it
 * back, not the processing. The alert says to raise the file cap by how much (not to add workers,
 * nor "a lag nothing explains"), and a count that holds level while the query processes more than
 * arrives is said so, not "not draining at 4.86K rows/s processed against 1K arriving".
 */
import { describe, expect, it } from 'vitest';
import { runStream } from './run-stream.js';

/** Auto Loader, 60 files of 1,000 rows a minute admitted against 1,000 rows/s arriving; batch 40 hangs 20 minutes. */
function run() {
  return runStream(
    {
      name: 'events_bronze',
      arrival: 1_000,
      arrivalNoise: 0.02,
      processing: { rowsPerSecPerCore: 1_250, cores: 4, overheadMs: 1_000 },
      triggerMs: 60_000,
      source: { kind: 'autoloader', rowsPerFile: 1_000, maxFilesPerTrigger: 60 },
      events: [{ type: 'stall', atBatch: 40, durationMs: 20 * 60_000 }],
    },
    90,
  );
}

describe('a catch-up a file cap holds back', () => {
  const lag = run().changes.filter((c) => c.incident.kind === 'lag');

  it('opens once, as catching up, advising a larger file cap by a factor', () => {
    expect(lag.filter((c) => c.type === 'opened')).toHaveLength(1);
    const opened = lag[0]!.incident;
    expect(opened.summary).toMatch(/^Catching up after a 20m stall/);
    expect(opened.causes.map((c) => c.code)).toEqual(['catching_up']);
    const raise = opened.advice.find((a) => a.setting === 'cloudFiles.maxFilesPerTrigger');
    expect(raise?.text).toMatch(/to about 1\.\d× its current value for the catch-up, to drain the 1\.\d+K files it left within 30m/);
    expect(opened.advice.some((a) => a.throughputFactor !== undefined)).toBe(false);
  });

  it('never falls back on "the source reports too little", and a level count says the query processes more than arrives', () => {
    for (const change of lag) {
      expect(change.incident.causes.map((c) => c.evidence).join(' ')).not.toContain('reports too little');
      // Every reading of it says what to change: the file cap, when the catch-up stopped coming down.
      expect(change.incident.advice.length).toBeGreaterThan(0);
      if (change.incident.summary.includes('not draining')) {
        expect(change.incident.advice[0]!.setting).toBe('cloudFiles.maxFilesPerTrigger');
        expect(change.incident.summary).toMatch(/not draining: it has not come down over the recent batches, though the query processes [\d.]+K rows\/s against [\d.]+K rows\/s arriving$/);
      }
    }
    expect(lag.some((c) => c.incident.summary.includes('not draining'))).toBe(true);
  });
});
