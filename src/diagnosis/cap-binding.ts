/**
 * A Kafka admission cap that binds while the reports carry no backlog figure at all (no latest
 * offsets, no source metrics: Spark 2.x/3.0-era reports). Every batch then reads the cap, so at
 * least the cap waits at each trigger, and how much more cannot be read. After a steady stretch
 * below the cap, a run of batches at it says the input rose above it; after a hiccup (a slow
 * batch) or a restart, the same run may be the hiccup's residue draining. The tracker follows the
 * run past its ring (`nextCapBound`), so a binding longer than the ring holds is still known; the
 * lag detector judges it (detectors/lag.ts).
 */
import { capExceededInRun, capTolerance, readsAtCap } from './admission-cap.js';
import { MIN_DISRUPTION_MS, batchesSince } from './aftermath.js';
import { intervalRate, type BatchFeatures } from './batch-features.js';
import { idleBefore, idleStretch, type Analysis } from './query-analysis.js';
import { TUNING } from './engine-options.js';
import { coefficientOfVariation, correlation, mad, mannKendallCritical, mannKendallS, median, theilSenPerStep } from './statistics.js';

export interface CapBound {
  /** The cap, rows (offsets). */
  cap: number;
  /** Trigger start of the first batch of the run at the cap (since the last dip below it), epoch ms. */
  sinceMs: number;
  /**
   * The reads rose into the cap out of a steady state: batches with data whose typical read is at
   * least MIN_RISE below the cap (or whose own trend carried them into it), none of the last of
   * them or the first at the cap slow for its rows (a GC pause, a hung write), no restart among
   * them, and the cap tight around its reads. The batches on either side of an idle stretch read
   * part of an interval and are left out.
   * Then what waits at each trigger is new input, not a hiccup's residue. (A run with no such rise
   * before it is no binding at all: a feed that reads the same count every batch.)
   */
  fromSteady: boolean;
  /** Median read of the steady batches just before (null unless fromSteady). */
  readBefore: number | null;
  /**
   * Batches at the cap that open lag, with at least `capBoundMinMs` (the catch-up budget opens it
   * whatever this says): `capBoundBatches` after a rise that stands out of the noise (RAMP_LEAD
   * fewer after a steady ramp or a back-to-back build-up into it, or when the reads' trend carried
   * them into the cap), up to NEAR_CAP_FACTOR times that after one within the noise; null after a
   * hiccup (then the budget). Either way, once the batches at the cap admit less than arrived
   * before (`admitsLess`), the lag detector opens `capBoundBatches` batches after the first slow
   * one, with no floor in time.
   */
  batchesToOpen: number | null;
  /**
   * Rows per ms of the batches before it (0 when unknown): a batch far slower inside it is a
   * hiccup. After a slow batch inside it, that batch's pace (batches that stay that slow are the
   * same hiccup, not a new one each).
   */
  pace: number;
  /**
   * Rows per second that arrived in the steady batches before the run (each read over the time
   * since the previous batch began), null when unknown. A binding that admits clearly less than
   * this, batch after batch, lost capacity (`admitsLess`): no residue to drain explains that.
   */
  arrivalBefore?: number | null;
  /** Newest batches in a row that read less than the cap: the binding survives MAX_DIPS of them. */
  dips: number;
  /**
   * Trigger start of the first of the newest slow batches in a row that made the binding a
   * catch-up (they may precede the first read at the cap), else null or absent: where lost
   * capacity began, if that is what it was (the lag detector counts its batches from there).
   */
  slowSinceMs?: number | null;
  /** Lowest and highest read at the cap in the run (absent in state stored before they were kept). */
  low?: number;
  high?: number;
}

/** Batches before a binding whose reads say what the steady state was (at least STEADY_MIN of them). */
const STEADY_BEFORE = 8;
const STEADY_MIN = 3;
/**
 * A rise into the cap smaller than this fraction of it is a steady feed next to it, not a rise,
 * unless the reads' own trend carried them into the cap (`trendsInto`).
 */
const MIN_RISE = 0.02;
/**
 * How long a binding out of a steady feed must last depends on how far the rise into the cap stands
 * out of the reads' own noise: d standard deviations (estimated from batch-to-batch differences, so
 * a ramp's trend is not taken for noise). A feed d σ under its cap that pins it by chance leaves a
 * backlog that falls by d σ a batch on average, so it is still there after k batches with odds of
 * about exp(−k d² / 2): k = SURVIVAL / d² keeps them under 1 in 100,000. At least
 * `capBoundBatches` (a burst that drains may pin the cap that long), at most NEAR_CAP_FACTOR times
 * as many (a rise within the noise: the noise itself is estimated from a few reads).
 */
const SURVIVAL = 2 * Math.log(100_000);
const NEAR_CAP_FACTOR = 3;
/**
 * When some reads before the binding were at the cap, those left are the feed's reads below it:
 * their spread understates its noise, so the rise must stand out by this many of their standard
 * deviations to count after `capBoundBatches`, and otherwise waits NEAR_CAP_FACTOR times as many.
 */
const TRUNCATED_RISE_SIGMAS = 2;
/**
 * Reads of a run at a cap spread by at most this fraction of it, or by FLOOR_SPREAD of the P − 1
 * offsets floored shares lose, tell a cap from noisy input: the spread actually read, not the
 * band of 2 (P − 1) two capped reads may in principle differ by, which over many partitions is
 * wider than a noisy feed's spread.
 */
const CAP_TIGHT = 0.005;
/** A small cap over many partitions (10 offsets each over 167) loses a different few dozen at each batch. */
const FLOOR_SPREAD = 0.5;

/** How far apart reads at one cap `cap` over `partitions` partitions spread at most (CAP_TIGHT, FLOOR_SPREAD). */
function capSpread(cap: number, partitions: number): number {
  return Math.max(CAP_TIGHT * cap, FLOOR_SPREAD * (partitions - 1));
}

/** Whether reads at a cap spread wider than a cap's (noisy input, or a feed that never rose into one). */
function spreadsPastCap(low: number, high: number, cap: number, partitions: number): boolean {
  return high - low > capSpread(cap, partitions);
}

/**
 * A read below the cap says the backlog was empty when that batch was planned: the count of reads
 * at the cap starts again after it. One or two amid a binding (a partition lagging in the fetch) do
 * not end the episode (an open incident stays open, the binding keeps how it began); a third does.
 */
const MAX_DIPS = 2;
/** Batches at the cap before a binding counts (a steady feed reads alike for a few batches by chance). */
const MIN_RUN = 3;

/** Whether a batch carries no backlog figure of any kind. */
function noBacklogFigure(f: BatchFeatures): boolean {
  return f.kafkaBehind === null && f.filesOutstanding === null && f.bytesOutstanding === null && f.msBehind === null;
}

/**
 * The binding as the ring shows it: null unless the newest batch is a Kafka batch that reads the
 * cap, the run of cap reads is at least MIN_RUN long and the ring still holds a batch before it
 * (the cap once left room: a ring full of cap reads may simply be a query sized at its cap). A run
 * that goes on through a restart is one binding; one that begins with a run's first batch is a
 * catch-up.
 */
export function capBindingIn(
  features: readonly BatchFeatures[],
  analysis: Analysis,
  partitions: number,
  runMaxRows: number,
): CapBound | null {
  const latest = features[features.length - 1];
  // Cheap checks first: this runs for every batch of every query.
  if (latest === undefined || latest.kafkaEnd === null || analysis.signal !== 'duration' || !noBacklogFigure(latest)) return null;
  const cap = analysis.cappedRows;
  if (cap === null || cap <= 0) return null;
  // The run of reads at the cap, and how widely they spread.
  let first = -1;
  let high = -Infinity;
  // The highest read after the run's first.
  let highAfterFirst = -Infinity;
  for (let i = features.length - 1; i >= 0 && readsAtCap(features[i]!.rows, cap, partitions); i -= 1) {
    first = i;
    highAfterFirst = high;
    high = Math.max(high, features[i]!.rows);
  }
  if (first < 0) return null;
  // Its first read may top the rest: a batch whose backlog was no more than the cap reads all of
  // it, up to the cap itself, while the batches after it read floored shares, up to P − 1 less.
  // The reads after it say where the floors put them (a 49 % capacity drop over 21 partitions
  // capped at 562 never opened: the first read, 562, cut out every later one, 548 to 554).
  if (features.length - first >= 3) high = highAfterFirst;
  // A read of the run further below its highest than reads at one cap spread was not at the cap:
  // a rise's last step short of it, or a batch that found the backlog empty. The run starts after
  // the last such read (none left: the newest batch is not at the cap).
  const lowest = high - capSpread(cap, partitions);
  for (let i = features.length - 1; i >= first; i -= 1) {
    if (features[i]!.rows < lowest) {
      first = i + 1;
      break;
    }
  }
  let low = Infinity;
  high = -Infinity;
  for (let i = first; i < features.length; i += 1) {
    low = Math.min(low, features[i]!.rows);
    high = Math.max(high, features[i]!.rows);
  }
  if (first === 0 || features.length - first < MIN_RUN) return null;
  if (features.length - first >= FOLLOW_BATCHES && readsFollowIntervals(features, cap, partitions, FOLLOW_BATCHES)) return null;
  // A batch of the same run that read more than any capped batch can, however long ago: no cap.
  if (capExceededInRun(runMaxRows, cap, partitions)) return null;
  // The reads before the run, across a restart (a run's first batch, which may replay or read the
  // downtime's input, left out), say whether the reads rose into the cap at all: a feed that reads
  // the same count batch after batch (a rate source, a noiseless producer) looks like a cap but
  // never rose into one. A restart among them brings the downtime's input.
  let restart = features[first]!.restart === 1;
  const before: number[] = [];
  const arrivals: number[] = [];
  const paces: number[] = [];
  // Every read of those batches, at the cap too (at least what arrived), newest first.
  const reads: number[] = [];
  for (let i = first - 1; i >= 0 && paces.length < STEADY_BEFORE; i -= 1) {
    const f = features[i]!;
    if (f.restart) {
      restart = true;
      continue;
    }
    if (f.rows <= 0 || f.d <= 0) break;
    // The batches on either side of an idle stretch read part of an interval: not the feed's level.
    if (bordersIdleStretch(features, i, analysis.triggerMs)) continue;
    paces.push(f.rows / f.d);
    reads.push(f.rows);
    // Reads at the cap (an earlier, shorter binding) hide the feed's level and noise.
    if (readsAtCap(f.rows, cap, partitions)) continue;
    before.push(f.rows);
    const rate = intervalRate(features, i);
    if (rate !== null) arrivals.push(rate);
  }
  if (before.length < STEADY_MIN) return null;
  const readBefore = median(before);
  const rise = cap - readBefore;
  // A feed next to its cap is no rise into it, unless its own trend carried it there (a slow
  // ramp's last reads below the cap are within MIN_RISE of it, and it goes on past).
  const nearCap = rise < MIN_RISE * cap;
  if (nearCap && !trendsInto(features, first, cap, analysis.triggerMs)) return null;
  // Within the noise of the reads before, a feed just under its cap pins it for a few batches by
  // chance (its backlog is a random walk): such a binding must last longer to count (SURVIVAL).
  const sigmas = rise / noiseOf(before);
  // A batch at under half the usual pace just before or inside the run let input pile up, and a
  // restart (at its start, just before it, or after downtime inside it) brings the downtime's
  // input: the reads at the cap after either may be its residue, a catch-up from there. (The run's
  // reads are tight by construction above; reads that spread later are nextCapBound's to judge.)
  const pace = median(paces);
  let hiccupAt = restart ? first : -1;
  // Slow batches in a row are one hiccup from the first of them (capacity lost stays slow).
  let slowFrom = -1;
  let slowSince = -1;
  for (let i = Math.max(1, first - STEADY_MIN); i < features.length; i += 1) {
    const f = features[i]!;
    const slow = f.d > 0 && f.rows / f.d < 0.5 * pace;
    if (!slow) slowFrom = -1;
    else if (slowFrom < 0) slowFrom = i;
    const downtime = f.restart ? f.t - (features[i - 1]!.t + features[i - 1]!.d) : 0;
    if (slow || (i > first && downtime >= MIN_DISRUPTION_MS)) {
      hiccupAt = Math.max(hiccupAt, slow ? slowFrom : i, first);
      slowSince = slow ? slowFrom : -1;
    }
  }
  const arrivalBefore = arrivals.length >= STEADY_MIN ? median(arrivals) : null;
  if (hiccupAt >= 0) {
    // Still slow at the newest batch: that pace is the usual one now (see nextCapBound).
    const usual = slowFrom >= 0 ? latest.rows / latest.d : pace;
    const slowSinceMs = slowSince >= 0 ? features[slowSince]!.t : null;
    return { cap, sinceMs: features[hiccupAt]!.t, fromSteady: false, readBefore: null, batchesToOpen: null, pace: usual, dips: 0, arrivalBefore, slowSinceMs, low, high };
  }
  // Reads skipped above were at the cap: those kept are the feed's reads below it.
  // A ramp or a build-up needs batches before it too: a query's first batches climb to its
  // steady level.
  const ramp = first >= 2 * STEADY_BEFORE && (rampedInto(reads, cap) || builtUpInto(features, first, cap, partitions));
  // A rise under MIN_RISE got past the check above only by trending into the cap.
  const trending = nearCap || trendsInto(features, first, cap, analysis.triggerMs);
  const batchesToOpen = bindingBatches(sigmas, before.length < paces.length, ramp, trending);
  return { cap, sinceMs: features[first]!.t, fromSteady: true, readBefore, batchesToOpen, pace, dips: 0, arrivalBefore, low, high };
}

/**
 * Batches a binding out of a steady feed must last, for a rise `sigmas` standard deviations out of
 * the reads before it (SURVIVAL); `truncated` when some of those reads were at the cap
 * (TRUNCATED_RISE_SIGMAS); RAMP_LEAD fewer than the shortest whatever those say when the reads' own
 * trend reached the cap (`trending`), and when the reads `ramp`ed (or built up) into the cap and
 * the rise stands out of their noise.
 */
function bindingBatches(sigmas: number, truncated: boolean, ramp: boolean, trending: boolean): number {
  const shortest = TUNING.capBoundBatches;
  const longest = NEAR_CAP_FACTOR * shortest;
  // A trend that carried the reads to the cap is input outgrowing it, as a ramp is.
  if (trending) return shortest - RAMP_LEAD;
  let batches: number;
  if (truncated) batches = sigmas >= TRUNCATED_RISE_SIGMAS ? shortest : longest;
  else batches = Math.min(longest, Math.max(shortest, Math.ceil(SURVIVAL / (sigmas * sigmas))));
  return ramp && batches === shortest ? shortest - RAMP_LEAD : batches;
}

/**
 * Reads before a binding `trendsInto` fits its trend to: the newest TREND_READS, else the newest
 * TREND_MIN (a ramp that began inside the longer window leaves its older half flat).
 */
const TREND_READS = 24;
const TREND_MIN = 16;
/**
 * The slower half of a trend's window rises at least at this fraction of the faster half's pace: a
 * step leaves one half flat, while back to back a ramp's reads compound (each is what arrived over
 * the batch before, which the read before lengthened), its newer half two to three times as steep.
 * On a fixed trigger a ramp's reads keep one pace, and a step still leaves a half flat.
 */
const TREND_STEADY_PACE = 1 / 3;

/**
 * Whether the reads before the binding at index `first` (TREND_READS of them, else TREND_MIN, back
 * to a restart or an idle stretch) rose with a Mann–Kendall-significant trend (1 %), through both
 * halves of the window (the slower at least TREND_STEADY_PACE of the faster), whose Theil–Sen line
 * reaches the cap, within a standard deviation of the reads around it, by the first read at it.
 * The wait for a rise within the reads' noise (SURVIVAL) assumes a feed that stays where it was,
 * just under its cap; a feed whose own trend carries it to the cap and past it is input outgrowing
 * the cap, however noisy its last reads under it were. A burst on a flat feed leaves no
 * significant trend, and a step up to a level just under the cap, which does, leaves one half of
 * either window flat. Noisy ramps fail the pace test too at times: they wait as before.
 */
function trendsInto(features: readonly BatchFeatures[], first: number, cap: number, triggerMs: number): boolean {
  const reads: number[] = [];
  for (let i = first - 1; i >= 0 && reads.length < TREND_READS; i -= 1) {
    const f = features[i]!;
    if (f.restart || !(f.rows > 0)) break;
    reads.push(f.rows);
    // The read out of an idle stretch is the window's oldest: before it the feed was not arriving.
    if (i > 0 && idleStretch(features[i - 1]!, f, triggerMs)) break;
  }
  if (reads.length < TREND_MIN) return false;
  reads.reverse();
  return risesInto(reads, cap) || (reads.length > TREND_MIN && risesInto(reads.slice(-TREND_MIN), cap));
}

/** `trendsInto`'s test on one window of reads, oldest first. */
function risesInto(reads: readonly number[], cap: number): boolean {
  if (mannKendallS(reads) < mannKendallCritical(reads.length)) return false;
  const slope = theilSenPerStep(reads);
  if (!(slope > 0)) return false;
  // A trend through the window, not a step in it: a step up to a level just under the cap makes a
  // significant rise whose line reaches the cap too, with one half of the window flat.
  const half = reads.length >> 1;
  const older = theilSenPerStep(reads.slice(0, half));
  const newer = theilSenPerStep(reads.slice(half));
  if (!(older > 0 && newer > 0 && Math.min(older, newer) >= TREND_STEADY_PACE * Math.max(older, newer))) return false;
  const offsets = reads.map((read, i) => read - slope * i);
  const intercept = median(offsets);
  // Where the line lands is known to about the reads' spread around it (1.4826 MAD: a σ).
  const spread = 1.4826 * mad(offsets);
  return intercept + slope * reads.length >= cap - spread;
}

/**
 * Batches fewer a binding needs when the reads rose into the cap batch after batch (`rampedInto`)
 * and the rise stands out of their noise, or their trend carried them to it (`trendsInto`): input
 * still growing as it reaches the cap keeps growing past it, and its first read at the cap comes a
 * batch or two after the input passed it (each read is what arrived over the interval before),
 * while a burst jumps to the cap at once.
 */
const RAMP_LEAD = 2;

/**
 * Whether `reads` (the STEADY_BEFORE batches before a binding at `cap`, newest first; a read at the
 * cap is at least what arrived) rose steadily: a Mann–Kendall-significant rise (1 %), oldest to
 * newest, with no one step (the last read to the cap included) more than RAMP_MAX_STEP of the rise
 * from the lowest read to the cap. A burst's first read or two jump and make a rise significant
 * too, over a flat feed before. An earlier binding that ended before this one reads as a fall.
 */
function rampedInto(reads: readonly number[], cap: number): boolean {
  if (reads.length < STEADY_BEFORE) return false;
  const oldestFirst = reads.slice().reverse();
  if (mannKendallS(oldestFirst) < mannKendallCritical(oldestFirst.length)) return false;
  const limit = RAMP_MAX_STEP * (cap - Math.min(...oldestFirst));
  for (let i = 1; i <= oldestFirst.length; i += 1) {
    if ((oldestFirst[i] ?? cap) - oldestFirst[i - 1]! > limit) return false;
  }
  return true;
}

/** The largest share of a ramp's rise into the cap one batch may make (a jump is no ramp). */
const RAMP_MAX_STEP = 0.5;

/** How far out of the steady reads' noise (standard deviations) a build-up's first read stands. */
const BUILD_UP_SIGMAS = 3;

/**
 * Whether the two batches before the first read at the cap (index `first`, with 16 batches before
 * it in the ring: capBindingIn asks only then) built up to it as input past capacity does in
 * batches that run back to back: each reads what arrived while the one before it ran, so past
 * capacity reads and durations grow together, by growing steps (ρ ≥ 1), while after a step in load
 * the query absorbs (ρ < 1) they shrink towards a level once the step is in. The first read of the
 * build-up stands BUILD_UP_SIGMAS out of the steady reads before it (and MIN_RISE of the cap: a
 * noiseless feed has no σ), the second rises from it by at least as much as it rose, each batch
 * from the second on began as the one before it ended (back to back), and the second is still
 * short of the cap. A burst well past capacity jumps to the cap in one batch; a trigger that still
 * waits between batches reads arrivals over the interval, which do not compound.
 */
function builtUpInto(features: readonly BatchFeatures[], first: number, cap: number, partitions: number): boolean {
  const start = first - 2;
  if (start < 1) return false;
  for (let i = start; i <= first; i += 1) {
    const f = features[i]!;
    if (f.restart || !(f.rows > 0)) return false;
    // Back to back: no idle time since the batch before ended.
    if (i > start && idleBefore(features[i - 1]!, f)) return false;
  }
  const steady: number[] = [];
  for (let i = start - 1; i >= 0 && steady.length < STEADY_BEFORE; i -= 1) {
    const f = features[i]!;
    if (f.restart || !(f.rows > 0) || readsAtCap(f.rows, cap, partitions)) break;
    steady.push(f.rows);
  }
  if (steady.length < STEADY_MIN) return false;
  const level = median(steady);
  const a = features[start]!.rows;
  const b = features[first - 1]!.rows;
  if (!(a > level + Math.max(BUILD_UP_SIGMAS * noiseOf(steady), MIN_RISE * cap))) return false;
  return b - a >= a - level && b < cap && !readsAtCap(b, cap, partitions);
}

/** What the binding admits must fall this far short of the arrivals before it to say capacity was lost. */
const ADMITS_SHORT = 0.9;
/** Batches at the cap whose admitted rates are needed (the lag detector also counts batches since the hiccup). */
const ADMITTED_MIN = 4;
/** The newest batches at the cap that must admit too little as well: capacity lost stays lost. */
const ADMITTED_NOW = 3;

/**
 * Whether the newest batches of a binding admit clearly less than what arrived before it (median
 * over up to `STEADY_BEFORE` batches at the cap since `sinceMs`, at least ADMITTED_MIN, and over
 * the newest ADMITTED_NOW of them): the batches at the cap got slower and stayed slow, so the
 * backlog grows whatever a hiccup left. After a one-off slow batch (or a few GC pauses) or a
 * restart, batches at the cap run at the usual pace and admit more than arrives: that drains. Null
 * when it cannot be judged (or they admit enough).
 */
export function admitsLess(
  features: readonly BatchFeatures[],
  bound: CapBound,
  triggerMs: number,
): { admitted: number; arrivalBefore: number; intervalMs: number } | null {
  const arrivalBefore = bound.arrivalBefore ?? null;
  if (arrivalBefore === null) return null;
  const rates: number[] = [];
  const intervals: number[] = [];
  // What each batch at the cap admits over its own interval (the trigger's, or its duration when
  // it overran): slow batches below the cap (a GC pause) and the gap they leave say nothing of it.
  const atCap = bound.low ?? bound.cap * 0.99;
  for (let i = features.length - 1; i >= 0 && features[i]!.t >= bound.sinceMs && rates.length < STEADY_BEFORE; i -= 1) {
    const f = features[i]!;
    const interval = Math.max(triggerMs, f.d);
    if (f.rows >= atCap && interval > 0) {
      rates.push(f.rows / (interval / 1000));
      intervals.push(interval);
    }
  }
  if (rates.length < ADMITTED_MIN) return null;
  const rate = median(rates);
  const short = ADMITS_SHORT * arrivalBefore;
  // Slow now too (the newest ADMITTED_NOW, newest first, in the median): a pause or two that ended
  // leaves batches at the usual pace, which admit more than arrived, however slow the ones before.
  if (!(median(rates.slice(0, ADMITTED_NOW)) < short)) return null;
  return rate < short ? { admitted: rate, arrivalBefore, intervalMs: median(intervals) } : null;
}

/** Newest back-to-back batches whose reads are compared with the time between their starts. */
const FOLLOW_BATCHES = 8;
/**
 * As many once a binding has lasted that long: it is judged at every batch, and a long catch-up at
 * a real cap would otherwise meet a chance correlation (about 1 % of 8 batches do) and start over
 * past what the ring still shows. (A younger one found again from the ring loses nothing.)
 */
const FOLLOW_BATCHES_KEPT = 16;
/** Reads correlated with those times at least this much are arrivals over the interval, not a cap. */
const FOLLOW_CORRELATION = 0.8;
/**
 * And spread at least this share as widely (coefficient of variation): reads of what arrived over
 * each interval move by as many per cent as the intervals do. At a cap over several partitions the
 * floored shares move reads by a few offsets, which can correlate with the intervals by chance; that
 * dropped a binding for a batch and opened lag a batch or more late (on 1,000 forced no-metrics
 * steps and interleaved draws each, 1 and 2 sooner, none later, no false alarm added).
 */
const FOLLOW_SPREAD = 0.5;

/**
 * The newest `count` batches, all at the cap `cap`, ran back to back (each started as the one
 * before it ended) and read in proportion to the time since the batch before began (correlated,
 * and spread as widely): an uncapped feed reads what arrived over that time, however steady it is,
 * while a batch at a cap reads the cap however long it waited. (On a fixed trigger the times are
 * all alike and this says nothing.)
 */
function readsFollowIntervals(features: readonly BatchFeatures[], cap: number, partitions: number, count: number): boolean {
  const n = features.length;
  if (n <= count) return false;
  const reads: number[] = [];
  const intervals: number[] = [];
  for (let i = n - count; i < n; i += 1) {
    const f = features[i]!;
    const before = features[i - 1]!;
    if (f.restart || idleBefore(before, f) || !readsAtCap(f.rows, cap, partitions)) return false;
    reads.push(f.rows);
    intervals.push(f.t - before.t);
  }
  // NaN when the reads do not vary at all: no proportion then.
  if (!(correlation(reads, intervals) >= FOLLOW_CORRELATION)) return false;
  return coefficientOfVariation(reads) >= FOLLOW_SPREAD * coefficientOfVariation(intervals);
}

/**
 * The batch at `i` ends into or begins out of an idle stretch (`idleStretch`): it read part of an
 * interval, not what the feed brings in one.
 */
function bordersIdleStretch(features: readonly BatchFeatures[], i: number, triggerMs: number): boolean {
  const next = features[i + 1];
  const previous = features[i - 1];
  return (next !== undefined && idleStretch(features[i]!, next, triggerMs)) || (previous !== undefined && idleStretch(previous, features[i]!, triggerMs));
}

/** Standard deviation of the noise in `reads` (newest first), from the median batch-to-batch change. */
function noiseOf(reads: readonly number[]): number {
  const changes: number[] = [];
  for (let i = 1; i < reads.length; i += 1) changes.push(Math.abs(reads[i]! - reads[i - 1]!));
  // |X − Y| of two independent normal reads has median 0.954 σ.
  return median(changes) / 0.954;
}

/**
 * The binding after the newest batch, kept as it began while the newest batch reads its cap with no
 * backlog figure and no batch of the run read more (the ring may no longer reach its start), through
 * up to MAX_DIPS reads below it. A restart after downtime or a stall (`disrupted`, aftermath.ts), or
 * a batch at under half the usual pace, inside it makes the rest a catch-up from that batch on.
 * Otherwise what the ring shows.
 */
export function nextCapBound(
  previous: CapBound | null,
  features: readonly BatchFeatures[],
  analysis: Analysis,
  partitions: number,
  runMaxRows: number,
  disrupted: boolean,
): CapBound | null {
  const latest = features[features.length - 1];
  if (previous !== null && latest !== undefined && noBacklogFigure(latest) && !capExceededInRun(runMaxRows, previous.cap, partitions)) {
    const atCap = readsAtCap(latest.rows, previous.cap, partitions);
    const slow = atCap && previous.pace > 0 && latest.d > 0 && latest.rows / latest.d < 0.5 * previous.pace;
    if (disrupted || slow) {
      // The slow pace becomes the usual one: batches that stay that slow (capacity lost) are one
      // hiccup whose catch-up budget runs from its first batch, not a new one at every batch.
      const pace = slow ? latest.rows / latest.d : previous.pace;
      const slowSinceMs = slow ? (previous.slowSinceMs ?? latest.t) : null;
      return { ...previous, sinceMs: latest.t, fromSteady: false, readBefore: null, batchesToOpen: null, pace, dips: atCap ? 0 : 1, slowSinceMs };
    }
    if (atCap) {
      const low = Math.min(previous.low ?? latest.rows, latest.rows);
      const high = Math.max(previous.high ?? latest.rows, latest.rows);
      // Reads further apart than two at one cap can be (known with the partition count): a noisy
      // feed taken for a cap, now risen into a real one (what the ring shows says which).
      if (partitions > 0 && high - low > capTolerance(previous.cap, partitions)) return capBindingIn(features, analysis, partitions, runMaxRows);
      // Back-to-back reads in proportion to their intervals: an uncapped feed after all.
      const follow = batchesSince(features, previous.sinceMs) < FOLLOW_BATCHES_KEPT ? FOLLOW_BATCHES : FOLLOW_BATCHES_KEPT;
      if (readsFollowIntervals(features, previous.cap, partitions, follow)) return null;
      // Reads that spread wider than a cap's as the run goes on: a steady feed that merely looked
      // capped for a few batches (its rise into the "cap" was chance), at most a catch-up. Unless
      // the ring, read again with the new highest, still shows a rise out of a steady state: the
      // reads now too far below it were the rise's last step short of the cap, as capBindingIn
      // takes them (a binding kept since its first batch, with no chance correlation of the reads
      // and intervals to drop it, was else never to open on a 15 % overload).
      const spread = spreadsPastCap(low, high, previous.cap, partitions);
      if (spread && previous.fromSteady && previous.dips === 0) {
        const again = capBindingIn(features, analysis, partitions, runMaxRows);
        if (again !== null && again.fromSteady) return again;
      }
      const next = spread && previous.fromSteady ? { ...previous, fromSteady: false, readBefore: null, batchesToOpen: null } : previous;
      // After a dip the backlog was empty: the count starts again, the judgement of how it began stays.
      return { ...next, sinceMs: previous.dips === 0 ? previous.sinceMs : latest.t, dips: 0, low, high };
    }
    // A read below the cap found the backlog empty: a slow stretch before it is over.
    if (previous.dips < MAX_DIPS) return { ...previous, dips: previous.dips + 1, slowSinceMs: null };
  }
  return capBindingIn(features, analysis, partitions, runMaxRows);
}
