/**
 * An input ramp: the arrival rate rising over the newest batches of a run, and where that rise has
 * carried it by now. A ramp's newest arrivals are what matter, and the median arrival rate of the
 * last few batches trails them by half its window (more on Kafka, whose arrivals are offsets over up
 * to 5 batches): near capacity that lag hides a load factor already past 1 for several batches. A
 * step up inside the window reads as a ramp too, its line running past the new level: for opening
 * lag both say the input went past capacity, and what is stated to a person is bounded by the
 * newest rates (`recentHighPerSec`).
 */
import { intervalRate, type BatchFeatures } from './batch-features.js';
import { mannKendallCritical, mannKendallS, median, theilSen } from './statistics.js';

export interface InputRamp {
  /** Rows/s arriving at the end of the newest batch, on the fitted line. */
  nowPerSec: number;
  /**
   * The highest arrival rate of the newest RECENT_BATCHES batches: what they have shown, not a
   * forecast. Far behind, batches grow long, and the line read at the newest batch's end runs past
   * a ramp that has levelled off meanwhile; a load stated to a person is bounded by this.
   */
  recentHighPerSec: number;
  /** How fast the arrival rate rises: rows/s per minute. */
  risePerMin: number;
  /** Batches the rates were read over (RAMP_WINDOW). */
  batches: number;
}

/** Newest batches whose highest rate bounds what a ramp is said to have reached. */
const RECENT_BATCHES = 4;

/** Where the ramp has got to by what the newest rates have shown: its line, no higher than they went. */
export function shownPerSec(ramp: InputRamp): number {
  return Math.min(ramp.nowPerSec, ramp.recentHighPerSec);
}

/** Batches of one run a ramp is read over: long enough that a burst of a few batches is no trend. */
export const RAMP_WINDOW = 24;

/**
 * The ramp in the newest RAMP_WINDOW batches, or null when their arrival rates do not rise
 * (Mann–Kendall, one-sided at about 1 %) or a restart falls inside the window.
 *
 * For an uncapped source only (the caller's to know): each batch then reads what arrived between
 * the previous batch's start and its own, so rows ÷ that interval is the arrival rate at the
 * interval's middle, whatever the source reports of its backlog. The Theil–Sen line through those
 * rates, read at the newest batch's end, is the rate now.
 */
export function inputRamp(features: readonly BatchFeatures[]): InputRamp | null {
  const n = features.length;
  if (n <= RAMP_WINDOW) return null;
  const last = features[n - 1]!;
  // Seconds before the newest batch's end, so the line's intercept is the rate now.
  const endMs = last.t + last.d;
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = n - RAMP_WINDOW; i < n; i += 1) {
    if (features[i]!.restart) return null;
    const rate = intervalRate(features, i);
    if (rate === null) continue;
    xs.push(((features[i - 1]!.t + features[i]!.t) / 2 - endMs) / 1000);
    ys.push(rate);
  }
  if (ys.length < RAMP_WINDOW - 2 || mannKendallS(ys) < mannKendallCritical(ys.length)) return null;
  const slope = theilSen(xs, ys);
  if (!(slope > 0)) return null;
  let recentHigh = 0;
  for (let i = Math.max(0, ys.length - RECENT_BATCHES); i < ys.length; i += 1) recentHigh = Math.max(recentHigh, ys[i]!);
  return {
    nowPerSec: median(ys.map((y, i) => y - slope * xs[i]!)),
    recentHighPerSec: recentHigh,
    risePerMin: slope * 60,
    batches: RAMP_WINDOW,
  };
}
