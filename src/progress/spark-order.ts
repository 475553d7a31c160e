/**
 * The order Spark ran a query's batches in, from reports read in any order (an ORDER BY timestamp
 * DESC export, an unordered table read, a poll that re-read rows). The one ordering both the CLI
 * (reading a file's out-of-order queries again) and detect (a job's inbox) feed the engine in.
 */
import { compareText } from '../util/compare-text.js';
import type { Progress } from './types.js';

/**
 * Reports in the order Spark ran them: runs by when they ran (the median of their timestamps, so
 * one misdated report does not move its run), within a run by batchId (Spark numbers batches in
 * order, so a misdated report keeps its place), then by time (a retry or an idle report after its
 * batch), then as given. A run without batch ids (Spark 2.1/2.2) goes by time alone. A report
 * without a timestamp (`timestampMissing`) takes the time of the report before it in its run as
 * given, so it keeps its place. Stable: equal reports keep the order they were given in.
 */
export function sparkOrder(reports: readonly Progress[]): Progress[];
export function sparkOrder<T>(items: readonly T[], progressOf: (item: T) => Progress): T[];
export function sparkOrder<T>(items: readonly T[], progressOf: (item: T) => Progress = (item) => item as Progress): T[] {
  const times = new Map<string, number[]>();
  const batchIds = new Map<string, boolean>();
  // The time each report is ordered by: its own, or for one without, the time before it in its run.
  const timeOf: number[] = [];
  const lastTime = new Map<string, number>();
  for (const item of items) {
    const p = progressOf(item);
    batchIds.set(p.runId, (batchIds.get(p.runId) ?? true) && p.batchId !== null);
    if (p.timestampMissing) {
      timeOf.push(lastTime.get(p.runId) ?? Number.NEGATIVE_INFINITY);
      continue;
    }
    timeOf.push(p.timestampMs);
    lastTime.set(p.runId, p.timestampMs);
    const list = times.get(p.runId);
    if (list) list.push(p.timestampMs);
    else times.set(p.runId, [p.timestampMs]);
  }
  const runAt = new Map<string, number>();
  for (const [runId, list] of times) runAt.set(runId, list.sort((a, b) => a - b)[(list.length - 1) >> 1]!);
  const at = (runId: string) => runAt.get(runId) ?? Number.POSITIVE_INFINITY;
  return items
    .map((item, index) => ({ item, p: progressOf(item), index }))
    .sort((a, b) => {
      if (a.p.runId !== b.p.runId) return at(a.p.runId) - at(b.p.runId) || compareText(a.p.runId, b.p.runId);
      return (batchIds.get(a.p.runId) ? a.p.batchId! - b.p.batchId! : 0) || timeOf[a.index]! - timeOf[b.index]! || a.index - b.index;
    })
    .map(({ item }) => item);
}
