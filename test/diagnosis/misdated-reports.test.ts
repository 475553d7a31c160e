/**
 * Reports out of order or dated out of line with their batch: a later batch is newer whatever its
 * timestamp says, a misdated report never becomes the clock the others are judged against, and what
 * the tracker skips it counts (`QueryTracker.irregular`).
 */
import { describe, expect, it } from 'vitest';
import { QueryTracker } from '../../src/diagnosis/query-tracker.js';
import type { IncidentChange } from '../../src/diagnosis/types.js';
import type { Progress } from '../../src/progress/types.js';
import { DAY, history, shifted, spec } from './misdated-history.js';
import { MIN } from './run-stream.js';

function feed(reports: Progress[]): { tracker: QueryTracker; changes: string[] } {
  const tracker = QueryTracker.create(spec.id, spec.name);
  const changes = reports.flatMap((p) => tracker.observe(p)).map((c: IncidentChange) => `${c.type}:${c.incident.kind}@${c.incident.openedAtBatchId}`);
  return { tracker, changes };
}


describe('reports dated out of line with their batch', () => {
  const clean = history(300);
  const expected = feed(clean);

  it('has a clean history that opens and resolves lag (what the misdated ones must not change)', () => {
    expect(expected.changes.some((c) => c.startsWith('opened:lag'))).toBe(true);
    expect(expected.tracker.irregular).toEqual({ older: 0, duplicate: 0, misdated: 0 });
  });

  it('a batch dated a day ahead keeps its counts, and the batches after it are read at their own time', () => {
    const reports = clean.map((p, i) => (i === 100 ? shifted(p, DAY) : p));
    const { tracker, changes } = feed(reports);
    expect(tracker.snapshot().lastBatchId).toBe(clean.at(-1)!.batchId);
    expect(tracker.irregular).toEqual({ older: 0, duplicate: 0, misdated: 1 });
    expect(tracker.clockMs).toBe(expected.tracker.clockMs);
    expect(changes).toEqual(expected.changes);
  });

  it('so does a run of them (a driver clock that jumped ahead and came back)', () => {
    const reports = clean.map((p, i) => (i >= 100 && i < 104 ? shifted(p, 3 * DAY) : p));
    const { tracker, changes } = feed(reports);
    expect(tracker.snapshot().lastBatchId).toBe(clean.at(-1)!.batchId);
    expect(tracker.irregular.misdated).toBe(4);
    expect(tracker.clockMs).toBe(expected.tracker.clockMs);
    expect(changes).toEqual(expected.changes);
  });

  it('silence after them is judged from the real clock: a stall opens', () => {
    const reports = clean.slice(0, 40).map((p, i) => (i === 30 ? shifted(p, DAY) : p));
    const { tracker } = feed(reports);
    const lastEnd = clean[39]!.timestampMs + clean[39]!.batchDurationMs;
    expect(tracker.clockMs).toBe(lastEnd);
    expect(tracker.tick(lastEnd + 2 * 60 * MIN).map((c) => `${c.type}:${c.incident.kind}`)).toEqual(['opened:stalled']);
  });

  it('a restart after a run whose last report was dated ahead is read (batch ids go on across it)', () => {
    const reports = clean.slice(0, 80).map((p, i) => (i === 49 ? shifted(p, DAY) : i >= 50 ? { ...p, runId: 'restarted-run' } : p));
    const { tracker } = feed(reports);
    expect(tracker.snapshot().lastBatchId).toBe(clean[79]!.batchId);
    expect(tracker.irregular.misdated).toBe(1);
    expect(tracker.clockMs).toBe(clean[79]!.timestampMs + clean[79]!.batchDurationMs);
  });

  it('one report dated back an hour is kept, placed after the batch before it', () => {
    const reports = clean.map((p, i) => (i === 120 ? shifted(p, -60 * MIN) : p));
    const { tracker, changes } = feed(reports);
    expect(tracker.snapshot().lastBatchId).toBe(clean.at(-1)!.batchId);
    expect(tracker.irregular).toEqual({ older: 0, duplicate: 0, misdated: 1 });
    expect(tracker.clockMs).toBe(expected.tracker.clockMs);
    expect(changes).toEqual(expected.changes);
  });

  it('an earlier batch of the run, or the same report again, is skipped and counted', () => {
    const { tracker } = feed(clean.slice(0, 60));
    expect(tracker.observe(clean[20]!)).toEqual([]);
    expect(tracker.observe(shifted(clean[30]!, DAY))).toEqual([]); // older by batch, whatever its date
    expect(tracker.observe(clean[59]!)).toEqual([]);
    expect(tracker.irregular).toEqual({ older: 2, duplicate: 1, misdated: 0 });
    expect(tracker.snapshot().lastBatchId).toBe(clean[59]!.batchId);
    expect(tracker.clockMs).toBe(clean[59]!.timestampMs + clean[59]!.batchDurationMs);
  });
});
