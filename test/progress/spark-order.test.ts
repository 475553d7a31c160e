/**
 * `sparkOrder`, the one order the CLI and detect feed the engine in: runs by when they ran, batches
 * by batchId whatever a timestamp says, a report without a time in its place, stable.
 */
import { describe, expect, it } from 'vitest';
import { sparkOrder } from '../../src/progress/spark-order.js';
import type { Progress } from '../../src/progress/types.js';
import { kafkaProgress } from '../store/fixtures.js';

const QID = '0c0c0c0c-0000-4000-8000-00000000000c';
const T0 = Date.parse('2026-11-29T10:00:00.000Z');
const DAY = 86_400_000;

/** Batches `from`…`to - 1` of `runId`, 10 s apart, in order. */
function run(runId: string, from: number, to: number, startMs = T0): Progress[] {
  return Array.from({ length: to - from }, (_, k) => kafkaProgress(QID, from + k, startMs, { runId }));
}

const dated = (p: Progress, byMs: number): Progress => ({ ...p, timestampMs: p.timestampMs + byMs });
const unstamped = (p: Progress): Progress => ({ ...p, timestampMs: 0, timestampMissing: true });
/** Deterministic shuffle. */
const shuffle = <T>(items: T[]): T[] => items.map((item, i) => ({ item, key: (i * 7919) % 31 })).sort((a, b) => a.key - b.key).map(({ item }) => item);

describe('sparkOrder', () => {
  it('puts batches by batchId within a run, a report dated a day ahead or back included', () => {
    const ordered = run('r1', 0, 20);
    ordered[5] = dated(ordered[5]!, DAY);
    ordered[12] = dated(ordered[12]!, -DAY);
    expect(sparkOrder(shuffle([...ordered]))).toEqual(ordered);
    expect(sparkOrder([...ordered].reverse())).toEqual(ordered);
  });

  it('puts runs by when they ran: one misdated report does not move its run', () => {
    const first = run('r1', 0, 10);
    const second = run('r2', 10, 20);
    second[0] = dated(second[0]!, -DAY); // its restart's first report dated a day back
    first[9] = dated(first[9]!, DAY);
    const ordered = [...first, ...second];
    expect(sparkOrder([...second, ...first])).toEqual(ordered);
    expect(sparkOrder(shuffle([...ordered]))).toEqual(ordered);
  });

  it('keeps a report without a time in its place: by batchId, or without batch ids after the report before it', () => {
    const withIds = run('r1', 0, 12);
    withIds[6] = unstamped(withIds[6]!);
    expect(sparkOrder(shuffle([...withIds]))).toEqual(withIds);
    const withoutIds = run('r1', 0, 12).map((p): Progress => ({ ...p, batchId: null }));
    withoutIds[6] = unstamped(withoutIds[6]!);
    expect(sparkOrder(withoutIds)).toEqual(withoutIds);
    // Given after a report dated after its neighbours, it stays after that one.
    const given = [withoutIds[0]!, withoutIds[1]!, withoutIds[5]!, withoutIds[6]!, withoutIds[2]!];
    expect(sparkOrder(given)).toEqual([withoutIds[0], withoutIds[1], withoutIds[2], withoutIds[5], withoutIds[6]]);
  });

  it('is stable, and orders any item by the report it carries', () => {
    const reports = run('r1', 0, 6);
    const retried = { ...reports[3]! }; // the same batch reported twice
    const entries = [reports[5]!, reports[3]!, retried, reports[0]!, reports[4]!, reports[1]!, reports[2]!].map((progress, seq) => ({ seq, progress }));
    expect(sparkOrder(entries, (entry) => entry.progress).map((entry) => entry.seq)).toEqual([3, 5, 6, 1, 2, 4, 0]);
  });
});
