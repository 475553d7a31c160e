/**
 * Lag that follows a disruption is the disruption's residue, not a new problem: after a batch
 * that hung (a stuck sink, a stalled task) or a restart after downtime, the data that piled up has
 * to be read before the query is current again. That is "backlog mode" (Flink's autoscaler): an
 * incident only when it will not drain within the catch-up budget, and then said as what it is,
 * with a drain estimate at the recent processing rate, never with a capacity or partition cause
 * drawn from one outsized batch.
 */
import type { BatchFeatures } from './batch-features.js';
import type { CapBound } from './cap-binding.js';
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
  /**
   * A restart's view of the run before it (absent for a stall, or when too few batches came
   * before): what it read, so a backlog no report carries can be estimated (`unreportedCatchUp`).
   */
  before?: RunBefore;
  /**
   * Files and bytes waiting in the batches before it (up to 16, newest first), when a file source
   * reported them: what its catch-up drains down to, kept because a fast query's ring forgets them
   * long before the catch-up can end. `filesPerSec`: those files over their batches' durations, when
   * at least 4 had files waiting: where files are listed after each batch, what arrived while it ran,
   * so the rate they arrive at (a Delta source does not say what it read).
   */
  countsBefore?: { files: number[]; bytes: number[]; filesPerSec?: number };
}

/** The arrivals of the batches just before a restart, read as the reports show them. */
export interface RunBefore {
  /** Rows per second read over the intervals between their trigger starts (what arrived: offsets read at planning). */
  arrival: number;
  /** The same less two standard errors of the per-interval rates: the most hopeful arrival rate. */
  arrivalLow: number;
  /** Most rows any of them read: at a cap that binds now, some of them read what it allowed, not all that arrived. */
  readMax: number;
  /** Trigger start of the last batch before the downtime, epoch ms: what arrived from then on waits. */
  plannedMs: number;
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
    if (downtime < MIN_DISRUPTION_MS) return null;
    const disruption: Disruption = { what: 'restart', batchT: f.t, startMs: previous.t + previous.d, durationMs: downtime, catchUpFromMs: f.t };
    const before = runBefore(features, n - 2);
    if (before !== null) disruption.before = before;
    return withCountsBefore(disruption, features);
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
    return withCountsBefore({ what: 'stall', batchT: f.t, startMs: f.t, durationMs: f.d - usual, catchUpFromMs: f.t + f.d }, features);
  }
  return null;
}

/** `disruption` with the files and bytes waiting before it (`countsBefore`), when any batch before it reported them. */
function withCountsBefore(disruption: Disruption, features: readonly BatchFeatures[]): Disruption {
  const files = valuesBefore(features, disruption, (i) => features[i]!.filesOutstanding ?? Number.NaN);
  const bytes = valuesBefore(features, disruption, (i) => features[i]!.bytesOutstanding ?? Number.NaN);
  if (files.length === 0 && bytes.length === 0) return disruption;
  disruption.countsBefore = { files, bytes };
  const rates = valuesBefore(features, disruption, (i) => {
    const f = features[i]!;
    return f.filesOutstanding !== null && f.filesOutstanding > 0 && f.d > 0 ? f.filesOutstanding / (f.d / 1000) : Number.NaN;
  });
  if (rates.length >= 4) disruption.countsBefore.filesPerSec = median(rates);
  return disruption;
}

/** Batches before a restart whose reads estimate the arrivals (at least RUN_BEFORE_MIN of them). */
const RUN_BEFORE = 8;
const RUN_BEFORE_MIN = 4;

/**
 * The arrivals of up to RUN_BEFORE batches of one run ending at index `last`: rows read per second
 * between consecutive trigger starts, null when fewer than RUN_BEFORE_MIN batches or any without data.
 */
function runBefore(features: readonly BatchFeatures[], last: number): RunBefore | null {
  let first = last;
  while (first > 0 && last - first + 1 < RUN_BEFORE && !features[first]!.restart) first -= 1;
  if (last - first + 1 < RUN_BEFORE_MIN) return null;
  const rates: number[] = [];
  let rows = 0;
  let readMax = features[first]!.rows;
  for (let i = first + 1; i <= last; i += 1) {
    const f = features[i]!;
    const gapMs = f.t - features[i - 1]!.t;
    if (!(f.rows > 0) || !(gapMs > 0)) return null;
    rates.push((f.rows * 1000) / gapMs);
    rows += f.rows;
    readMax = Math.max(readMax, f.rows);
  }
  const arrival = (rows * 1000) / (features[last]!.t - features[first]!.t);
  const mean = rates.reduce((a, b) => a + b, 0) / rates.length;
  const sd = Math.sqrt(rates.reduce((a, r) => a + (r - mean) ** 2, 0) / (rates.length - 1));
  return { arrival, arrivalLow: Math.max(0, arrival - (2 * sd) / Math.sqrt(rates.length)), readMax, plannedMs: features[last]!.t };
}

/** A backlog no report carries, estimated after a restart (see `unreportedCatchUp`). */
export interface UnreportedCatchUp {
  /** Offsets waiting after the newest batch, at the arrival rate before the restart. */
  backlog: number;
  /** Rows per second: arrivals before the restart, and what the cap admits per interval now. */
  arrival: number;
  admitted: number;
  /** Seconds to drain at those rates (Infinity when arrivals match the cap), and at the most hopeful arrival rate. */
  etaSec: number;
  etaLowSec: number;
  /** Some batches before the restart read the cap: their arrivals, and so the backlog, are at least the estimate. */
  atLeast: boolean;
  /** Seconds since the catch-up began, to the newest batch's end (the budget counts from there). */
  elapsedSec: number;
}

/** Batches after a restart before its read rate is trusted. */
const UNREPORTED_MIN_BATCHES = 3;

/**
 * The backlog of a restart whose reports carry no backlog figure while every batch since reads the
 * cap (`bound`, a binding that began with the restart): everything that arrived since the last
 * batch before the downtime was planned (at the rate the run before read) less what the batches
 * since read, drained at what the cap admits per interval. A batch before that read the cap read
 * less than arrived, so the estimate is then a lower bound (`atLeast`), which only makes it slower
 * to open. Null when that run's arrivals are unknown or fewer than UNREPORTED_MIN_BATCHES batches
 * ran since; null too once even the most hopeful estimate has drained (then the input must have
 * risen, and the reads at the cap say more than the estimate).
 */
export function unreportedCatchUp(
  features: readonly BatchFeatures[],
  disruption: Disruption | null,
  bound: CapBound,
  triggerMs: number,
): UnreportedCatchUp | null {
  // Only a binding that began with the restart: one from before it was not the downtime's.
  if (disruption === null || disruption.what !== 'restart' || bound.fromSteady || bound.sinceMs < disruption.batchT) return null;
  const before = disruption.before;
  const cap = bound.cap;
  if (before === undefined) return null;
  let read = 0;
  let batches = 0;
  for (let i = features.length - 1; i >= 0 && features[i]!.t >= disruption.batchT; i -= 1) {
    read += features[i]!.rows;
    batches += 1;
  }
  // The ring no longer reaches the restart: what was read since is unknown.
  if (batches < UNREPORTED_MIN_BATCHES || features[0]!.t >= disruption.batchT) return null;
  const latest = features[features.length - 1]!;
  const arrivedSec = (latest.t + latest.d - before.plannedMs) / 1000;
  const low = before.arrivalLow * arrivedSec - read;
  if (!(low > 0)) return null;
  const admitted = admittedSince(features, disruption, cap, triggerMs);
  const backlog = before.arrival * arrivedSec - read;
  const eta = (rows: number, arrival: number) => (admitted > arrival ? rows / (admitted - arrival) : Infinity);
  return {
    backlog,
    arrival: before.arrival,
    admitted,
    etaSec: eta(backlog, before.arrival),
    etaLowSec: eta(low, before.arrivalLow),
    atLeast: before.readMax >= 0.99 * cap,
    elapsedSec: (latest.t + latest.d - disruption.catchUpFromMs) / 1000,
  };
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
/** Catch-up batches a flat count (files, bytes) must hold before it reads as not draining. */
export const FLAT_POINTS = 5;

/**
 * Seconds until the backlog left by the disruption drains down to `normal` (the level before it:
 * a query read after its batches always has some behind). From the rates while the catch-up is
 * young: the backlog's rows (Kafka offsets behind, or time behind × arrivals) ÷ (the rate the
 * catch-up reads, `catchUpReadRate`, − arrivals), the spare throughput actually seen, at most
 * `admitted` (what a binding cap admits per interval). Once the catch-up has TREND_POINTS batches,
 * from the trend of the backlog over them (`current`, `series` and `normal` in one unit; files and
 * bytes have only this). Infinity when it is not draining; null when nothing says yet.
 */
export function catchUpEtaSec(
  features: readonly BatchFeatures[],
  disruption: Disruption,
  current: number | null,
  series: readonly number[],
  arrivalRate: number | null,
  unit: 'seconds' | 'rows' | 'other',
  normal = 0,
  admitted = Infinity,
  triggerMs = 0,
): number | null {
  const isTime = unit !== 'other';
  if (current === null) return null;
  const excess = current - normal;
  if (excess <= 0) return 0;
  const xs: number[] = [];
  const ys: number[] = [];
  // The newest 24 batches of the catch-up.
  for (let i = features.length - 1; i >= 0 && xs.length < 24; i -= 1) {
    const f = features[i]!;
    if (f.t < disruption.catchUpFromMs) break;
    const value = series[i];
    if (value === undefined || !Number.isFinite(value)) continue;
    xs.unshift((f.t + f.d) / 1000);
    ys.unshift(value);
  }
  if (xs.length >= TREND_POINTS || (!isTime && xs.length >= 3)) {
    const slope = theilSen(xs, ys);
    // A few whole files drained slowly read flat over 3 batches: "not draining" takes 5.
    if (Number.isFinite(slope)) return slope < 0 ? excess / -slope : xs.length >= FLAT_POINTS ? Infinity : null;
  }
  if (!isTime || arrivalRate === null || !(arrivalRate > 0) || xs.length < 2) return null;
  const read = catchUpReadRate(features, disruption.catchUpFromMs, triggerMs);
  if (read === null) return null;
  const reading = Math.min(read, admitted);
  if (reading <= arrivalRate) return Infinity;
  return unit === 'rows' ? excess / (reading - arrivalRate) : (excess * arrivalRate) / (reading - arrivalRate);
}

/**
 * Rows per second the catch-up's batches read, from its second batch on (the first one's interval is
 * not the usual one: after a restart it ends at the trigger clock's next tick, after a stall it reads
 * what piled up) to the end of the newest one's interval (`triggerMs` at least: a batch shorter than
 * the trigger read what arrived over its whole interval). Null before the catch-up's second batch.
 */
export function catchUpReadRate(features: readonly BatchFeatures[], catchUpFromMs: number, triggerMs: number): number | null {
  const n = features.length;
  const first = catchUpFirst(features, catchUpFromMs);
  if (first === null || n - first < 2) return null;
  let rows = 0;
  for (let i = first + 1; i < n; i += 1) rows += features[i]!.rows;
  const latest = features[n - 1]!;
  const spanSec = (latest.t + Math.max(latest.d, triggerMs) - features[first + 1]!.t) / 1000;
  return spanSec > 0 ? rows / spanSec : null;
}

/**
 * Whether the catch-up's first batch read more than twice what the batches after it read (median):
 * an uncapped source read the whole backlog at once. False when no batch followed it yet, or when
 * it is no longer known.
 */
export function giantFirstBatch(features: readonly BatchFeatures[], catchUpFromMs: number): boolean {
  const n = features.length;
  const first = catchUpFirst(features, catchUpFromMs);
  if (first === null || n - first < 2) return false;
  return features[first]!.rows > 2 * median(features.slice(first + 1).map((f) => f.rows));
}

/**
 * Index of the catch-up's first batch in the ring; null when the ring no longer reaches back before
 * it (its first batch may be gone) or a restart since began another run.
 */
function catchUpFirst(features: readonly BatchFeatures[], catchUpFromMs: number): number | null {
  const first = features.length - batchesSince(features, catchUpFromMs);
  if (first === 0) return null;
  for (let i = first + 1; i < features.length; i += 1) if (features[i]!.restart) return null;
  return first;
}

/** Up to 16 finite values of `valueAt` at the newest batches that started before the disruption, newest first. */
export function valuesBefore(features: readonly BatchFeatures[], disruption: Disruption, valueAt: (index: number) => number | undefined): number[] {
  const values: number[] = [];
  for (let i = features.length - 1; i >= 0 && values.length < 16; i -= 1) {
    if (features[i]!.t >= disruption.batchT) continue;
    const value = valueAt(i);
    if (value !== undefined && Number.isFinite(value)) values.push(value);
  }
  return values;
}

/** The level those values (`valuesBefore`) say, 0 when fewer than 4 do: what the catch-up drains down to. */
export function levelBefore(before: readonly number[]): number {
  return before.length >= 4 ? median(before) : 0;
}

/** Rows per second a binding cap of `cap` rows admits since the disruption (one cap per interval). */
export function admittedSince(features: readonly BatchFeatures[], disruption: Disruption, cap: number, triggerMs: number): number {
  const durations: number[] = [];
  for (let i = features.length - 1; i >= 0 && features[i]!.t >= disruption.batchT; i -= 1) durations.push(features[i]!.d);
  return (cap * 1000) / Math.max(triggerMs, durations.length > 0 ? median(durations) : 0);
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
