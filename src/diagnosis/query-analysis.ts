/**
 * Numbers derived from a query's recent batches that every detector shares: trigger interval
 * (known or inferred), cadence, arrival rate, processing capacity, load factor, admission cap, and
 * the lag signal (time behind, or the backlog when only a count is known).
 * The physics: a micro-batch reads what arrived since the last one (up to its admission cap) and the
 * next starts when it ends or at the trigger, whichever is later; so batches longer than the trigger
 * mean the query cannot keep up.
 */
import { capFromReads, capTolerance } from './admission-cap.js';
import type { BatchFeatures } from './batch-features.js';
import { inputRamp, type InputRamp } from './input-ramp.js';
import { mannKendallCritical, mannKendallS, median, quantileInPlace, theilSen } from './statistics.js';

export type LagSignalKind = 'kafka' | 'kinesis' | 'files' | 'bytes' | 'duration';

export interface Analysis {
  /** Trigger interval, ms: as given, else inferred; 0 = batches run back to back (default trigger). */
  triggerMs: number;
  triggerInferred: boolean;
  /** Expected time between progress reports, ms. */
  cadenceMs: number;
  signal: LagSignalKind;
  /** Lag signal per batch of `features` (seconds for kafka/kinesis/duration, else counts); NaN = unknown. */
  series: number[];
  /** `series[i]` without building the whole series (the hot path reads a few of the newest). */
  seriesAt(i: number): number;
  /**
   * The features this analysis reads, copied out of the array it was given (a tracker's ring, which
   * the next batch shifts), so that what is computed later still reads this batch. Idempotent.
   */
  detach(): readonly BatchFeatures[];
  /** Rows/s arriving at the source, recent. */
  arrivalRate: number | null;
  /** Rows/s the query processes per second of busy time (rows ÷ addBatch), recent. */
  capacity: number | null;
  /** arrival ÷ capacity (DS2's ρ). */
  loadFactor: number | null;
  /** Arrivals rising through the newest batches (input-ramp.ts); null when capped. */
  inputRamp: InputRamp | null;
  /** Rows every recent batch read when they all read the same (an admission cap reached). */
  cappedRows: number | null;
  /**
   * Files every recent batch read when they all read the same count, each leaving files waiting
   * (where the offsets say what a batch read: Auto Loader's always, Delta's within one table
   * version): a `maxFilesPerTrigger` cap reached, which the rows do not show when the files' sizes vary.
   */
  cappedFiles: number | null;
  /**
   * The newest batches left files waiting, more of them per ms of batch, where the run before them
   * mostly left none (counted at planning, a source without a cap reads all it lists): a cap of files
   * or bytes binds, which reads of varying size do not show and Delta's offsets count only within
   * one table version.
   */
  filesLeftAtPlanning: boolean;
  /** With several Kafka sources: the one whose reads are capped, with its own arrival rate. */
  cappedSource: { index: number; rows: number; arrival: number | null } | null;
  timeBehindSec: number | null;
  /** Growth of the lag signal per minute of wall time (negative when draining). */
  trendPerMin: number | null;
  /** Seconds until the backlog drains at the current trend; null = not draining. */
  drainEtaSec: number | null;
}

/**
 * Whether recent batches read an admission cap (in rows, in files, or leaving files at planning):
 * their reads are what it admits, no arrival rate.
 */
export function atACap(analysis: Pick<Analysis, 'cappedRows' | 'cappedFiles' | 'filesLeftAtPlanning'>): boolean {
  return analysis.cappedRows !== null || analysis.cappedFiles !== null || analysis.filesLeftAtPlanning;
}

/** Rows/s arriving per Kafka source (several sources only), from each one's latest offsets. */
export function sourceArrivalsAt(previous: readonly BatchFeatures[], f: BatchFeatures): (number | null)[] {
  const out: (number | null)[] = [];
  for (let s = 0; s < f.kLatest.length; s += 1) {
    const latest = f.kLatest[s]!;
    let rate: number | null = null;
    if (latest !== null) {
      const fetchedAt = (x: BatchFeatures) => ((x.kBehind[s] ?? 0) > 0 ? x.t + x.d : x.t);
      for (let k = Math.min(5, previous.length); k >= 1 && rate === null; k -= 1) {
        const base = previous[previous.length - k]!;
        const baseLatest = base.kLatest.length === f.kLatest.length ? base.kLatest[s] : null;
        if (baseLatest === null || baseLatest === undefined || fetchedAt(base) >= fetchedAt(f)) continue;
        if (latest >= baseLatest) rate = (latest - baseLatest) / ((fetchedAt(f) - fetchedAt(base)) / 1000);
      }
    }
    out.push(rate);
  }
  return out;
}

/**
 * Seconds of data waiting for Auto Loader, whose offsets count files: files arriving per second
 * = (growth of the outstanding files + files read) ÷ time between batch ends, and time behind =
 * outstanding ÷ that rate, plus the batch's duration: the files are listed at planning, so what
 * arrived while the batch ran waits too (as with none outstanding, and without a drop from the
 * batch's duration to a few seconds when the first file is left over). Null when the source does
 * not say what it read.
 */
export function fileTimeBehindAt(previous: readonly BatchFeatures[], f: BatchFeatures): number | null {
  const base = previous[previous.length - 1];
  if (!base || f.filesOutstanding === null || base.filesOutstanding === null || f.filesRead === null) return null;
  const during = f.rows > 0 ? f.d / 1000 : 0;
  if (f.filesOutstanding === 0) return during;
  const perSec = fileArrivalsPerSec(base, f);
  if (perSec === null) return null;
  // Files counted after the batch already hold what arrived while it ran: the oldest is that old.
  return f.filesOutstanding / perSec + (countedAfterBatch(previous) ? 0 : during);
}

/** Batches back over which `countedAfterBatch` reads the files waiting against each batch's arrivals, and how many may stray. */
const COUNTED_AFTER_BATCHES = 8;
const COUNTED_AFTER_STRAYS = 2;

/**
 * Whether the source counts its files waiting after each batch (Auto Loader's asynchronous listing)
 * rather than at planning: over the newest COUNTED_AFTER_BATCHES batches the files waiting were about
 * what arrived while that batch ran (within a quarter, all but COUNTED_AFTER_STRAYS; the median within a tenth), as
 * they are when the batches read all there was. Counted at planning, a batch that read everything
 * leaves none, and a backlog left at a cap does not follow the batches' durations.
 */
export function countedAfterBatch(features: readonly BatchFeatures[]): boolean {
  const n = features.length;
  if (n <= COUNTED_AFTER_BATCHES) return false;
  const ratios: number[] = [];
  let outside = 0;
  for (let i = n - COUNTED_AFTER_BATCHES; i < n; i += 1) {
    const f = features[i]!;
    const perSec = fileArrivalsPerSec(features[i - 1]!, f);
    if (perSec === null || f.filesOutstanding === null || !(f.d > 0) || f.restart) return false;
    const ratio = f.filesOutstanding / ((perSec * f.d) / 1000);
    if (ratio < 0.75 || ratio > 1.33) outside += 1;
    ratios.push(ratio);
  }
  // A file or two either way at a few files a batch: two batches may stray without the count
  // (and the time behind it gives) flipping.
  const mid = median(ratios);
  return outside <= COUNTED_AFTER_STRAYS && mid >= 0.9 && mid <= 1.1;
}

/**
 * Files arriving per second between the ends of batches `base` and `f` (Auto Loader, whose offsets
 * say what each batch read): growth of the outstanding files plus the files `f` read, over the time
 * between them. Null when a figure is missing or nothing arrived.
 */
export function fileArrivalsPerSec(base: BatchFeatures, f: BatchFeatures): number | null {
  if (f.filesOutstanding === null || base.filesOutstanding === null || f.filesRead === null) return null;
  const spanSec = (f.t + f.d - (base.t + base.d)) / 1000;
  const arrived = f.filesOutstanding - base.filesOutstanding + f.filesRead;
  return spanSec > 0 && arrived > 0 ? arrived / spanSec : null;
}

/** Whether the printed latest offsets are past the batch's end offsets (read after the batch, 17.1+). */
function latestAfterEnd(f: BatchFeatures): boolean {
  return f.kafkaLatest !== null && f.kafkaEnd !== null && f.kafkaLatest > f.kafkaEnd;
}

/** When the printed latest offsets were read: at the batch's end when they are past its end, else at planning. */
function latestFetchedAt(f: BatchFeatures): number {
  return latestAfterEnd(f) ? f.t + f.d : f.t;
}

/** Rows/s arriving, for the batch `f` appended after `previous` (oldest first). */
export function arrivalRateAt(previous: readonly BatchFeatures[], f: BatchFeatures): number | null {
  // Kafka: growth of the latest offsets between batch starts, over up to 5 batches to smooth
  // the fetch-time jitter (17.1+ fetches after the batch, older runtimes at planning).
  // A backlog after the batch means the latest offsets were read at its end (17.1+); none means
  // they were read at planning and the batch consumed up to them.
  if (f.kafkaLatest !== null) {
    const fetchedAt = latestFetchedAt;
    // Not across an idle stretch: nothing arrived then, and a window that spans it reads the rate
    // low (and time behind, backlog ÷ rate, high) for batches after input resumes.
    // (Idle reports are not in the ring: an idle stretch shows as a start gap far above the others.)
    let oldest = Math.min(5, previous.length);
    const gaps: number[] = [];
    for (let i = previous.length - 1; i >= 1 && gaps.length < 8; i -= 1) gaps.push(previous[i]!.t - previous[i - 1]!.t);
    const usualGap = median(gaps);
    if (Number.isFinite(usualGap) && usualGap > 0) {
      let later = f;
      for (let k = 1; k <= oldest; k += 1) {
        const base = previous[previous.length - k]!;
        // Idle time between the base's end and the next start: batches that overrun and run back to
        // back have none, however long they grow.
        if (base.rows === 0 || later.t - (base.t + base.d) > 2.5 * usualGap) {
          oldest = k - 1;
          break;
        }
        later = base;
      }
      // The first batch after the stretch: the rate before it is the better guess.
      const before = previous[previous.length - 1];
      if (oldest === 0 && before && before.arrival !== null) return before.arrival;
    }
    for (let k = oldest; k >= 1; k -= 1) {
      const base = previous[previous.length - k]!;
      if (base.kafkaLatest === null || fetchedAt(base) >= fetchedAt(f)) continue;
      const growth = f.kafkaLatest - base.kafkaLatest;
      if (growth >= 0) return growth / ((fetchedAt(f) - fetchedAt(base)) / 1000);
    }
  }
  // Otherwise the input rate is the arrival rate unless a cap or a restart distorts it.
  if (f.inRate !== null && f.inRate > 0 && !f.restart) return f.inRate;
  const last = previous[previous.length - 1];
  return last ? last.arrival : null;
}

/** Seconds of data waiting at the source after batch `f`. */
export function timeBehindOf(f: BatchFeatures, latestAtPlanning = false): number | null {
  // Offsets behind latest as of planning leave out what arrived while the batch ran: that waits too.
  const during = latestAtPlanning ? f.d / 1000 : 0;
  if (f.kArrival.length > 0) {
    // Several Kafka sources: the query is as far behind as its furthest-behind source.
    let worst: number | null = null;
    for (let s = 0; s < f.kArrival.length; s += 1) {
      const behind = f.kBehind[s];
      const arrival = f.kArrival[s];
      let sec: number | null = null;
      if (behind === null || behind === undefined) continue;
      if (behind > 0 && arrival !== null && arrival !== undefined && arrival > 0) sec = behind / arrival + during;
      else if (behind === 0) sec = f.rows > 0 ? f.d / 1000 : 0;
      if (sec !== null && (worst === null || sec > worst)) worst = sec;
    }
    if (worst !== null) return worst;
  }
  if (f.kafkaBehind !== null) {
    if (f.kafkaBehind > 0 && f.arrival !== null && f.arrival > 0) return f.kafkaBehind / f.arrival + during;
    if (f.kafkaBehind > 0) return null;
    // Reads 0 (planning-time latest offsets): what arrived during the batch is waiting.
    return f.rows > 0 ? f.d / 1000 : 0;
  }
  if (f.msBehind !== null) return f.msBehind / 1000;
  if (f.filesOutstanding !== null && f.filesOutstanding === 0 && f.filesRead !== null) return f.rows > 0 ? f.d / 1000 : 0;
  if (f.filesOutstanding !== null || f.bytesOutstanding !== null) return null;
  return f.rows > 0 ? f.d / 1000 : 0;
}

export function signalKind(features: readonly BatchFeatures[]): LagSignalKind {
  const last = features[features.length - 1];
  if (!last) return 'duration';
  if (last.kafkaBehind !== null) return 'kafka';
  if (last.msBehind !== null) return 'kinesis';
  // An uncapped file source reads everything listed, so its backlog metrics read 0 however far
  // behind it is: then the backlog lives inside the batches.
  let files = false;
  let bytes = false;
  for (let i = Math.max(0, features.length - 8); i < features.length; i += 1) {
    if ((features[i]!.filesOutstanding ?? 0) > 0) files = true;
    if ((features[i]!.bytesOutstanding ?? 0) > 0) bytes = true;
  }
  if (last.filesOutstanding !== null && files) return 'files';
  if (last.bytesOutstanding !== null && bytes) return 'bytes';
  return 'duration';
}

export function signalValue(f: BatchFeatures, kind: LagSignalKind): number {
  switch (kind) {
    case 'kafka':
    case 'kinesis':
      return f.timeBehindSec ?? Number.NaN;
    case 'files':
      return f.filesOutstanding ?? Number.NaN;
    case 'bytes':
      return f.bytesOutstanding ?? Number.NaN;
    case 'duration':
      return f.rows > 0 || f.d > 0 ? f.d / 1000 : Number.NaN;
  }
}

/**
 * Trigger interval from the gaps between batch starts that had idle time before them (the
 * previous batch ended early); null when batches always ran back to back, or when the only idle
 * time was input that stopped between batches that otherwise run back to back.
 */
export function inferTriggerMs(features: readonly BatchFeatures[]): number | null {
  // Gaps go straight into typed scratch buffers (this runs every few batches of every query).
  const size = Math.max(features.length, 1);
  const gaps = size <= GAPS.length ? GAPS : new Float64Array(size);
  const onSchedule = size <= ON_SCHEDULE.length ? ON_SCHEDULE : new Float64Array(size);
  const gridStarts = size <= GRID_STARTS.length ? GRID_STARTS : new Float64Array(size);
  const overrunSpans = size <= OVERRUN_SPANS.length ? OVERRUN_SPANS : new Float64Array(size);
  let gapCount = 0;
  let overrunCount = 0;
  let onScheduleCount = 0;
  /** The longest gap after a batch that started back to back: at most T (see gridInterval). */
  let offGridGap = 0;
  /** Idle time before the previous batch (false after a restart): carried, not judged twice. */
  let idleBeforePrev = false;
  for (let i = 1; i < features.length; i += 1) {
    const prev = features[i - 1]!;
    const cur = features[i]!;
    const startedOnSchedule = idleBeforePrev;
    idleBeforePrev = idleGap(prev, cur);
    // A batch that started on schedule and was followed back to back: their span is at least T.
    if (startedOnSchedule && !idleBeforePrev && !cur.restart && runStarted(prev)) overrunSpans[overrunCount++] = cur.t - prev.t;
    if (!idleBeforePrev || !runStarted(prev)) continue;
    const gap = cur.t - prev.t;
    gaps[gapCount++] = gap;
    // Spark schedules triggers on a fixed grid: after an overrun the next batch starts at once and
    // the one after on the grid, a gap shorter than T. A gap whose start was itself on schedule
    // (idle time before it too) is T, or a whole multiple of it after idle triggers.
    if (startedOnSchedule) onSchedule[onScheduleCount++] = gap;
    // Not on schedule and not the ring's first batch: it started back to back.
    else if (i >= 2) offGridGap = Math.max(offGridGap, gap);
    // Every gap counted here ends at a start on the grid (as many starts as gaps).
    gridStarts[gapCount - 1] = cur.t;
  }
  if (gapCount < 3) return null;
  // Idle triggers without a report make some gaps whole multiples of T: the low quantile is T.
  // A query near its capacity overruns most triggers, so few gaps start on the grid, and the gaps
  // after an overrun are shorter than T: their low quantile reads T short (a 7 s trigger as 6 s,
  // and 9 s batches as overrunning it by half). The grid itself still shows in the starts.
  const interval =
    onScheduleCount >= 3
      ? configuredTrigger(Math.round(quantileInPlace(onSchedule, onScheduleCount, 0.2)))
      : (gridInterval(features, gridStarts, gapCount, offGridGap) ?? configuredTrigger(Math.round(quantileInPlace(gaps, gapCount, 0.2))));
  // Spark starts a batch at once only when the one before ran past the next grid point, so a batch
  // that started on the grid and was followed back to back took at least T. An interval well past
  // what such batches took is no trigger: the gaps were input that stopped, between batches that
  // run back to back (a back-to-back query showed its idle stretches, 30 s to 8 min, as its
  // trigger). Their median, with room: a start the driver delayed, or work between batches that
  // reads as idle time, leaves one such span short of T now and then.
  if (overrunCount > 0 && interval > OVERRUN_ROOM * quantileInPlace(overrunSpans, overrunCount, 0.5) + 2 * GRID_LATE_MS) return null;
  return interval;
}

const GAPS = new Float64Array(256);
const ON_SCHEDULE = new Float64Array(256);
const GRID_STARTS = new Float64Array(256);
const OVERRUN_SPANS = new Float64Array(256);
/** How far past the median span of batches that overran their trigger an inferred interval may be. */
const OVERRUN_ROOM = 1.5;

/**
 * The longest interval, in whole ms, that fits Spark's schedule (ProcessingTimeExecutor): a batch
 * starts at the first multiple of T since the epoch after the previous batch started, or when that
 * one ends if later. So every start that waited for the grid is a multiple of T (a few ms late);
 * every batch that followed another back to back did so past such a multiple; and a batch that
 * started back to back and ended early waited less than T for the next one (`offGridGap`).
 * Candidates: the shortest span between starts on the grid ÷ 1, 2, …, to the ms. Null when none fits.
 */
function gridInterval(
  features: readonly BatchFeatures[],
  starts: Float64Array,
  count: number,
  offGridGap: number,
): number | null {
  let shortest = Infinity;
  for (let i = 1; i < count; i += 1) shortest = Math.min(shortest, starts[i]! - starts[i - 1]!);
  for (let m = 1; m <= GRID_MAX_MULTIPLE; m += 1) {
    const guess = shortest / m;
    if (guess < GRID_MIN_MS || guess < offGridGap - GRID_LATE_MS) return null;
    // Both ends of the span are up to GRID_LATE_MS late: T is within that ÷ m of the guess.
    const reach = Math.ceil(GRID_LATE_MS / m);
    for (let delta = 0; delta <= reach; delta = delta > 0 ? -delta : 1 - delta) {
      const interval = Math.round(guess) + delta;
      if (fitsGrid(features, starts, count, interval)) return interval;
    }
  }
  return null;
}

/** Whether the starts on the grid and the back-to-back batches fit a trigger of `interval` ms. */
function fitsGrid(features: readonly BatchFeatures[], starts: Float64Array, count: number, interval: number): boolean {
  for (let i = 0; i < count; i += 1) {
    const late = starts[i]! % interval;
    if (late > GRID_LATE_MS) return false;
  }
  for (let i = 1; i < features.length; i += 1) {
    const prev = features[i - 1]!;
    const cur = features[i]!;
    if (cur.restart || idleBefore(prev, cur)) continue;
    const nextPoint = Math.floor(prev.t / interval) * interval + interval;
    if (nextPoint > cur.t + GRID_LATE_MS) return false;
  }
  return true;
}

/**
 * The trigger configured, from one read off the gaps between starts: each start is a few ms late of
 * its grid point, so real reports read a 1 s trigger as 999 ms. People configure whole seconds (whole
 * tenths below one): a reading within 1 % and GRID_LATE_MS of one is that.
 */
export function configuredTrigger(ms: number): number {
  const step = ms >= 1_000 ? 1_000 : 100;
  const round = Math.round(ms / step) * step;
  return round > 0 && Math.abs(round - ms) <= Math.min(GRID_LATE_MS, 0.01 * ms) ? round : ms;
}

/** Whole intervals tried below the shortest span between starts on the grid. */
const GRID_MAX_MULTIPLE = 16;
/** How late after its grid point a batch may start, ms (Spark's start a few ms late). */
const GRID_LATE_MS = 25;
/** No trigger is inferred below this, ms. */
const GRID_MIN_MS = 100;

/**
 * Whether the newest batch adds a gap `inferTriggerMs` counts. Each gap depends only on its own pair
 * of batches, so without a new one an inference that found too few gaps still finds too few. (A null
 * from the overrun check can also end as batches leave the ring: the tracker's refresh every few
 * batches sees to that.)
 */
export function newestGapCounts(features: readonly BatchFeatures[]): boolean {
  const n = features.length;
  return n >= 2 && idleGap(features[n - 2]!, features[n - 1]!) && runStarted(features[n - 2]!);
}

/** b started after idle time since a, in the same run. */
function idleGap(a: BatchFeatures, b: BatchFeatures): boolean {
  return !b.restart && b.t - a.t > 0 && idleBefore(a, b);
}

/**
 * Not a run's first batch: that one starts when the query does, off the trigger grid, and the next
 * one on it, so the gap between them is less than an interval.
 */
function runStarted(a: BatchFeatures): boolean {
  return a.restart !== 1 && a.batchId !== 0;
}

/** Idle time between two batches past which input had stopped: this many trigger intervals, or batch durations. */
const IDLE_STRETCH = 2;

/**
 * Input stopped between batch a and the next batch b: b started over IDLE_STRETCH trigger intervals
 * (or batch durations, back to back) after a ended, and not as a restart (downtime is the
 * restart's). One trigger that found no data leaves a gap of about 2T − d, under it; a driver that
 * stalled between batches leaves such a gap too, and its batches are as partial. (`arrivalRateAt`
 * compares with the usual gap between starts instead: it runs as a batch is added, before the
 * trigger interval is inferred.)
 */
export function idleStretch(a: BatchFeatures, b: BatchFeatures, triggerMs: number): boolean {
  return !b.restart && b.t - (a.t + a.d) > IDLE_STRETCH * Math.max(triggerMs, a.d, b.d);
}

/**
 * Idle time between batch a and the next batch b (a ended early). Module level, not a closure in
 * the loop: tsx compiles with keepNames, so every closure created costs a defineProperty.
 */
export function idleBefore(a: BatchFeatures, b: BatchFeatures): boolean {
  return b.t - a.t > a.d + Math.max(100, (b.t - a.t) * 0.05);
}

/**
 * Median of the newest batches' arrival rates: up to `count` finite ones within the newest `back`
 * batches, back to the run's first batch when `ownRun`; null when there are none.
 */
export function medianArrival(features: readonly BatchFeatures[], count: number, back: number, ownRun: boolean): number | null {
  const values: number[] = [];
  for (let i = features.length - 1; i >= 0 && i >= features.length - back && values.length < count; i -= 1) {
    const f = features[i]!;
    if (f.arrival !== null && Number.isFinite(f.arrival)) values.push(f.arrival);
    if (ownRun && f.restart) break;
  }
  return values.length > 0 ? median(values) : null;
}

/**
 * `runMaxRows`: the most rows any batch of the current run but its first read, the ring's or older
 * (0 = unknown). A Kafka cap bounds the batches of its run (within rounding: admission-cap.ts), so a
 * count some batch exceeded by more than the cap test's 1 % is no cap.
 */
export function analyze(
  features: readonly BatchFeatures[],
  knownTriggerMs: number | null,
  inferredTriggerMs?: number | null,
  runMaxRows = 0,
  kafkaPartitions = 0,
): Analysis {
  const inferred =
    knownTriggerMs === null ? (inferredTriggerMs !== undefined ? inferredTriggerMs : inferTriggerMs(features)) : null;
  return new LazyAnalysis(features, knownTriggerMs ?? inferred ?? 0, knownTriggerMs === null, runMaxRows, kafkaPartitions);
}

/**
 * Analysis computed on first use, field by field: it runs for every batch of every query, and most
 * batches need only a few of these numbers. Plain loops, no closures: this is the hot path.
 */
class LazyAnalysis implements Analysis {
  readonly signal: LagSignalKind;
  private seriesMemo: number[] | null = null;
  private cadenceMemo = -1;
  private arrivalMemo: number | null | undefined;
  private capacityMemo: number | null | undefined;
  private cappedMemo: number | null | undefined;
  private cappedFilesMemo: number | null | undefined;
  private filesLeftMemo: boolean | undefined;
  private rampMemo: InputRamp | null | undefined;
  private trendMemo: { trendPerMin: number | null; drainEtaSec: number | null } | undefined;

  private detached = false;

  constructor(
    private features: readonly BatchFeatures[],
    readonly triggerMs: number,
    readonly triggerInferred: boolean,
    private readonly runMaxRows: number,
    /** Kafka partitions read (0 = unknown): how far apart reads at one cap can be (admission-cap.ts). */
    private readonly kafkaPartitions: number,
  ) {
    this.signal = signalKind(features);
  }

  detach(): readonly BatchFeatures[] {
    if (!this.detached) {
      this.features = this.features.slice();
      this.detached = true;
    }
    return this.features;
  }

  seriesAt(i: number): number {
    return this.seriesMemo !== null ? this.seriesMemo[i]! : signalValue(this.features[i]!, this.signal);
  }

  get series(): number[] {
    if (this.seriesMemo === null) {
      const features = this.features;
      // One map per kind (exactly sized, packed doubles): a switch per element costs more than the reads.
      let out: number[];
      switch (this.signal) {
        case 'kafka':
        case 'kinesis':
          out = features.map((f) => f.timeBehindSec ?? Number.NaN);
          break;
        case 'files':
          out = features.map((f) => f.filesOutstanding ?? Number.NaN);
          break;
        case 'bytes':
          out = features.map((f) => f.bytesOutstanding ?? Number.NaN);
          break;
        default:
          out = features.map((f) => signalValue(f, 'duration'));
      }
      this.seriesMemo = out;
    }
    return this.seriesMemo;
  }

  get cadenceMs(): number {
    if (this.cadenceMemo < 0) {
      const n = this.features.length;
      const durations: number[] = [];
      for (let i = Math.max(0, n - 8); i < n; i += 1) durations.push(this.features[i]!.d);
      this.cadenceMemo = Math.max(this.triggerMs, median(durations) || 0, n > 0 ? this.features[n - 1]!.d : 0);
    }
    return this.cadenceMemo;
  }

  get arrivalRate(): number | null {
    if (this.arrivalMemo === undefined) this.arrivalMemo = medianArrival(this.features, 5, 8, false);
    return this.arrivalMemo;
  }

  get capacity(): number | null {
    if (this.capacityMemo === undefined) this.capacityMemo = processingCapacity(this.features);
    return this.capacityMemo;
  }

  get loadFactor(): number | null {
    const arrival = this.arrivalRate;
    const capacity = this.capacity;
    return arrival !== null && capacity !== null && capacity > 0 ? arrival / capacity : null;
  }

  get inputRamp(): InputRamp | null {
    // A cap's reads are what it admits, not what arrived.
    if (this.rampMemo === undefined) this.rampMemo = !atACap(this) ? inputRamp(this.features) : null;
    return this.rampMemo;
  }

  get cappedRows(): number | null {
    if (this.cappedMemo === undefined) {
      this.cappedMemo = null;
      const n = this.features.length;
      if (n >= 4 && this.features[Math.max(0, n - 5)]!.rows > 0) {
        let low = Infinity;
        let high = 0;
        const rows: number[] = [];
        for (let i = Math.max(0, n - 5); i < n; i += 1) {
          const r = this.features[i]!.rows;
          rows.push(r);
          if (r < low) low = r;
          if (r > high) high = r;
        }
        const last = this.features[n - 1]!;
        const kafka = last.kafkaEnd !== null && last.filesOutstanding === null;
        // Spark prorates a Kafka cap over the partitions and floors each share: reads at one cap
        // differ by up to 2 (P − 1) offsets, which is more than 1 % of a small cap.
        const tolerance = Math.max(0.01 * high, kafka && this.kafkaPartitions > 0 ? capTolerance(high, this.kafkaPartitions) : 0);
        // Kafka rows are offsets read: a count that a batch of the run exceeded is no cap (a steady
        // feed reads nearly the same count too), nor is one that left nothing behind (the batch read
        // all there was). File caps count files, whose rows vary.
        const exceeded = kafka && (this.runMaxRows > high + tolerance || last.kafkaBehind === 0);
        // Floored shares read at most the cap, a little less: from the highest read (capFromReads).
        if (low > 0 && high - low <= tolerance && !exceeded) this.cappedMemo = kafka ? capFromReads(high, this.kafkaPartitions) : Math.round(median(rows));
      }
      if (this.cappedMemo === null) this.cappedMemo = this.cappedSource?.rows ?? null;
    }
    return this.cappedMemo;
  }

  get filesLeftAtPlanning(): boolean {
    if (this.filesLeftMemo === undefined) this.filesLeftMemo = filesLeftIn(this.features);
    return this.filesLeftMemo;
  }

  get cappedFiles(): number | null {
    if (this.cappedFilesMemo === undefined) this.cappedFilesMemo = filesCapIn(this.features);
    return this.cappedFilesMemo;
  }

  /** A Kafka source (of several) that read the same number of offsets in each recent batch. */
  get cappedSource(): { index: number; rows: number; arrival: number | null } | null {
    const n = this.features.length;
    const last = this.features[n - 1];
    if (!last || last.kRows.length === 0 || n < 5) return null;
    for (let s = 0; s < last.kRows.length; s += 1) {
      let low = Infinity;
      let high = 0;
      for (let i = n - 5; i < n; i += 1) {
        const r = this.features[i]!.kRows[s] ?? 0;
        if (r < low) low = r;
        if (r > high) high = r;
      }
      if (low > 0 && (high - low) / high <= 0.01) {
        const arrivals: number[] = [];
        for (let i = n - 5; i < n; i += 1) {
          const a = this.features[i]!.kArrival[s];
          if (a !== null && a !== undefined) arrivals.push(a);
        }
        return { index: s, rows: Math.round(high), arrival: arrivals.length > 0 ? median(arrivals) : null };
      }
    }
    return null;
  }

  get timeBehindSec(): number | null {
    const last = this.features[this.features.length - 1];
    if (last === undefined) return null;
    if (this.signal === 'duration') return last.rows > 0 ? last.d / 1000 : 0;
    return last.timeBehindSec;
  }

  get trendPerMin(): number | null {
    return this.trend().trendPerMin;
  }

  get drainEtaSec(): number | null {
    return this.trend().drainEtaSec;
  }

  private trend(): { trendPerMin: number | null; drainEtaSec: number | null } {
    if (this.trendMemo === undefined) this.trendMemo = trendOf(this.features, this.series);
    return this.trendMemo;
  }
}

/** Batches that must read the same count of files, with files waiting, for a file cap to count. */
const FILE_CAP_BATCHES = 5;
/**
 * The smallest cap read from Delta's counts. Delta's files waiting are judged by their count (its
 * time behind is unknown), and at a cap of one file a feed near capacity wanders by the 2 files
 * the file windows take for a rise.
 */
const DELTA_FILE_CAP_MIN = 2;
/** Of the FILE_CAP_BATCHES counts from Delta's offsets, how many must show files held back (`heldBack`). */
const DELTA_HELD_BACK = 2;

/**
 * Whether batch `i` read fewer files than the report before it counted waiting. A source without a
 * cap reads all it sees, at least that many; one at its cap leaves some. Delta's counts need it:
 * only batches within one table version give one, so the batches that crossed a version, which
 * may have read more, do not bound the cap as Auto Loader's every batch does.
 */
function heldBack(features: readonly BatchFeatures[], i: number, read: number): boolean {
  const waited = i > 0 ? features[i - 1]!.filesOutstanding : null;
  return waited !== null && waited > read;
}

/**
 * The files batch `f` read where its offsets say: Auto Loader's always, Delta's within one table
 * version; null otherwise.
 */
export function filesReadOf(f: BatchFeatures): number | null {
  return f.filesRead ?? f.filesInCommit;
}

/**
 * The files each of the newest FILE_CAP_BATCHES batches whose offsets say what they read (within
 * the newest twice as many: a Delta batch across table versions is passed over) read when they read
 * the same count, every batch back to the oldest of them left files waiting, and no batch of the
 * run the ring holds read more: a file cap, whose rows vary with the files' sizes. A source without
 * a cap reads all it lists, and a count some batch exceeded is none (a steady feed of a file or two
 * a batch reads one count too, and the files it leaves come and go). From Delta's counts, a cap of
 * DELTA_FILE_CAP_MIN or more with files held back (`heldBack`). A cap of more than half a table
 * version's files leaves too few batches within one version to show.
 */
function filesCapIn(features: readonly BatchFeatures[]): number | null {
  const n = features.length;
  let cap: number | null = null;
  let equal = 0;
  let fromDelta = 0;
  let held = 0;
  let i = n - 1;
  for (; i >= 0 && equal < FILE_CAP_BATCHES && n - i <= 2 * FILE_CAP_BATCHES; i -= 1) {
    const f = features[i]!;
    if (f.filesOutstanding === null || !(f.filesOutstanding > 0) || f.restart) return null;
    const read = filesReadOf(f);
    if (read === null) continue;
    cap ??= read;
    if (read !== cap || cap <= 0) return null;
    if (f.filesRead === null) {
      if (cap < DELTA_FILE_CAP_MIN) return null;
      fromDelta += 1;
      if (heldBack(features, i, read)) held += 1;
    }
    equal += 1;
  }
  if (cap === null || equal < FILE_CAP_BATCHES || held < Math.min(DELTA_HELD_BACK, fromDelta)) return null;
  for (; i >= 0; i -= 1) {
    const f = features[i]!;
    // A run's first batch may replay one planned before the restart.
    if (f.restart) break;
    const read = filesReadOf(f);
    if (read !== null && read > cap) return null;
  }
  return cap;
}

/** Counts of the run before the newest FILE_CAP_BATCHES that `filesLeftIn` reads, and the share of them at 0. */
const LEFT_BEFORE = 8;
const LEFT_NONE_SHARE = 0.5;
/** Newest batches whose files left per ms of batch must rise (those of the stretch that left files). */
const LEFT_RISE_BATCHES = 8;
/** The most of that rise one batch may make. */
const LEFT_ONE_STEP = 0.6;

/**
 * Whether each of the newest FILE_CAP_BATCHES batches left files waiting, more of them per ms of
 * batch on the whole (never falling, or a Mann–Kendall trend at 1 %, over the newest batches that
 * left files, up to LEFT_RISE_BATCHES; no one batch making more than LEFT_ONE_STEP of the rise),
 * while at least half of the run's batches the ring holds before them (LEFT_BEFORE or more counted)
 * left none: files counted at planning, which a source without a cap reads all of, so a pile-up of
 * them now is a cap's. Counted after each batch, what arrived while it ran waits whatever the cap:
 * a sparse feed that steps up then counts files at every batch where it counted none, but as many
 * per ms of batch as arrive, up once at the step and not more and more. Not for a source whose
 * offsets say what each batch read (Auto Loader: `cappedFiles`).
 */
function filesLeftIn(features: readonly BatchFeatures[]): boolean {
  const n = features.length;
  if (n < FILE_CAP_BATCHES + LEFT_BEFORE) return false;
  const perMs: number[] = [];
  for (let i = n - 1; i >= 0 && perMs.length < LEFT_RISE_BATCHES; i -= 1) {
    const f = features[i]!;
    const left = f.filesOutstanding !== null && f.filesOutstanding > 0 && f.d > 0 && !f.restart;
    if (f.filesRead !== null || (!left && i >= n - FILE_CAP_BATCHES)) return false;
    if (!left) break;
    perMs.unshift(f.filesOutstanding! / f.d);
  }
  let falls = false;
  let largestStep = 0;
  for (let k = 1; k < perMs.length; k += 1) {
    falls ||= perMs[k]! < perMs[k - 1]!;
    largestStep = Math.max(largestStep, perMs[k]! - perMs[k - 1]!);
  }
  if (falls && mannKendallS(perMs) < mannKendallCritical(perMs.length)) return false;
  // Built over batches: arrivals that step up, counted after each batch, jump once and stay.
  if (largestStep > LEFT_ONE_STEP * (perMs[perMs.length - 1]! - perMs[0]!)) return false;
  let known = 0;
  let none = 0;
  for (let i = n - FILE_CAP_BATCHES - 1; i >= 0; i -= 1) {
    const f = features[i]!;
    if (f.filesOutstanding !== null) {
      known += 1;
      if (f.filesOutstanding === 0) none += 1;
    }
    if (f.restart) break;
  }
  return known >= LEFT_BEFORE && none >= LEFT_NONE_SHARE * known;
}

/** Trend against wall time over the trend window of the same run segment, and the drain ETA. */
function trendOf(
  features: readonly BatchFeatures[],
  series: number[],
): { trendPerMin: number | null; drainEtaSec: number | null } {
  const window = trendWindow(features, series);
  let trendPerMin: number | null = null;
  let drainEtaSec: number | null = null;
  if (window.xs.length >= 3) {
    // Kafka with a backlog at every batch: the rates give the growth of time behind directly; far
    // behind, the series (offsets ÷ an arrival estimate) carries that estimate's noise × the backlog.
    const ageing = signalOfWindow(features, series, window.xs.length);
    const slopePerMs = ageing !== null ? ageing / 1000 : theilSen(window.xs, window.ys);
    if (Number.isFinite(slopePerMs)) {
      trendPerMin = slopePerMs * 60_000;
      const current = window.ys[window.ys.length - 1]!;
      // Seconds (or files, bytes) left ÷ how fast they shrink per second.
      if (slopePerMs < 0 && current > 0) drainEtaSec = current / (-slopePerMs * 1000);
    }
  }
  return { trendPerMin, drainEtaSec };
}

/**
 * Rows per second of busy time. rows ÷ addBatch understates it when addBatch has a fixed part
 * (task scheduling, sink commits); when batch sizes vary enough, the marginal rate (Theil–Sen slope
 * of addBatch against rows) removes that part. Near capacity the difference decides whether
 * arrivals exceed capacity.
 */
export function processingCapacity(features: readonly BatchFeatures[]): number | null {
  const busy = busyBatches(features);
  if (busy.length === 0) return null;
  const lost = capacityLostIn(busy);
  if (lost !== null) return lost.now;
  const ratio = median(busy.slice(-8).map((f) => f.rows / (f.addBatchMs / 1000)));
  const rows = busy.map((f) => f.rows);
  if (busy.length >= 6 && Math.max(...rows) >= 1.3 * Math.min(...rows)) {
    const msPerRow = theilSen(rows, busy.map((f) => f.addBatchMs));
    if (msPerRow > 0) return Math.min(Math.max(ratio, 1000 / msPerRow), 1.5 * ratio);
  }
  return ratio;
}

/** The newest batches of the run that read data (up to 16, oldest first): what capacity is read from. */
function busyBatches(features: readonly BatchFeatures[]): BatchFeatures[] {
  const busy: BatchFeatures[] = [];
  for (let i = features.length - 1; i >= 0 && busy.length < 16; i -= 1) {
    const f = features[i]!;
    if (f.rows > 0 && f.addBatchMs > 0 && !f.restart) busy.unshift(f);
    if (f.restart) break;
  }
  return busy;
}

/** Processing capacity lost in the newest batches (capacityLostIn), rows per second before and now. */
export function capacityLoss(features: readonly BatchFeatures[]): { usual: number; now: number } | null {
  return capacityLostIn(busyBatches(features));
}

/** Batches that must all run slower per row, reading about as many rows, before capacity counts as lost. */
const LOST_BATCHES = 3;
/** A batch runs slow when its per-row rate is under this share of the usual. */
export const LOST_PACE = 0.8;

/**
 * Capacity lost (a slower cluster, a heavier plan): each of the last LOST_BATCHES read at least 0.9
 * of the rows the batches before usually did (so a larger share of fixed cost does not explain it)
 * yet processed under LOST_PACE of their per-row rate. The batches before no longer say what the
 * query can do: `now` is the rate since; null when nothing says capacity was lost.
 */
function capacityLostIn(busy: readonly BatchFeatures[]): { usual: number; now: number } | null {
  const n = busy.length;
  if (n < LOST_BATCHES + 4) return null;
  // The cheap test first (most batches fail it): the newest batch against the fastest before.
  let fastest = 0;
  for (let i = 0; i < n - LOST_BATCHES; i += 1) fastest = Math.max(fastest, busy[i]!.rows / busy[i]!.addBatchMs);
  if (!(busy[n - 1]!.rows / busy[n - 1]!.addBatchMs < LOST_PACE * fastest)) return null;
  const rates = busy.map((f) => f.rows / (f.addBatchMs / 1000));
  const usual = median(rates.slice(0, n - LOST_BATCHES));
  const usualRows = median(busy.slice(0, n - LOST_BATCHES).map((f) => f.rows));
  for (let i = n - LOST_BATCHES; i < n; i += 1) {
    if (!(rates[i]! < LOST_PACE * usual && busy[i]!.rows >= 0.9 * usualRows)) return null;
  }
  let since = n - LOST_BATCHES;
  while (since > 0 && n - since < 8 && rates[since - 1]! < LOST_PACE * usual) since -= 1;
  return { usual, now: median(rates.slice(since)) };
}

/** `ageingFromRates` over the newest `count` finite points of a Kafka time series, else null. */
function signalOfWindow(features: readonly BatchFeatures[], series: number[], count: number): number | null {
  const last = features[features.length - 1];
  if (!last || last.kafkaBehind === null || last.kArrival.length > 0) return null;
  const window: BatchFeatures[] = [];
  for (let i = features.length - 1; i >= 0 && window.length < count; i -= 1) {
    if (Number.isFinite(series[i]!)) window.unshift(features[i]!);
    if (features[i]!.restart) break;
  }
  return ageingFromRates(window);
}

/**
 * The newest `count` finite points of `series` within the run (batch ends in ms, values), oldest
 * first. 12 by default: long enough that noise on a slow rise does not read as draining.
 */
export function trendWindow(
  features: readonly BatchFeatures[],
  series: readonly number[],
  count = 12,
): { xs: number[]; ys: number[] } {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = features.length - 1; i >= 0 && xs.length < count; i -= 1) {
    const value = series[i]!;
    if (!Number.isFinite(value)) continue;
    const f = features[i]!;
    xs.unshift(f.t + f.d);
    ys.unshift(value);
    if (f.restart) break;
  }
  return { xs, ys };
}

/**
 * How fast the oldest unread data ages, s per s: it ages 1 s/s while the query reads through the
 * backlog at (rows consumed ÷ rows arriving) seconds of data per second, so the growth is
 * 1 − consumed ÷ arrived over the window (Kafka latest offsets for arrivals, rows read for
 * consumption). Null when the window is too short or the offsets do not say.
 */
export function ageingFromRates(window: readonly BatchFeatures[]): number | null {
  if (window.length < 12) return null;
  const first = window[0]!;
  const last = window[window.length - 1]!;
  if (first.kafkaLatest === null || last.kafkaLatest === null) return null;
  // Only while a backlog is waiting at every batch: latest offsets are then read at batch end.
  if (!window.every((f) => latestAfterEnd(f))) return null;
  const spanSec = (last.t + last.d - (first.t + first.d)) / 1000;
  const arrived = last.kafkaLatest - first.kafkaLatest;
  let consumed = 0;
  for (let i = 1; i < window.length; i += 1) consumed += window[i]!.rows;
  if (!(spanSec > 0) || !(arrived > 0)) return null;
  return Math.min(1, 1 - consumed / arrived);
}
