/**
 * Lag that follows a disruption is the disruption's residue, not a new problem: after a batch
 * that hung (a stuck sink, a stalled task) or a restart after downtime, the data that piled up has
 * to be read before the query is current again. That is "backlog mode" (Flink's autoscaler): an
 * incident only when it will not drain within the catch-up budget, and then said as what it is,
 * with a drain estimate at the recent processing rate, never with a capacity or partition cause
 * drawn from one outsized batch.
 */
import type { BatchFeatures } from './batch-features.js';
import { median, theilSen } from './statistics.js';

export interface Disruption {
  what: 'stall' | 'restart';
  /** Index in the ring of the batch that hung, or of the first batch of the new run. */
  index: number;
  /** When it began: the hung batch's start, or the previous run's last batch end, epoch ms. */
  startMs: number;
  /** How long it lasted: the hung batch's excess over a usual batch, or the downtime, ms. */
  durationMs: number;
  /**
   * When the catch-up began, epoch ms: the end of the hung batch (the stall is an incident of its
   * own), or the start of the new run (its first, giant batch is already catching up).
   */
  catchUpFromMs: number;
}

/** A disruption shorter than this is ordinary jitter. */
const MIN_DISRUPTION_MS = 2 * 60_000;
/** A hung batch runs at least this many times as long as both its predecessor and the usual batch. */
const OUTSIZED_FACTOR = 5;
/** Batches after a disruption during which lag is judged as its aftermath. */
export const AFTERMATH_BATCHES = 16;

/** The newest disruption within the last `AFTERMATH_BATCHES` batches, or null. */
export function findDisruption(features: readonly BatchFeatures[]): Disruption | null {
  const n = features.length;
  for (let i = n - 1; i >= Math.max(1, n - AFTERMATH_BATCHES); i -= 1) {
    const f = features[i]!;
    const previous = features[i - 1]!;
    if (f.restart) {
      const downtime = f.t - (previous.t + previous.d);
      if (downtime >= MIN_DISRUPTION_MS) {
        return { what: 'restart', index: i, startMs: previous.t + previous.d, durationMs: downtime, catchUpFromMs: f.t };
      }
      continue;
    }
    // Compared with the batch just before as well: batches that grow geometrically under overload
    // are many times the median of the window, but never five times their predecessor.
    const before: number[] = [];
    for (let j = i - 1; j >= Math.max(0, i - 8); j -= 1) before.push(features[j]!.d);
    if (before.length < 3) continue;
    const usual = median(before);
    if (f.d >= OUTSIZED_FACTOR * Math.max(usual, previous.d) && f.d - usual >= MIN_DISRUPTION_MS) {
      return { what: 'stall', index: i, startMs: f.t, durationMs: f.d - usual, catchUpFromMs: f.t + f.d };
    }
  }
  return null;
}

/**
 * Seconds until the backlog left by the disruption drains: from the trend of time behind over the
 * batches after it when there are three or more, else from the recent rates (time behind × ρ / (1 − ρ),
 * the backlog's rows over the spare throughput). Infinity when it is not draining; null when
 * nothing says yet.
 */
export function catchUpEtaSec(
  features: readonly BatchFeatures[],
  disruption: Disruption,
  timeBehindSec: number | null,
  series: readonly number[],
  loadFactor: number | null,
): number | null {
  if (timeBehindSec === null) return null;
  if (timeBehindSec <= 0) return 0;
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = disruption.index + 1; i < features.length; i += 1) {
    const value = series[i];
    if (value === undefined || !Number.isFinite(value)) continue;
    xs.push((features[i]!.t + features[i]!.d) / 1000);
    ys.push(value);
  }
  if (xs.length >= 3) {
    const slope = theilSen(xs, ys);
    if (Number.isFinite(slope)) return slope < 0 ? timeBehindSec / -slope : Infinity;
  }
  if (loadFactor === null || !Number.isFinite(loadFactor)) return null;
  return loadFactor >= 1 ? Infinity : (timeBehindSec * loadFactor) / (1 - loadFactor);
}

/** The ring without the disruption's own batch: causes must not be drawn from it. */
export function withoutDisruption(features: readonly BatchFeatures[], disruption: Disruption): BatchFeatures[] {
  return features.filter((_, i) => i !== disruption.index);
}
