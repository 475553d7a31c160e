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
  /** Trigger start of the batch that hung, or of the new run's first batch (finds it in the ring), epoch ms. */
  batchT: number;
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
export const MIN_DISRUPTION_MS = 2 * 60_000;
/** A hung batch runs at least this many times as long as both its predecessor and the usual batch. */
const OUTSIZED_FACTOR = 5;

/**
 * The newest batch as a disruption: the first batch of a run after downtime, or a batch that hung.
 * The tracker keeps what this finds for as long as the catch-up can last (the ring of a fast query
 * forgets it within a minute).
 */
export function disruptionAt(features: readonly BatchFeatures[]): Disruption | null {
  const n = features.length;
  if (n < 2) return null;
  const f = features[n - 1]!;
  const previous = features[n - 2]!;
  if (f.restart) {
    const downtime = f.t - (previous.t + previous.d);
    return downtime >= MIN_DISRUPTION_MS
      ? { what: 'restart', batchT: f.t, startMs: previous.t + previous.d, durationMs: downtime, catchUpFromMs: f.t }
      : null;
  }
  // Compared with the batch just before as well: batches that grow geometrically under overload
  // are many times the median of the window, but never five times their predecessor. (Checked
  // first: this runs on every batch.)
  if (f.d < OUTSIZED_FACTOR * previous.d || f.d < MIN_DISRUPTION_MS) return null;
  const before: number[] = [];
  for (let j = n - 2; j >= Math.max(0, n - 9); j -= 1) before.push(features[j]!.d);
  if (before.length < 3) return null;
  const usual = median(before);
  // A batch that read a burst is long at the usual pace; a hung one processed at a fraction of it.
  if (f.rows > 0 && f.rows / f.d >= 0.5 * usualPace(features, n - 1)) return null;
  if (f.d >= OUTSIZED_FACTOR * Math.max(usual, previous.d) && f.d - usual >= MIN_DISRUPTION_MS) {
    return { what: 'stall', batchT: f.t, startMs: f.t, durationMs: f.d - usual, catchUpFromMs: f.t + f.d };
  }
  return null;
}

/** Median rows per ms of up to 8 data batches before index `end`. */
function usualPace(features: readonly BatchFeatures[], end: number): number {
  const paces: number[] = [];
  for (let j = end - 1; j >= Math.max(0, end - 8); j -= 1) {
    const f = features[j]!;
    if (f.rows > 0 && f.d > 0) paces.push(f.rows / f.d);
  }
  return paces.length > 0 ? median(paces) : Infinity;
}

/** Catch-up batches the drain trend needs before it is trusted over the rates (noise on a fast query). */
const TREND_POINTS = 8;

/**
 * Seconds until the backlog left by the disruption drains. From the rates while the catch-up is
 * young: the backlog's rows (Kafka offsets behind, or time behind × arrivals) ÷ (the rate the
 * catch-up batches read − arrivals), the spare throughput actually seen (a cap included). Once the
 * catch-up has TREND_POINTS batches, from the trend of the backlog over them (`current` and `series`
 * in one unit; files and bytes have only this). Infinity when it is not draining; null when nothing
 * says yet.
 */
export function catchUpEtaSec(
  features: readonly BatchFeatures[],
  disruption: Disruption,
  current: number | null,
  series: readonly number[],
  arrivalRate: number | null,
  unit: 'seconds' | 'rows' | 'other',
): number | null {
  const isTime = unit !== 'other';
  if (current === null) return null;
  if (current <= 0) return 0;
  const xs: number[] = [];
  const ys: number[] = [];
  let rows = 0;
  let firstStart = Infinity;
  let lastEnd = -Infinity;
  // The newest 24 batches of the catch-up.
  for (let i = features.length - 1; i >= 0 && xs.length < 24; i -= 1) {
    const f = features[i]!;
    if (f.t < disruption.catchUpFromMs) break;
    rows += f.rows;
    firstStart = Math.min(firstStart, f.t);
    lastEnd = Math.max(lastEnd, f.t + f.d);
    const value = series[i];
    if (value === undefined || !Number.isFinite(value)) continue;
    xs.unshift((f.t + f.d) / 1000);
    ys.unshift(value);
  }
  if (xs.length >= TREND_POINTS || (!isTime && xs.length >= 3)) {
    const slope = theilSen(xs, ys);
    if (Number.isFinite(slope)) return slope < 0 ? current / -slope : Infinity;
  }
  const spanSec = (lastEnd - firstStart) / 1000;
  if (!isTime || arrivalRate === null || !(arrivalRate > 0) || xs.length < 2 || !(spanSec > 0)) return null;
  const reading = rows / spanSec;
  if (reading <= arrivalRate) return Infinity;
  return unit === 'rows' ? current / (reading - arrivalRate) : (current * arrivalRate) / (reading - arrivalRate);
}

/** Batches of the ring that started at or after `sinceMs` (a catch-up's start, a cap binding's). */
export function batchesSince(features: readonly BatchFeatures[], sinceMs: number): number {
  let count = 0;
  for (let i = features.length - 1; i >= 0 && features[i]!.t >= sinceMs; i -= 1) count += 1;
  return count;
}

/** The ring without a hung batch: causes must not be drawn from it (a restart's first batch stays). */
export function withoutDisruption(features: readonly BatchFeatures[], disruption: Disruption): readonly BatchFeatures[] {
  return disruption.what === 'stall' ? features.filter((f) => f.t !== disruption.batchT) : features;
}
