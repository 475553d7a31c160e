/**
 * Labels of a random draw, resolved from the simulator's truth (true time behind, true load factor)
 * around the draw's change points. One query at a time; report indices are 0-based positions in
 * that query's own reports.
 *
 * - Healthy range: the largest true time behind since the query was last healthy (the start, or the
 *   previous episode's recovery) up to the change.
 * - Overload change: the episode starts at the first report at or after the change whose true time
 *   behind exceeds the healthy range while the query truly loses ground (load factor > 1: it keeps
 *   growing) and stays above the range for the next DEADLINE_REPORTS reports (not a blip). An
 *   opening counts from EARLY_TOLERANCE_REPORTS before that, or before the first report above the
 *   range for good when that came sooner (a ramp lengthens batches before it overloads). It ends at true recovery: the first later report back within
 *   the healthy range that stays near it (≤ 1.25 × range + 1 s) until the next change.
 * - Disruption (restart downtime, stall, burst, GC pause, idle gap): quiet when the true time
 *   behind is back within the healthy range within CATCH_UP_BUDGET_MS of the disruption's end;
 *   otherwise a lag episode from the first report above the range to the recovery.
 * - A stall is also labelled `stalled`: an incident must open while the stalled batch runs.
 * The deadline of each episode is `lagDeadlineIndex` (deadline.ts).
 */

import type { SimulatedBatch } from '../simulated-batch.js';
import { EARLY_TOLERANCE_REPORTS } from '../scenario.js';
import { CATCH_UP_BUDGET_MS, DEADLINE_REPORTS, SUSTAINED_OVERLOAD, lagDeadlineIndex } from './deadline.js';
import type { ChangePoint } from './types.js';

export interface LagLabel {
  kind: 'lag';
  /** What started it: an overload, or a disruption whose backlog did not drain in budget. */
  cause: 'overload' | 'no-catch-up';
  what: string;
  onsetIndex: number;
  /**
   * The earliest report an opening counts for this episode: EARLY_TOLERANCE_REPORTS before the
   * onset, or before the first report that went above the range for good if that came sooner (on
   * a ramp, batches lengthen and read further behind before the load passes 1).
   */
  earliestIndex: number;
  /** Trigger start of the onset report. */
  onsetMs: number;
  deadlineIndex: number;
  /** Median true load factor − 1 over the onset and the next DEADLINE_REPORTS reports. */
  overload: number;
  /** True when the 8-report deadline applies (overload ≥ SUSTAINED_OVERLOAD). */
  strict: boolean;
  healthyRangeSec: number;
  /** First report back within the healthy range for good; null when the run ends behind. */
  recoveryIndex: number | null;
  /** Last report of the episode (the recovery, else the last report). */
  endIndex: number;
  endMs: number;
}

export interface StallLabel {
  kind: 'stalled';
  /** The report of the stalled batch (it arrives when the stall ends). */
  index: number;
  /** The previous report's end: silence starts here. */
  fromMs: number;
  /** The stalled batch's end. */
  toMs: number;
}

export type QueryLabel = LagLabel | StallLabel;

/** Where a change point falls in this query's reports: its first report and its end time. */
function locate(change: ChangePoint, batches: SimulatedBatch[]): { index: number; untilMs: number } | null {
  if (change.type === 'disruption' && change.atBatch !== undefined) {
    const atBatch = change.atBatch;
    const i = batches.findIndex((b) => b.truth.kind === 'data' && !b.truth.retried && b.truth.batchId >= atBatch);
    if (i < 0) return null;
    // A restart's downtime ends when the new run starts; a stall or GC pause when its batch ends.
    const untilMs = change.what === 'restart' ? batches[i]!.truth.startMs : batches[i]!.endMs;
    return { index: i, untilMs };
  }
  const atMs = change.atMs ?? 0;
  const i = batches.findIndex((b) => b.truth.startMs >= atMs);
  if (i < 0) return null;
  return { index: i, untilMs: change.type === 'disruption' ? (change.untilMs ?? atMs) : atMs };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return 0;
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

/**
 * First report ≥ from whose time behind stays above `range` for `hold` more reports (or to
 * `until`); with `overloaded`, also truly losing ground there (load factor > 1), so a ramp's onset is
 * where it starts to outrun the query, not where busier batches first read a little further behind.
 */
function firstSustainedAbove(
  tb: number[],
  range: number,
  from: number,
  hold: number,
  until: number,
  overloaded?: (i: number) => boolean,
): number {
  for (let i = from; i < until; i++) {
    if (overloaded && !overloaded(i)) continue;
    const last = Math.min(until - 1, i + hold);
    let ok = true;
    for (let j = i; j <= last; j++) {
      if (!(tb[j]! > range)) {
        ok = false;
        i = j;
        break;
      }
    }
    if (ok) return i;
  }
  return -1;
}

/** First report > onset back within the range that stays near it until `until`. */
function recovery(tb: number[], range: number, onset: number, until: number): number | null {
  const near = range * 1.25 + 1;
  for (let r = onset + 1; r < until; r++) {
    if (tb[r]! > range) continue;
    let stays = true;
    for (let k = r; k < until; k++) {
      if (tb[k]! > near) {
        stays = false;
        r = k;
        break;
      }
    }
    if (stays) return r;
  }
  return null;
}

export function labelQuery(batches: SimulatedBatch[], changes: ChangePoint[]): QueryLabel[] {
  const n = batches.length;
  const tb = batches.map((b) => b.truth.timeBehindSec);
  const located = changes
    .map((change) => ({ change, at: locate(change, batches) }))
    .filter((c): c is { change: ChangePoint; at: { index: number; untilMs: number } } => c.at !== null)
    .sort((a, b) => a.at.index - b.at.index);
  const labels: QueryLabel[] = [];
  let healthyFrom = 0;
  let busyUntil = -1;
  // Reports inside a disruption that drained in budget are not part of the healthy range.
  const disrupted = new Array<boolean>(n).fill(false);
  located.forEach(({ change, at }, k) => {
    if (change.type === 'disruption' && change.what === 'stall' && at.index > 0) {
      labels.push({ kind: 'stalled', index: at.index, fromMs: batches[at.index - 1]!.endMs, toMs: batches[at.index]!.endMs });
    }
    if (at.index <= busyUntil) return;
    const nextChange = located[k + 1]?.at.index ?? n;
    let range = 0;
    for (let i = healthyFrom; i < at.index; i++) if (!disrupted[i]) range = Math.max(range, tb[i]!);
    let onset = -1;
    let above = -1;
    let rec: number | null = null;
    let cause: LagLabel['cause'] = 'overload';
    if (change.type === 'overload') {
      onset = firstSustainedAbove(tb, range, at.index, DEADLINE_REPORTS, n, (i) => batches[i]!.truth.loadFactor > 1);
      if (onset < 0) return;
      above = firstSustainedAbove(tb, range, at.index, DEADLINE_REPORTS, n);
      rec = recovery(tb, range, onset, nextChange > onset ? nextChange : n);
    } else {
      const drained = tb.findIndex((x, i) => i >= at.index && batches[i]!.endMs >= at.untilMs && x <= range);
      if (drained >= 0 && batches[drained]!.endMs - at.untilMs <= CATCH_UP_BUDGET_MS) {
        for (let i = at.index; i < drained; i++) disrupted[i] = true;
        return;
      }
      const lastEnd = batches[n - 1]!.endMs;
      if (drained < 0 && lastEnd - at.untilMs <= CATCH_UP_BUDGET_MS) return; // undecided at the run's end
      cause = 'no-catch-up';
      onset = firstSustainedAbove(tb, range, at.index, n, drained >= 0 ? drained : n);
      if (onset < 0) return;
      rec = drained >= 0 ? recovery(tb, range, onset, nextChange > onset ? nextChange : n) : null;
    }
    const endIndex = rec ?? n - 1;
    const window = batches.slice(onset, Math.min(n, onset + DEADLINE_REPORTS + 1)).map((b) => b.truth.loadFactor);
    const overload = median(window) - 1;
    const deadlineIndex = lagDeadlineIndex(tb, onset, overload, endIndex);
    labels.push({
      kind: 'lag',
      cause,
      what: change.what,
      onsetIndex: onset,
      earliestIndex: Math.max(0, Math.min(onset, above >= 0 ? above : onset) - EARLY_TOLERANCE_REPORTS),
      onsetMs: batches[onset]!.truth.startMs,
      deadlineIndex,
      overload,
      strict: overload >= SUSTAINED_OVERLOAD,
      healthyRangeSec: range,
      recoveryIndex: rec,
      endIndex,
      endMs: batches[endIndex]!.endMs,
    });
    busyUntil = endIndex;
    if (rec !== null) healthyFrom = rec;
  });
  return labels;
}
