/**
 * One report dated back or ahead, by several amounts, at each position of a history that opens and
 * resolves lag: the incidents are the clean history's wherever the timestamps can say which report
 * is misdated, and the ring stays a timeline whatever happened (times in order, no batch starting
 * before the one before it ended: `reconcileMisdated` never moves a row past its neighbour).
 */
import { describe, expect, it } from 'vitest';
import type { BatchFeatures } from '../../src/diagnosis/batch-features.js';
import { QueryTracker } from '../../src/diagnosis/query-tracker.js';
import type { IncidentChange } from '../../src/diagnosis/types.js';
import type { Progress } from '../../src/progress/types.js';
import { DAY, history, shifted, spec } from './misdated-history.js';
import { MIN } from './run-stream.js';

const clean: Progress[] = history(300);

const label = (c: IncidentChange) => `${c.type}:${c.incident.kind}@${c.incident.openedAtBatchId}/${c.incident.severity}`;

/** Where the ring stops being a timeline, if it does: a time out of order, or a batch starting before the one before it ended. */
function timelineProblem(tracker: QueryTracker): string | null {
  // The ring is the tracker's memory; read, never changed, here.
  const ring = (tracker as unknown as { ring: { all(): readonly BatchFeatures[] } }).ring.all();
  for (let i = 1; i < ring.length; i += 1) {
    const gap = ring[i]!.t - (ring[i - 1]!.t + ring[i - 1]!.d);
    if (ring[i]!.t < ring[i - 1]!.t || gap < 0) return `batch ${ring[i]!.batchId} starts ${gap} ms after batch ${ring[i - 1]!.batchId} ended`;
  }
  return null;
}

interface Fed {
  tracker: QueryTracker;
  /** The changes, each with the index of the report that caused it. */
  changes: { at: number; change: string }[];
  text: string;
  /** The first time the ring stopped being a timeline, if it did. */
  problem: string | null;
}

function feed(reports: Progress[]): Fed {
  const tracker = QueryTracker.create(spec.id, spec.name);
  const changes: Fed['changes'] = [];
  let problem: string | null = null;
  reports.forEach((p, at) => {
    for (const change of tracker.observe(p)) changes.push({ at, change: label(change) });
    problem ??= ((found) => (found ? `after report ${at}: ${found}` : null))(timelineProblem(tracker));
  });
  return { tracker, changes, text: changes.map((c) => c.change).join(' '), problem };
}

/** The index of the report whose changes first differ from the clean history's (null: none differ). */
function firstDifference(run: Fed, clean: Fed): number | null {
  for (let k = 0; k < Math.max(run.changes.length, clean.changes.length); k += 1) {
    const a = run.changes[k];
    const b = clean.changes[k];
    if (a?.at !== b?.at || a?.change !== b?.change) return Math.min(a?.at ?? Infinity, b?.at ?? Infinity);
  }
  return null;
}

/**
 * Whether the timestamps alone cannot say report `i` dated back by `byMs` is the misdated one: the
 * batches dated after it could have run, back to back from the end of the batch before them, by
 * its date, so they move instead (a consistent reading of the same times).
 */
function backIsAmbiguous(i: number, byMs: number): boolean {
  const date = clean[i]!.timestampMs - byMs;
  let first = i;
  while (first > 0 && clean[first - 1]!.timestampMs > date) first -= 1;
  if (first === 0 || first === i) return false;
  const before = clean[first - 1]!;
  const span = clean[i - 1]!.timestampMs + clean[i - 1]!.batchDurationMs - clean[first]!.timestampMs;
  return before.timestampMs + before.batchDurationMs + span <= date;
}

describe('one misdated report anywhere: the sweep', () => {
  const expected = feed(clean);
  const positions = Array.from({ length: 250 }, (_, k) => 40 + k);

  it('has a clean history that opens and resolves lag, with a timeline ring', () => {
    expect(expected.text).toMatch(/opened:lag.*resolved:lag/);
    expect(expected.problem).toBeNull();
  });

  for (const byS of [11, 15, 30, 60, 120, 300, 3600]) {
    it(`dated back ${byS} s: the clean incidents unless the times cannot tell, the ring a timeline`, () => {
      const differ: string[] = [];
      for (const i of positions) {
        const run = feed(clean.map((p, j) => (j === i ? shifted(p, -byS * 1000) : p)));
        expect(run.problem, `report ${i}`).toBeNull();
        expect(run.tracker.irregular.older, `report ${i}`).toBe(0);
        expect(run.tracker.clockMs, `report ${i}`).toBe(expected.tracker.clockMs);
        // The batches dated after it fit before it: they move, a reading as consistent as the truth.
        if (backIsAmbiguous(i, byS * 1000)) continue;
        expect(run.tracker.irregular.misdated, `report ${i}`).toBe(1);
        if (run.text !== expected.text) differ.push(`report ${i}: ${run.text}`);
      }
      expect(differ).toEqual([]);
    });
  }

  for (const byMs of [11_000, 0.5 * MIN, 1 * MIN, 5 * MIN, 60 * MIN, DAY]) {
    it(`dated ahead ${byMs / 1000} s: the clean incidents from the next report on, the ring a timeline`, () => {
      const differ: string[] = [];
      for (const i of positions) {
        const run = feed(clean.map((p, j) => (j === i ? shifted(p, byMs) : p)));
        expect(run.problem, `report ${i}`).toBeNull();
        expect(run.tracker.irregular, `report ${i}`).toEqual({ older: 0, duplicate: 0, misdated: 1 });
        expect(run.tracker.clockMs, `report ${i}`).toBe(expected.tracker.clockMs);
        // Until a later report shows it misdated, it is the newest and read at its date: what the
        // detectors said of it then (a hold period passed, causes due again) stands.
        const from = firstDifference(run, expected);
        if (from !== null && from !== i) differ.push(`report ${i}: ${run.text}`);
      }
      expect(differ).toEqual([]);
    });
  }

  it('any mix of misdated, unstamped, repeated and older reports leaves the ring a timeline', () => {
    // A seeded generator: the same sequences every run.
    let seed = 20_261_205;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const amounts = [-DAY, -60 * MIN, -5 * MIN, -MIN, -15_000, -5_000, 5_000, 15_000, MIN, 5 * MIN, 60 * MIN, DAY];
    for (let sequence = 0; sequence < 60; sequence += 1) {
      const reports = clean.slice(0, 160).flatMap((p, i): Progress[] => {
        if (i < 20 || random() > 0.08) return [p];
        const kind = Math.floor(random() * 4);
        if (kind === 0) return [shifted(p, amounts[Math.floor(random() * amounts.length)]!)];
        if (kind === 1) return [{ ...p, timestampMs: 0, timestampMissing: true }];
        if (kind === 2) return [p, p];
        return [p, clean[i - 1 - Math.floor(random() * 10)]!];
      });
      const run = feed(reports);
      expect(run.problem, `sequence ${sequence}`).toBeNull();
      expect(run.tracker.snapshot().lastBatchId, `sequence ${sequence}`).toBe(clean[159]!.batchId);
    }
  });
});
