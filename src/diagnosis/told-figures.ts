/**
 * The figures an open incident's alert was last told with, and whether today's differ enough to
 * tell again. An alert open for hours must not show the numbers it opened with ("4m behind" when it
 * is two hours behind), yet a figure wobbling by a few percent must not edit the message every batch.
 */
import type { IncidentMetrics } from './types.js';

/**
 * A figure moved when it changed by at least this fraction of the larger of the two values (from
 * 8 to 10 minutes behind is 20 %: not yet; 8 to 11 is 27 %: told).
 */
export const FIGURE_MOVE_FRACTION = 0.25;
/** Time behind moves by at least this much before it counts, s (30 s to 45 s is noise on a slow trigger). */
export const TIME_BEHIND_MOVE_MIN_SEC = 60;

/** The headline numbers of an incident's metrics, as the tracker keeps them (absent figures left out). */
export function toldFigures(metrics: IncidentMetrics | undefined): Record<string, number> {
  const told: Record<string, number> = {};
  if (!metrics) return told;
  for (const key of ['timeBehindSec', 'backlog', 'stateRows', 'stateBytes', 'repartitionMs', 'silentSec'] as const) {
    const value = metrics[key];
    if (typeof value === 'number' && Number.isFinite(value)) told[key] = value;
  }
  // Draining or not is news whatever the numbers: 1 draining, 0 not (drainEtaSec null).
  if (metrics.drainEtaSec !== undefined) told.draining = metrics.drainEtaSec === null ? 0 : 1;
  return told;
}

/** Whether `now` differs from what was told enough to update the alert: a figure that came, went or moved. */
export function figuresMoved(told: Record<string, number>, now: Record<string, number>): boolean {
  for (const key of new Set([...Object.keys(told), ...Object.keys(now)])) {
    const before = told[key];
    const after = now[key];
    if (before === undefined || after === undefined) return true;
    if (key === 'draining') {
      if (before !== after) return true;
      continue;
    }
    const diff = Math.abs(after - before);
    if (key === 'timeBehindSec' && diff < TIME_BEHIND_MOVE_MIN_SEC) continue;
    if (diff >= FIGURE_MOVE_FRACTION * Math.max(Math.abs(before), Math.abs(after)) && diff > 0) return true;
  }
  return false;
}
