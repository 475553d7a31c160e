/**
 * Files whose sizes vary (`rowsPerFileSpread`, `--file-size-spread` of the randomized eval): a file
 * cap reads the same number of files, but not of rows, in each batch, as real Delta and Auto Loader
 * sources do; the truth and the printed backlog still agree, and equal files print as before.
 */
import { describe, expect, it } from 'vitest';
import { drawScenario } from '../../src/simulator/random/index.js';
import { SimulatorSpecError, StreamSimulator, type SimulatedBatch, type StreamSpec } from '../../src/simulator/index.js';

type Obj = Record<string, unknown>;
const src = (b: SimulatedBatch) => (b.progress.sources as Obj[])[0]!;
const metric = (b: SimulatedBatch, key: string) => Number((src(b).metrics as Obj)[key]);

/** Auto Loader capped at 20 files of about 5,000 rows, with more arriving (steadily) than the cap lets through. */
function capped(spread?: number): StreamSpec {
  return {
    arrival: 6_000,
    arrivalNoise: 0,
    processing: { rowsPerSecPerCore: 2_500, cores: 8 },
    triggerMs: 30_000,
    source: { kind: 'autoloader', maxFilesPerTrigger: 20, rowsPerFile: 5_000, bytesPerFile: 1_000_000, ...(spread === undefined ? {} : { rowsPerFileSpread: spread }) },
  };
}

describe('files of varying size', () => {
  it('a file cap reads 20 files a batch, their rows varying around 20 × 5,000 within the spread', () => {
    const batches = new StreamSimulator(capped(0.4), { seed: 2 }).take(40).slice(3);
    const rows = batches.map((b) => b.progress.numInputRows as number);
    for (const b of batches) {
      const start = (src(b).startOffset as Obj).seqNum as number;
      const end = (src(b).endOffset as Obj).seqNum as number;
      expect(end - start).toBe(20);
    }
    for (const r of rows) {
      expect(r).toBeGreaterThanOrEqual(20 * 3_000);
      expect(r).toBeLessThanOrEqual(20 * 7_000);
    }
    expect(new Set(rows).size).toBeGreaterThan(30);
    const mean = rows.reduce((a, b) => a + b, 0) / rows.length;
    expect(Math.abs(mean / 100_000 - 1)).toBeLessThan(0.05);
  });

  it('the truth adds up: what arrived between two batch ends is what the later one read plus the growth of the backlog', () => {
    const batches = new StreamSimulator(capped(0.4), { seed: 3 }).take(40);
    for (let i = 1; i < batches.length; i += 1) {
      const b = batches[i]!;
      const arrived = (6_000 * (b.endMs - batches[i - 1]!.endMs)) / 1_000;
      const accounted = (b.progress.numInputRows as number) + b.truth.backlogRows - batches[i - 1]!.truth.backlogRows;
      expect(Math.abs(accounted - arrived)).toBeLessThanOrEqual(1);
      const files = metric(b, 'numFilesOutstanding');
      const bytes = metric(b, 'numBytesOutstanding');
      // Each waiting file is 60–140 % of the mean size, and its bytes follow its rows.
      expect(bytes).toBeGreaterThanOrEqual(files * 600_000 - 1);
      expect(bytes).toBeLessThanOrEqual(files * 1_400_000 + 1);
    }
    expect(metric(batches[39]!, 'numFilesOutstanding')).toBeGreaterThan(metric(batches[5]!, 'numFilesOutstanding'));
    expect(new Set(batches.slice(3).map((b) => metric(b, 'numBytesOutstanding') / Math.max(1, metric(b, 'numFilesOutstanding')))).size).toBeGreaterThan(10);
  });

  it('equal files (no spread, or 0) print exactly as before', () => {
    const a = new StreamSimulator(capped(), { seed: 4 }).take(30).map((b) => b.json);
    const b = new StreamSimulator(capped(0), { seed: 4 }).take(30).map((b) => b.json);
    expect(b).toEqual(a);
    for (const json of a.slice(3)) expect(JSON.parse(json).numInputRows).toBe(100_000);
  });

  it('a spread outside 0–0.9 is refused with what to write', () => {
    expect(() => new StreamSimulator(capped(1.5), { seed: 1 })).toThrow(SimulatorSpecError);
    expect(() => new StreamSimulator(capped(1.5), { seed: 1 })).toThrow(/source\.rowsPerFileSpread.*0 to 0\.9/);
  });

  it('the randomized draw takes it after the draw: file sources get it, the rest of the draw is unchanged', () => {
    const text = (value: unknown) => JSON.stringify(value, (_, v) => (typeof v === 'function' ? String(v) : v));
    for (const seed of [905_001, 905_002, 905_003, 905_004]) {
      const plain = drawScenario(seed, { mode: 'delta-files' });
      const spread = drawScenario(seed, { mode: 'delta-files', fileSizeSpread: 0.3 });
      expect(spread.queries.map((q) => q.spec.source)).toEqual(plain.queries.map((q) => ({ ...q.spec.source, rowsPerFileSpread: 0.3 })));
      const withoutSource = (s: typeof plain) => text(s.queries.map((q) => ({ ...q, spec: { ...q.spec, source: null } })));
      expect(withoutSource(spread)).toBe(withoutSource(plain));
      expect(text(drawScenario(seed, { mode: 'dbr-17.1', fileSizeSpread: 0.3 }))).toBe(text(drawScenario(seed, { mode: 'dbr-17.1' })));
    }
  });
});
