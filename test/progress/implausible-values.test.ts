/**
 * Numbers that feed time arithmetic and cannot be what a report measured (a negative or month-long
 * duration, a date outside 2000-2200, a Kinesis backlog older than any retention) are read as
 * missing, with a warning naming the field and the value.
 */
import { describe, expect, it } from 'vitest';
import { diagnose } from '../../src/diagnosis/engine.js';
import { parseProgress } from '../../src/progress/parse-progress.js';
import type { Progress } from '../../src/progress/types.js';
import { DEFAULT_START_MS, StreamSimulator } from '../../src/simulator/index.js';

type Raw = Record<string, any>;

/** A healthy Kafka query with state (a watermark), as Spark prints it. */
function rawReports(count: number, kind: 'kafka' | 'kinesis' = 'kafka'): Raw[] {
  const sim = new StreamSimulator(
    {
      id: 'feedface-0000-4000-8000-000000000001',
      name: 'sessions',
      arrival: 9_000,
      processing: { rowsPerSecPerCore: 2_500, cores: 8, overheadMs: 1_000 },
      triggerMs: 10_000,
      source: kind === 'kafka' ? { kind: 'kafka', partitions: 8 } : { kind: 'kinesis', shards: 4 },
      state: { watermarkMs: 60_000, newKeysPerRow: 0.05 },
    },
    { startMs: DEFAULT_START_MS, seed: 4 },
  );
  return sim.take(count).map((batch) => JSON.parse(batch.json) as Raw);
}

function parsed(raw: Raw): { progress: Progress; warnings: string[] } {
  const result = parseProgress(raw);
  if (!result.ok) throw new Error(result.error);
  return result;
}

describe('implausible durations', () => {
  const base = rawReports(1)[0]!;

  it.each([1e300, -1e300, 1e10, -5_000])('batchDuration %s falls back to durationMs.triggerExecution, with a warning naming it', (value) => {
    const { progress, warnings } = parsed({ ...base, batchDuration: value });
    expect(progress.batchDurationMs).toBe(base.durationMs.triggerExecution);
    expect(warnings).toEqual([`implausible durations (a duration is 0 to 30 days) read as missing: "batchDuration" ${JSON.stringify(value)}`]);
  });

  it('drops implausible durationMs entries and keeps the others', () => {
    const { progress, warnings } = parsed({ ...base, batchDuration: -1, durationMs: { ...base.durationMs, addBatch: -5_000, triggerExecution: 1e300 } });
    expect(progress.durationMs.addBatch).toBeUndefined();
    expect(progress.durationMs.triggerExecution).toBeUndefined();
    expect(progress.durationMs.queryPlanning).toBe(base.durationMs.queryPlanning);
    expect(progress.batchDurationMs).toBe(0); // nothing says how long it ran
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('"durationMs.addBatch" -5000');
    expect(warnings[0]).toContain('"durationMs.triggerExecution" 1e+300');
    expect(warnings[0]).toContain('"batchDuration" -1');
  });

  it('keeps 30 days, the bound, and a state commit time past it is 0 with a warning', () => {
    const month = 30 * 24 * 3_600_000;
    const ops = base.stateOperators.map((op: Raw) => ({ ...op, commitTimeMs: 1e12 }));
    const { progress, warnings } = parsed({ ...base, batchDuration: month, stateOperators: ops });
    expect(progress.batchDurationMs).toBe(month);
    expect(progress.stateOperators[0]!.commitTimeMs).toBe(0);
    expect(warnings).toEqual(['implausible durations (a duration is 0 to 30 days) read as missing: "stateOperators[0].commitTimeMs" 1000000000000']);
  });

  it('a Kinesis backlog older than any retention is read as missing', () => {
    const kinesis = rawReports(1, 'kinesis')[0]!;
    const source = { ...kinesis.sources[0], metrics: { ...kinesis.sources[0].metrics, maxMsBehindLatest: '1.0E300' } };
    const { progress, warnings } = parsed({ ...kinesis, sources: [source] });
    expect(progress.sources[0]!.metrics.maxMsBehindLatest).toBeUndefined();
    expect(warnings).toEqual(['implausible source metric "maxMsBehindLatest" 1e+300 (0 to 366 days); read as missing']);
  });
});

describe('implausible batch ids', () => {
  const base = rawReports(1)[0]!;

  it.each([-1, -1e308, 1e20, 'abc'])('batchId %s is read as missing, with a warning', (value) => {
    const { progress, warnings } = parsed({ ...base, batchId: value });
    expect(progress.batchId).toBeNull();
    expect(warnings).toEqual([`implausible "batchId" ${JSON.stringify(value)} (a batch id is a whole number from 0); read as missing`]);
  });

  it('keeps 0, a number printed as a string, and no batchId at all (Spark 2.1/2.2) without a word', () => {
    expect(parsed({ ...base, batchId: 0 })).toMatchObject({ progress: { batchId: 0 }, warnings: [] });
    expect(parsed({ ...base, batchId: '42' })).toMatchObject({ progress: { batchId: 42 }, warnings: [] });
    const { batchId: _none, ...withoutId } = base;
    expect(parsed(withoutId)).toMatchObject({ progress: { batchId: null }, warnings: [] });
  });
});

describe('implausible row counts and rates', () => {
  const base = rawReports(1)[0]!;

  it.each([1e308, -5, 2e15])('numInputRows %s falls back to the sum over sources, with a warning naming it', (value) => {
    const { progress, warnings } = parsed({ ...base, numInputRows: value });
    expect(progress.numInputRows).toBe(base.sources[0].numInputRows);
    expect(warnings).toEqual([`implausible "numInputRows" ${JSON.stringify(value)} (0 to 10^15); read as missing`]);
  });

  it('a rate or a source count past the bound is read as missing; the bound itself is kept', () => {
    const { progress, warnings } = parsed({ ...base, processedRowsPerSecond: 1e300, sources: [{ ...base.sources[0], numInputRows: -1e308, inputRowsPerSecond: 1e15 }] });
    expect(progress.processedRowsPerSecond).toBeNull();
    expect(progress.sources[0]!.numInputRows).toBe(0);
    expect(progress.sources[0]!.inputRowsPerSecond).toBe(1e15);
    expect(warnings).toEqual([
      'implausible "sources[].numInputRows" -1e+308 (0 to 10^15); read as missing',
      'implausible "processedRowsPerSecond" 1e+300 (0 to 10^15); read as missing',
    ]);
  });
});

describe('implausible timestamps', () => {
  const base = rawReports(1)[0]!;

  it.each(['+275760-09-13T00:00:00.000Z', '1970-01-01T00:00:05.000Z', 1e300])('timestamp %s is placed after the previous report, with a warning', (value) => {
    const { progress, warnings } = parsed({ ...base, timestamp: value });
    expect(progress.timestampMissing).toBe(true);
    expect(warnings).toEqual([`implausible "timestamp" ${JSON.stringify(value)} (not between 2000 and 2200); placed after the previous report`]);
  });

  it('a date within the range is kept: whether it fits its batch is for the tracker to judge', () => {
    const { progress, warnings } = parsed({ ...base, timestamp: '2099-01-01T00:00:00.000Z' });
    expect(progress.timestampMs).toBe(Date.parse('2099-01-01T00:00:00.000Z'));
    expect(warnings).toEqual([]);
  });
});

describe('a healthy query with one absurd report', () => {
  const raws = rawReports(120);
  const run = (change: (raw: Raw) => Raw) =>
    diagnose(raws.map((raw, i) => parsed(i === raws.length - 1 ? change(raw) : raw).progress));
  const clean = run((raw) => raw);

  it('is as healthy as without it', () => {
    expect(clean.queries[0]!.health).toBe('ok');
    for (const value of [1e300, -1e300, 1e10]) {
      expect(run((raw) => ({ ...raw, batchDuration: value, durationMs: { ...raw.durationMs, triggerExecution: value } }))).toEqual(clean);
    }
    expect(run((raw) => ({ ...raw, timestamp: '+275760-09-13T00:00:00.000Z' })).queries[0]!.health).toBe('ok');
    // 1e308 rows made advice of NaN and ∞.
    expect(JSON.stringify(run((raw) => ({ ...raw, numInputRows: 1e308, sources: raw.sources.map((s: Raw) => ({ ...s, numInputRows: 1e308 })) })))).not.toMatch(/NaN|Infinity|∞/);
  });
});
