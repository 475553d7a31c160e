/**
 * The evidence that opens lag (detectors/lag.ts says what each one means): trend, creep, drift,
 * admission at a cap, a level that will not drain, and the veto of durations converging to
 * o/(1−ρ). Each reads the batch's context only and says yes or no.
 */
import { TUNING } from '../engine-options.js';
import type { BatchFeatures } from '../batch-features.js';
import { RAMP_WINDOW, inputRamp, shownPerSec, type InputRamp } from '../input-ramp.js';
import { LOST_PACE, atACap, capacityLoss, countedAfterBatch, filesReadOf, medianArrival, signalValue, type LagSignalKind } from '../query-analysis.js';
import { mannKendallCritical, mannKendallS, mannKendallZ, median, quantile, theilSen } from '../statistics.js';
import type { DetectorContext } from './detector.js';
import { MIN_ABS, backlogInBatches, isTimeSignal, normalCeiling } from './lag-signal.js';

/**
 * A large backlog (a catch-up after downtime, the aftermath of a stall): more than `lagLevelSec`
 * behind is lag unless it visibly drains within the catch-up budget (judged once 4 batches above
 * the level show the trend).
 */
export function levelEvidence(ctx: DetectorContext, values: number[]): boolean {
  const current = values[values.length - 1]!;
  if (current < TUNING.lagLevelSec) return false;
  let start = values.length - 1;
  while (start > 0 && values[start - 1]! >= TUNING.lagLevelSec) start -= 1;
  const tail = values.slice(start);
  // Just jumped above the level (a giant catch-up batch): nothing yet says it drains in time,
  // unless the rates do (a burst on a query with room to spare: wait for the drain to show).
  if (tail.length < 4) return current >= Math.max(...tail) && !ratesDrainSoon(ctx, current);
  // The drain over up to 12 batches above the level: on a fast query 4 points are mostly noise.
  const span = Math.min(tail.length, 12);
  const ends: number[] = [];
  const { series } = ctx.analysis;
  for (let i = series.length - 1; i >= 0 && ends.length < span; i -= 1) {
    if (Number.isFinite(series[i]!)) ends.unshift((ctx.features[i]!.t + ctx.features[i]!.d) / 1000);
  }
  const slope = theilSen(ends, tail.slice(-span));
  if (!(slope < 0)) return true;
  return current / -slope > TUNING.catchUpBudgetSec;
}

/**
 * Whether arrivals leave enough spare throughput to drain `behindSec` of data well within the
 * catch-up budget: rows waiting (time behind × arrival rate) over the spare rate (what the query
 * can process, or admit under a cap, minus arrivals). The recent arrival estimate (5 batches) still
 * holds a burst's rate: when even that is under what the query takes, arrivals are the lower of it
 * and the run's usual rate, which a burst of a few batches does not move (on a slow trigger one
 * burst is one batch far behind). Kafka's estimate from its latest offsets reads a step past
 * capacity above it; where arrivals are what was read (files, Kinesis, a binding cap) this cannot
 * tell a step from a burst, and levelEvidence's drain seen from the 4th batch decides.
 */
function ratesDrainSoon(ctx: DetectorContext, behindSec: number): boolean {
  const { analysis, latest } = ctx;
  const recent = analysis.arrivalRate;
  let rate = analysis.capacity;
  if (recent === null || rate === null || !(recent > 0)) return false;
  if (analysis.cappedRows !== null) rate = Math.min(rate, analysis.cappedRows / (Math.max(analysis.triggerMs, latest.d) / 1000));
  const usual = recent < rate ? medianArrival(ctx.features, ARRIVAL_SPAN, Infinity, true) : null;
  // A usual rate of 0 (latest offsets that did not move) says nothing of what arrives now.
  const arrival = usual !== null && usual > 0 ? Math.min(recent, usual) : recent;
  const spare = rate - arrival;
  if (!(spare > 0.1 * rate)) return false;
  return (behindSec * arrival) / spare <= TUNING.catchUpBudgetSec / 2;
}

/** Arrival rates whose median, back to the run's first batch, is the run's usual one. */
const ARRIVAL_SPAN = 16;

/**
 * A steady drift too slow for the short window: over the last 24 batches the signal rises with a
 * strong Mann–Kendall trend, and the rates confirm arrivals exceed what is admitted or processed,
 * uncapped at each of the last three batches (so a random walk at exactly the cap or near capacity
 * does not count), and the newest 8 batches still rise on the whole. A capped file backlog must
 * rise by more than what pauses left behind and still stands (`pausesMadeRise`).
 *
 * The rates are read over the last few batches, not the whole window, on purpose: this evidence
 * alone opens about a sixth of all lag incidents, steps and ramps among them, while the window still
 * holds batches from before the onset. Asking what arrived over the whole window to reach 95 % of
 * the capacity (or of what the cap admits) removed 2 of 24 quiet false alarms on 51,000 draws and
 * put 25 overloads past their deadline.
 */
export function driftEvidence(ctx: DetectorContext, minAbs: number): boolean {
  const { analysis } = ctx;
  const n = ctx.features.length;
  if (n < DRIFT_WINDOW) return false;
  // Cheap pre-check before the copies and the pairwise statistics (NaN fails it too).
  const current = analysis.seriesAt(n - 1);
  if (!(current >= analysis.seriesAt(n - DRIFT_WINDOW / 2 - 1) + minAbs && current >= analysis.seriesAt(n - DRIFT_WINDOW) + 2 * minAbs)) return false;
  if (runLength(ctx) < DRIFT_WINDOW) return false;
  const series = analysis.series;
  const values = series.slice(-DRIFT_WINDOW);
  if (!values.every(Number.isFinite)) return false;
  if (oneBatchSpike(values)) return false;
  // Still rising now: a burst that is draining leaves a rise over the long window, and the
  // arrival estimate (over 5 batches) still holds the burst's rate.
  if (current < 0.98 * Math.max(...values.slice(-4))) return false;
  // Kafka's time behind is the offsets behind over an arrival estimate that falls back after a
  // burst: it can keep rising while the offsets visibly drain.
  if (analysis.signal === 'kafka' && offsetsDraining(ctx.features)) return false;
  const arrival = analysis.cappedSource ? analysis.cappedSource.arrival : analysis.arrivalRate;
  const isTime = isTimeSignal(analysis.signal);
  if (analysis.cappedRows !== null) {
    // A capped file source reads what pauses left down a file at a time (uncapped, the next batch
    // takes it all).
    if (!isTime && pausesMadeRise(ctx.features.slice(-DRIFT_WINDOW), values, analysis.signal)) return false;
    if (arrival === null) return !isTime;
    const interval = Math.max(analysis.triggerMs, median(ctx.features.slice(-8).map((f) => f.d)));
    if (!(interval > 0) || arrival < 1.02 * (analysis.cappedRows / (interval / 1000))) return false;
  } else if (analysis.loadFactor === null || analysis.loadFactor < 1.03 || !arrivalsOutran(ctx.features, analysis.capacity)) {
    return false;
  }
  if (mannKendallZ(values, 0.002) < 3) return false;
  const ends = ctx.features.slice(-DRIFT_WINDOW).map((f) => (f.t + f.d) / 1000);
  if (settling(ends, values)) return false;
  // Still losing ground lately: a step (a burst pinned at a cap) or a walk near capacity that has
  // levelled off leaves a strong rise over the window behind it, but a flat or falling newest stretch.
  if (!(theilSen(ends.slice(-DRIFT_RECENT), values.slice(-DRIFT_RECENT)) > 0)) return false;
  const slopePerSec = theilSen(ends, values);
  return isTime ? slopePerSec >= 0.01 : slopePerSec > 0;
}

const DRIFT_WINDOW = 24;

/**
 * The rise of a file backlog (`backlogs`, one per batch of `window`) is within what pauses left
 * behind and still stands (`pauseResidue`): two pauses a few batches apart lift the files waiting
 * twice from where they stood, a rise over the long window that a capped query then reads down a
 * file at a time.
 */
function pausesMadeRise(window: readonly BatchFeatures[], backlogs: readonly number[], signal: LagSignalKind): boolean {
  const rise = backlogs[backlogs.length - 1]! - backlogs[0]!;
  return rise - pauseResidue(window, backlogs) < fileRiseNeeded(signal);
}

/** The least rise of a file backlog that counts: two files, or twice the bytes' own floor. */
function fileRiseNeeded(signal: LagSignalKind): number {
  return signal === 'files' ? 2 : 2 * MIN_ABS.bytes!;
}

/** The newest batches of the drift window that must still rise on the whole (Theil–Sen). */
const DRIFT_RECENT = 8;

/** A window's newer half rising at under this fraction of its older half's pace is settling. */
const SETTLING_PACE = 0.5;

/**
 * The rise decelerates: the newer half of the window climbs at under SETTLING_PACE of the older
 * half's Theil–Sen pace. After a start or a step in load with ρ < 1, batch durations (and the time
 * behind with them) approach o/(1−ρ) along such a curve and settle, a level reached once; ground
 * lost to an overload accrues at a steady or growing pace. `converging` asks the same of the last
 * few batches, and cannot once they have settled within its fitting range.
 */
function settling(ends: readonly number[], values: readonly number[]): boolean {
  const half = Math.floor(values.length / 2);
  const older = theilSen(ends.slice(0, half), values.slice(0, half));
  const newer = theilSen(ends.slice(half), values.slice(half));
  return older > 0 && newer < SETTLING_PACE * older;
}

/** Batches whose arrivals must all reach the capacity for a drift to count. */
const OUTRUN_BATCHES = 3;

/**
 * The arrivals reached the capacity at each of the last OUTRUN_BATCHES batches. Near capacity with
 * noisy input the smoothed arrival rate crosses the capacity for a batch or two and the backlog
 * random-walks up meanwhile; a real drift keeps it above.
 */
function arrivalsOutran(features: readonly BatchFeatures[], capacity: number | null): boolean {
  if (capacity === null || features.length < OUTRUN_BATCHES) return false;
  for (let i = features.length - OUTRUN_BATCHES; i < features.length; i += 1) {
    const arrival = features[i]!.arrival;
    if (arrival === null || arrival < capacity) return false;
  }
  return true;
}

/** A batch this many times the usual ones (the window's median, or the three before it) is a one-off spike. */
const SPIKE_FACTOR = 4;

/**
 * The newest value is a one-off (a GC pause, a slow commit): SPIKE_FACTOR times the three before
 * it. A rise that costs ground builds over batches; one outsized batch is judged as what it is
 * (a stall, or an aftermath that drains).
 */
function oneBatchSpike(values: readonly number[]): boolean {
  const n = values.length;
  return n >= 4 && values[n - 1]! > SPIKE_FACTOR * Math.max(values[n - 2]!, values[n - 3]!, values[n - 4]!, 0);
}

/** Batches the admission evidence looks at. */
const ADMISSION_WINDOW = 5;
/**
 * Batches its rank test looks at, and the Mann–Kendall S the offsets behind need over them: 18 of
 * the 28 pairs net (one-sided p ≈ 0.016 with no ties), as the file admission asks (FILE_RISE_S).
 */
const ADMISSION_RANK_WINDOW = 8;
const ADMISSION_RISE_S = 18;
/**
 * How far below the window's highest the newest offsets behind may read, as a share of the rise, in
 * the rank test: noise a few per cent past the cap dips them for a batch at any time, the newest too.
 */
const ADMISSION_DIP = 0.1;

/**
 * A capped Kafka query whose arrivals outrun its cap: each of the last batches read the cap, and
 * the offsets behind rose at every one of them by 5 % of the cap or more on the whole. With the cap
 * binding, what arrives beyond it is exactly that growth, so this needs no arrival estimate (which
 * lags a step by its smoothing window), and it says so long before the backlog is large when
 * batches are short (a 2 s back-to-back query loses a fraction of a second per batch). Noisy
 * arrivals a few per cent past the cap leave the offsets behind lower for a batch now and then, so
 * a rise over the last 8 batches at the cap, to within ADMISSION_DIP of its highest now, by as
 * much per batch, with a Mann–Kendall trend (ADMISSION_RISE_S) counts too.
 */
export function admissionEvidence(ctx: DetectorContext): boolean {
  const { analysis } = ctx;
  const cap = analysis.cappedRows;
  if (cap === null || analysis.cappedSource !== null || ctx.features.length < ADMISSION_WINDOW) return false;
  if (runLength(ctx) < ADMISSION_WINDOW + 2) return false;
  // Floored shares read up to P − 1 under the cap (admission-cap.ts): more than 1 % of a small one.
  // Past a tenth of the cap that spread is what noisy uncapped input shows too: no cap to read.
  const floors = ctx.facts.kafkaPartitions - 1;
  const tolerance = floors <= 0.1 * cap ? Math.max(0.01 * cap, floors) : 0.01 * cap;
  return offsetsOutrunCap(ctx, cap, tolerance, ADMISSION_WINDOW, true) || offsetsOutrunCap(ctx, cap, tolerance, ADMISSION_RANK_WINDOW, false);
}

/**
 * The last `count` batches of the run read the cap (within `tolerance`) and their offsets behind
 * rose by 5 % of the cap per batch or more on the whole, no one step making more than 0.6 of it
 * (one slow batch, a GC pause, on a steady feed that merely looks capped adds it all at once):
 * at every batch (`everyBatch`), else to near their highest now (ADMISSION_DIP) with a
 * Mann–Kendall trend.
 */
function offsetsOutrunCap(ctx: DetectorContext, cap: number, tolerance: number, count: number, everyBatch: boolean): boolean {
  if (ctx.features.length < count || runLength(ctx) < count + 2) return false;
  const recent = ctx.features.slice(-count);
  const behind: number[] = [];
  let highest = -Infinity;
  let largestStep = 0;
  for (const f of recent) {
    if (f.kafkaBehind === null || f.restart || Math.abs(f.rows - cap) > tolerance) return false;
    const previous = behind.length > 0 ? behind[behind.length - 1]! : null;
    if (everyBatch && previous !== null && f.kafkaBehind <= previous) return false;
    if (previous !== null) largestStep = Math.max(largestStep, f.kafkaBehind - previous);
    highest = Math.max(highest, f.kafkaBehind);
    behind.push(f.kafkaBehind);
  }
  const last = behind[behind.length - 1]!;
  const rise = last - behind[0]!;
  if (last < highest - ADMISSION_DIP * rise || rise < 0.05 * cap * (count - 1) || largestStep > 0.6 * rise) return false;
  return everyBatch || mannKendallS(behind) >= ADMISSION_RISE_S;
}

/** Batches the file admission evidence looks at: a file backlog moves in whole files. */
const FILE_ADMISSION_WINDOW = 8;
/**
 * Mann–Kendall S the files waiting over those 8 batches need when they fell at some batch: 18 of
 * the 28 pairs net (one-sided p ≈ 0.016 with no ties), not the 1 % test's 20. While a cap first
 * binds, noisy arrivals leave the count falling a file or two for a batch or two before it climbs
 * away, and the 1 % test then waited for those dips to leave the window (on 1,500 forced Auto
 * Loader ramps, 2 more inside the deadline and 39 sooner; on 11,900 forced draws of the quiet,
 * catch-up and capacity-drop families on file sources, no false alarm added).
 */
const FILE_RISE_S = 18;

/**
 * A capped Delta or Auto Loader query whose new files outrun its cap: each of the last batches read
 * the cap and the files (or bytes) waiting rose by two files or more on the whole, to their highest
 * now and out of the range the run wandered in before (`newHigh`), never falling or with a
 * Mann–Kendall trend (FILE_RISE_S; files are listed at planning, so noisy arrivals can leave one
 * file fewer for a batch without the rise starting over), not counting what a pause left behind
 * (`pauseResidue`). The file count moves in steps, so the window is longer than Kafka's and the
 * rise need not show at every batch.
 */
export function fileAdmissionEvidence(ctx: DetectorContext): boolean {
  const { analysis } = ctx;
  const run = runLength(ctx);
  if (ctx.features.length < FILE_ADMISSION_WINDOW || run < FILE_ADMISSION_WINDOW + 2) return false;
  const window = fileWindowAtCap(ctx);
  if (window === null) return false;
  const { recent, backlogs } = window;
  // The backlog per ms of its batch (see below).
  const perMs = perMsOfBatch(recent, backlogs);
  const highest = Math.max(...backlogs);
  const last = backlogs[backlogs.length - 1]!;
  // The residue last: most batches of a capped file source fail on the rise alone.
  if (last < highest || last - backlogs[0]! < fileRiseNeeded(analysis.signal) || pausesMadeRise(recent, backlogs, analysis.signal)) return false;
  if (!risesOnTheWhole(backlogs)) return false;
  if (!newHigh(ctx, run, last)) return false;
  // Files waiting that were, batch after batch, what arrived while that batch ran (Auto Loader
  // counting after each batch, which says what each batch read) left nothing at a cap: a rise of
  // them follows the arrivals during the batches. Ground lost at the cap adds a backlog on top,
  // which takes the counts out of that band.
  if (countedAfterBatch(ctx.features)) return false;
  // Where the files are counted after the batch (Auto Loader's asynchronous listing, a Delta table's
  // newest version), what arrived while it ran is waiting: a level that follows the batches'
  // durations, which near capacity wander by a fifth and more, and reads near one steady count look
  // like a cap. Ground lost at a cap rises per ms of batch too (the batches at a cap take about as
  // long each); files that only follow the durations do not.
  return perMs.length < FILE_ADMISSION_WINDOW || risesOnTheWhole(perMs);
}

/** Counts of the run before the window that must be known before `newHigh` judges by them. */
const NEW_HIGH_BEFORE = 8;

/**
 * Whether `last` is above the range the run's counts wandered in before the file window: above
 * every count of the run (`run` batches) the ring holds before it, leaving out those past what an
 * open incident would call normal against their lower quartile (a catch-up's residue, a pause's
 * spike and the slow drain of it at a cap: no level a wander keeps to, and they may fill half the
 * ring). True while fewer than NEW_HIGH_BEFORE counts are known. Counts that wander around a level
 * rise over 8 batches now and then. A one-sided 1.6 % test run at every batch of a long steady run
 * meets such a rise sooner or later, while ground lost at a cap climbs out of the range.
 */
function newHigh(ctx: DetectorContext, run: number, last: number): boolean {
  const before = valuesBeforeWindow(ctx, Math.max(0, ctx.features.length - run));
  if (before.length < NEW_HIGH_BEFORE) return true;
  const level = quantile(before, 0.25);
  const ceiling = normalCeiling(level, level, ctx.analysis.signal);
  let highest = -Infinity;
  for (const value of before) if (value <= ceiling && value > highest) highest = value;
  return last > highest;
}

/** The lag signal's finite values from ring index `from` up to the file window, oldest first. */
function valuesBeforeWindow(ctx: DetectorContext, from: number): number[] {
  const values: number[] = [];
  for (let i = from; i < ctx.features.length - FILE_ADMISSION_WINDOW; i += 1) {
    const value = ctx.analysis.seriesAt(i);
    if (Number.isFinite(value)) values.push(value);
  }
  return values;
}

/**
 * Batches of the run before the window that say what the files waiting usually read: with the
 * window, the 32 a young run takes to show its steady level (near capacity, back-to-back batches
 * and the files counted after them climb for dozens of batches from a start).
 */
const FILE_USUAL_MIN = 24;

/**
 * A capped Delta or Auto Loader query that reads its cap in each of the last 8 batches while the
 * files (or bytes) waiting stand above their usual range at every one of them (`normalCeiling` of
 * the ring before the window) and have not come down: the newest 3 read, in the median, at least
 * what the oldest 3 did. Reads at the cap take a backlog down by whatever of the cap arrivals
 * leave; a burst's backlog on a query with room to spare falls by files per batch, so one that
 * holds while every batch reads the cap has arrivals at the cap or past it. This sees an overload
 * whose backlog jumped in its first batches and then wanders with noisy arrivals, which the rise
 * to a new high now (`fileAdmissionEvidence`) can wait many batches for.
 */
export function fileHoldEvidence(ctx: DetectorContext): boolean {
  const { analysis } = ctx;
  const signal = analysis.signal;
  const n = ctx.features.length;
  if (n < FILE_ADMISSION_WINDOW + FILE_USUAL_MIN || runLength(ctx) < FILE_ADMISSION_WINDOW + FILE_USUAL_MIN) return false;
  const window = fileWindowAtCap(ctx);
  if (window === null) return false;
  const { recent, backlogs } = window;
  // Cheap tests first (this runs at every batch of a capped file source), the usual range last.
  if (!notComingDown(backlogs)) return false;
  // Reads that only look capped: a query that reads all there was, back to back, reads next what
  // the last count said waited, so steady reads follow a steady count. Reads held at a cap that
  // binds do not follow the count: it moves with the arrivals while they stay put.
  if (backlogs.slice(1, -1).every((value) => value === backlogs[0])) return false;
  // A pause in the window (or just before it) lifts the count at one batch and the batches after
  // it read that down: a drain the medians can miss. Held ground shows as well without one.
  const slow = SLOW_BATCH * median(recent.map((f) => f.d));
  if (ctx.features[n - FILE_ADMISSION_WINDOW - 1]!.d > slow || recent.some((f) => f.d > slow)) return false;
  const before = valuesBeforeWindow(ctx, 0);
  if (before.length < FILE_USUAL_MIN) return false;
  // A usual range is a level: a run still climbing to its steady count has none yet.
  const older = before.slice(0, before.length >> 1);
  if (median(before.slice(before.length >> 1)) > normalCeiling(median(older), quantile(older, 0.9), signal)) return false;
  return Math.min(...backlogs) > normalCeiling(median(before), quantile(before, 0.9), signal);
}

/**
 * The newest FILE_ADMISSION_WINDOW batches of a capped Delta or Auto Loader query, each at the cap
 * (reading its rows within 1 %, reading its count of files, or, where files left at planning show
 * the cap, leaving files waiting) with no restart among them, and the files (or bytes) waiting after
 * each; null when the source is no capped file source or a batch of the window does not qualify.
 */
function fileWindowAtCap(ctx: DetectorContext): { recent: readonly BatchFeatures[]; backlogs: number[] } | null {
  const { analysis } = ctx;
  // The signal first: the caps are read from the ring, and most queries read no files.
  if (analysis.signal !== 'files' && analysis.signal !== 'bytes') return null;
  const cap = analysis.cappedRows;
  const files = analysis.cappedFiles;
  const left = analysis.filesLeftAtPlanning;
  if (cap === null && files === null && !left) return null;
  const recent = ctx.features.slice(-FILE_ADMISSION_WINDOW);
  const backlogs: number[] = [];
  for (const f of recent) {
    const backlog = signalValue(f, analysis.signal);
    const waiting = f.filesOutstanding !== null && f.filesOutstanding > 0;
    // A Delta batch across table versions does not say what it read: at the cap when it left files.
    const read = filesReadOf(f);
    const atCap = (cap !== null && Math.abs(f.rows - cap) <= 0.01 * cap) || (files !== null && (read === files || (read === null && waiting))) || (left && waiting);
    if (!Number.isFinite(backlog) || f.restart || !atCap) return null;
    backlogs.push(backlog);
  }
  return { recent, backlogs };
}

/** Each backlog over the duration of its batch, for the batches that ran (longer than 0 ms). */
function perMsOfBatch(recent: readonly BatchFeatures[], backlogs: readonly number[]): number[] {
  const perMs: number[] = [];
  for (let i = 0; i < recent.length; i += 1) if (recent[i]!.d > 0) perMs.push(backlogs[i]! / recent[i]!.d);
  return perMs;
}

/** A backlog that has not come down: the median of its newest 3 values at least that of its oldest 3. */
export function notComingDown(values: readonly number[]): boolean {
  return median(values.slice(-3)) >= median(values.slice(0, 3));
}

/** Never falling, or a Mann–Kendall trend at about 1.6 % (FILE_RISE_S). */
function risesOnTheWhole(values: readonly number[]): boolean {
  for (let i = 1; i < values.length; i += 1) if (values[i]! < values[i - 1]!) return mannKendallS(values) >= FILE_RISE_S;
  return true;
}

/** A batch this many times the window's median duration is slow (a pause, or lost capacity). */
const SLOW_BATCH = 1.5;

/** Slow batches in a row past which they are lost capacity rather than a pause that may yet end. */
const PAUSE_MAX_BATCHES = 3;

/**
 * What the backlog rose by at or right after slow batches that were followed by a batch of the
 * usual duration: the residue of a pause (a GC pause, a slow commit), counted after the slow batch
 * or listed at the next planning, which the batches after it read down. Batches that stay slow are
 * lost capacity, whose files do count; while the newest batches are slow, fewer than
 * PAUSE_MAX_BATCHES of them, they may still be a pause (two GC pauses back to back), so the rise
 * after each slow one among them waits as residue.
 * Only what still stands counts: a jump the batches since have read down is no residue any more,
 * and a later rise is new ground lost.
 */
function pauseResidue(recent: readonly BatchFeatures[], backlogs: readonly number[]): number {
  const slow = SLOW_BATCH * median(recent.map((f) => f.d));
  let residue = 0;
  let trailing = 0;
  while (trailing < recent.length && recent[recent.length - 1 - trailing]!.d > slow) trailing += 1;
  // Set at the newest batch anyway when it is not slow.
  let endedLater = trailing < PAUSE_MAX_BATCHES;
  let lowestSince = Infinity;
  for (let i = recent.length - 1; i >= 1; i -= 1) {
    if (!(recent[i]!.d > slow)) endedLater = true;
    lowestSince = Math.min(lowestSince, backlogs[i]!);
    const step = backlogs[i]! - backlogs[i - 1]!;
    // Listed at the next planning the rise follows the slow batch; counted after each batch (Auto
    // Loader's asynchronous listing) it shows at the slow batch itself, which counted what arrived
    // while it ran.
    const afterPause = recent[i - 1]!.d > slow || recent[i]!.d > slow;
    if (step > 0 && afterPause && endedLater) residue += Math.max(0, Math.min(step, lowestSince - backlogs[i - 1]!));
  }
  return residue;
}

/**
 * A query seen for fewer batches than this has not shown its steady level yet: near capacity,
 * batches run back to back and lengthen towards o/(1−ρ) for dozens of batches from a start, and
 * noise can carry them past it for a while. (On 26,000 draws, all ten lag incidents opened so
 * early were false alarms; creep no longer opens on such a run.)
 */
export const YOUNG_RUN = 32;

/** Batches of the current run (since its restart, else all the tracker has seen). */
export function runLength(ctx: DetectorContext): number {
  let count = 0;
  for (let i = ctx.features.length - 1; i >= 0; i -= 1) {
    count += 1;
    if (ctx.features[i]!.restart) return count;
  }
  return Math.max(count, ctx.batches);
}

/**
 * A slow creep (state or GC cost growing every batch): batches overrun the trigger interval, keep
 * overrunning, and keep getting longer. Each batch then starts later than the data it waits for.
 */
export function creepEvidence(ctx: DetectorContext): boolean {
  const { triggerMs } = ctx.analysis;
  const { features } = ctx;
  if (triggerMs <= 0 || features.length < 12) return false;
  // The last 8 batches overran the trigger (checked in place: most batches fail here).
  for (let i = features.length - 8; i < features.length; i += 1) {
    if (!(features[i]!.d > triggerMs && features[i]!.rows > 0)) return false;
  }
  if (features[features.length - 1]!.d < 1.1 * triggerMs) return false;
  // Within the current run: batches longer after a restart than before it are its catch-up (and
  // the new run's own pace), not growth; the 8 overrunning batches must all be of this run.
  let runStart = Math.max(0, features.length - 12);
  for (let i = features.length - 1; i > runStart; i -= 1) {
    if (features[i]!.restart) {
      runStart = i;
      break;
    }
  }
  if (features.length - runStart < 8) return false;
  // A young run near capacity lengthens its batches towards o/(1−ρ) from its start for dozens of
  // batches, noise carrying them past it for a while: that is no creep (whose cost grows later).
  if (runLength(ctx) < YOUNG_RUN) return false;
  const recent = features.slice(runStart);
  const durations = recent.map((f) => f.d);
  // Material growth over the window: near capacity, durations settle above the trigger (o/(1−ρ))
  // and wander there with the input's noise without getting longer on the whole.
  if (durations[durations.length - 1]! < 1.2 * median(durations.slice(0, 4))) return false;
  // One outsized batch (a GC pause, a slow commit) and the capped catch-up after it: not a creep,
  // whose batches get longer step by step (its longest is the newest). Nor is a jump among the
  // newest batches (a burst, a step, such a batch newest of all: `jumpOutOfLevel`).
  const longest = durations.indexOf(Math.max(...durations));
  if (longest < durations.length - 1 && durations[longest]! > SPIKE_FACTOR * median(durations)) return false;
  if (jumpOutOfLevel(durations)) return false;
  // Batches no longer than the query's earlier ones have been: its noise, not a creep.
  if (withinHistory(ctx, ctx.features.map((f) => f.d), durations[durations.length - 1]!, ctx.features.length - recent.length)) return false;
  // Near capacity (ρ ≈ 0.9–0.97) noise alone makes runs of overrunning, lengthening batches, but
  // the backlog they leave stays within about a trigger interval and a bit (the steady
  // max(T, d) plus noise); a creep that costs ground carries it clearly past that.
  const behindSec = ctx.analysis.timeBehindSec;
  if (behindSec !== null && behindSec * 1000 < TUNING.creepBacklogTriggers * triggerMs) return false;
  // Nor while the files waiting fall: the query gains ground, however long its batches.
  if (fileBacklogFell(ctx)) return false;
  // Nor while Kafka's offsets behind fall batch after batch (its time behind, over an arrival
  // estimate falling back after a burst, can rise meanwhile).
  if (ctx.analysis.signal === 'kafka' && offsetsDraining(features)) return false;
  const rho = ctx.analysis.loadFactor;
  if (!atACap(ctx.analysis) && rho !== null && rho < 0.98) return false;
  return mannKendallS(durations, 0.002) >= mannKendallCritical(durations.length);
}

/** A rise in one batch past this factor is a jump (a burst, a step in load), not a creep's step. */
const CREEP_JUMP = 1.5;

/** Batches at the newest end of the creep window in which a jump (CREEP_JUMP) rules a creep out. */
const CREEP_JUMP_BATCHES = 3;

/**
 * One of the newest CREEP_JUMP_BATCHES batches ran CREEP_JUMP times the one before it or longer:
 * a burst, or a step in load, which the trend judges. A creep's batches get longer a little at
 * each (state, GC), noise aside.
 */
function jumpOutOfLevel(durations: readonly number[]): boolean {
  const n = durations.length;
  for (let i = Math.max(1, n - CREEP_JUMP_BATCHES); i < n; i += 1) if (durations[i]! >= CREEP_JUMP * durations[i - 1]!) return true;
  return false;
}

/** Batches back over which a file backlog that fell says the query gains ground. */
const FELL_OVER_BATCHES = 4;

/**
 * The lag signal is the files (or bytes) waiting, lower than FELL_OVER_BATCHES batches ago. Only a
 * file backlog: it is counted when a batch is planned, while Kafka's time behind is offsets over an
 * arrival estimate, whose noise makes it dip for a few batches while a creep goes on.
 */
function fileBacklogFell(ctx: DetectorContext): boolean {
  const { analysis } = ctx;
  const n = ctx.features.length;
  if ((analysis.signal !== 'files' && analysis.signal !== 'bytes') || n <= FELL_OVER_BATCHES) return false;
  return analysis.seriesAt(n - 1) < analysis.seriesAt(n - 1 - FELL_OVER_BATCHES);
}

/**
 * Back to back and uncapped, a batch's duration follows d_i ≈ o + ρ·d_(i−1): with ρ < 1 durations
 * rise towards o/(1−ρ) after a start or a step in load and settle there (healthy), with ρ ≥ 1 they
 * grow without bound. The Theil–Sen slope of d_i against d_(i−1) estimates ρ; it is only trusted
 * when the durations span a wide enough range to fit, and not while the arrivals are clearly past
 * the capacity: their median, or a ramp (input-ramp.ts) that the median trails.
 */
export function converging(ctx: DetectorContext): boolean {
  const { analysis } = ctx;
  if (atACap(analysis)) return false;
  // Arrivals clearly past the measured capacity while batches overrun the trigger (back to back,
  // every batch does): the fit below, on eight noisy pairs, is the weaker witness (a 10 % overload
  // with 14 % noise often reads ρ < 0.97). The capacity is rows per second of busy time, so a
  // healthy step in load, whose durations rise towards o/(1−ρ), still reads under 1.
  if (overrunning(ctx) && ((analysis.loadFactor !== null && analysis.loadFactor >= CONVERGING_MAX_LOAD) || rampedPast(ctx, CONVERGING_MAX_LOAD))) return false;
  const recent = ctx.features.slice(-9);
  if (recent.length < 6 || recent.some((f) => f.restart && f !== recent[0])) return false;
  const previous: number[] = [];
  const current: number[] = [];
  for (let i = 1; i < recent.length; i += 1) {
    const gap = recent[i]!.t - recent[i - 1]!.t;
    // Only back-to-back pairs: the next batch started as the previous one ended.
    if (gap > recent[i - 1]!.d * 1.1 + 1_000) return false;
    previous.push(recent[i - 1]!.d);
    current.push(recent[i]!.d);
  }
  const spread = Math.max(...previous) / Math.max(1, Math.min(...previous));
  if (spread < 1.3) return false;
  const rho = theilSen(previous, current);
  return Number.isFinite(rho) && rho < 0.97;
}

/** A measured load factor at which overrunning batches are not read as converging. */
const CONVERGING_MAX_LOAD = 1.08;

/**
 * The input's ramp (input-ramp.ts) stood at `load` × the capacity or more, no higher than the
 * newest rates have shown, at the newest batch and at the one before it. The median arrival rate
 * the load factor reads trails a ramp (on 1,000 forced ramps per reporting mode, 1 to 2 more found
 * in time in five of the seven modes, and 11 to 20 sooner in each). Over 24 batches one noisy rate
 * can make a wander near capacity read as a ramp for a batch: on 1,500 forced slow catch-ups at
 * 86-93 % load, 3 opened on such a batch when one reading sufficed.
 */
function rampedPast(ctx: DetectorContext, load: number): boolean {
  const { analysis } = ctx;
  if (analysis.capacity === null || analysis.capacity <= 0) return false;
  const least = load * analysis.capacity;
  const past = (ramp: InputRamp | null) => ramp !== null && shownPerSec(ramp) >= least;
  return past(analysis.inputRamp) && past(inputRamp(ctx.features.slice(0, -1)));
}

/** The load factor an uncapped query's rising trend needs (a 10 % overload reads about 1.1). */
const TREND_MIN_LOAD = 1.05;

/** The most the newest reads (their median) may be over those before them and still hold back (`heldFileReads`). */
const READS_HELD = 1.1;
/**
 * The least the newest reads (their median) may be of the most a batch of the run read: at a cap
 * the reads cluster at one level, and the run's largest read of them, the files' sizes scattering
 * them, is up to about a fifth above it (files 60–140 % of their mean, 10 a batch, 400 batches).
 * A longer run, fewer files a batch or sizes scattered more widely take the largest read further
 * up, and this test then fails sooner: it errs towards leaving the veto in place.
 */
const READS_AT_HIGH = 0.8;

/** Batches in each half of the reads `heldFileReads` compares. */
const READS_HALF = 4;

/**
 * The rows the newest READS_HALF batches read (their median) when those reads held their level
 * against the READS_HALF before them, at about the most the run reads, past the run's first
 * YOUNG_RUN batches, on a file source with files waiting; null otherwise. A file cap counts files,
 * whose rows vary with their sizes, so `cappedRows` (equal reads) does not see it. Reads of files of
 * one size come in whole files, a count or two apart, which `cappedRows` judges: the newest reads
 * must be 3 or more different sums.
 */
export function heldFileReads(ctx: DetectorContext): number | null {
  if (isTimeSignal(ctx.analysis.signal) || ctx.runMaxRows <= 0) return null;
  const n = ctx.features.length;
  if (n < 2 * READS_HALF || runLength(ctx) < YOUNG_RUN) return null;
  const rows = (from: number) => median(ctx.features.slice(from, from + READS_HALF).map((f) => f.rows));
  if (new Set(ctx.features.slice(n - READS_HALF).map((f) => f.rows)).size < 3) return null;
  const newer = rows(n - READS_HALF);
  if (newer > READS_HELD * rows(n - 2 * READS_HALF)) return null;
  // At the most the run reads (a cap's files, their sizes aside), not below it (a burst that a cap
  // only clips at its peak, reads that dip for a while).
  return newer >= READS_AT_HIGH * ctx.runMaxRows ? newer : null;
}

/**
 * Files (or bytes) left at a cap that `cappedRows` does not see: the reads held (`heldFileReads`)
 * while the files waiting rose per ms of batch too. Each batch then left files that a source
 * without a cap reads at its next planning (it reads all that is listed, so its reads rise with
 * what waits), and the reads are no arrival rate: the load factor, which takes them for one, says
 * nothing of the arrivals. Counted after each batch, what arrived while it ran waits too and follows
 * the batches' durations; files left at a cap rise per ms of batch as well.
 */
function leftAtUnseenCap(ctx: DetectorContext): boolean {
  if (heldFileReads(ctx) === null) return false;
  const recent = ctx.features.slice(-TUNING.lagWindow);
  const backlogs = recent.map((f) => signalValue(f, ctx.analysis.signal));
  if (!backlogs.every(Number.isFinite)) return false;
  const perMs = perMsOfBatch(recent, backlogs);
  return perMs.length === recent.length && risesOnTheWhole(perMs);
}

/** `values`: the window's finite values, the first at index `from` of the series. */
export function trendEvidence(
  ctx: DetectorContext,
  values: number[],
  from: number,
  windowBase: number,
  minAbs: number,
): boolean {
  const n = values.length;
  // The cheap tests first (all must pass): the pairwise statistic last.
  if (n < 6) return false;
  const current = values[n - 1]!;
  if (current < windowBase * TUNING.lagGrowthRatio || current - windowBase < minAbs) return false;
  // Still rising at the newest batch: a burst that has started to drain is not lag.
  if (current < Math.max(values[n - 4]!, values[n - 3]!, values[n - 2]!) * 0.98) return false;
  // Built over batches: one outsized batch (a GC pause) on top of a wander within the noise makes
  // most of a rise in one step, which the tests below would read as its newest steepening.
  if (current - values[n - 2]! > ONE_STEP_SHARE * (current - windowBase)) return false;
  // Sustained: the rise began at least 5 batches ago and most steps since went up. A burst lifts
  // a few batches only (a short burst in back-to-back batches rises for ~4 of them).
  if (values[n - 6]! < windowBase * 1.03) return false;
  let ups = 0;
  for (let i = n - 5; i < n; i += 1) if (values[i]! > values[i - 1]!) ups += 1;
  if (ups < 4) return false;
  // A query's first batches fill up from an empty start (durations rise towards o/(1−ρ)): judge
  // trends once the run has a history, and while it is young, only a rise that keeps its pace.
  const run = runLength(ctx);
  if (run < TREND_MIN_RUN) return false;
  if (mannKendallS(values, 0.005) < mannKendallCritical(n)) return false;
  if (run < DRIFT_WINDOW && runSettling(ctx, run)) return false;
  const { analysis } = ctx;
  // Material against the range the ring held before the window too, by the same ratio: a rise out
  // of a dip (a few light batches of a query whose reads come in whole files, an idle stretch) back
  // to where the signal ran before is no new ground lost.
  if (withinHistory(ctx, analysis.series, current / TUNING.lagGrowthRatio, from)) return false;
  // Uncapped, capacity comfortably above arrivals: durations converging to o/(1−ρ) after a
  // start or a step in load also rise for a while, but the query is not losing ground.
  // Near capacity the noise alone makes durations wander (an AR(1) with ρ close to 1), so an
  // uncapped query must also show arrivals clearly above its measured capacity: over the few
  // batches of such an excursion, noisy input at 86-95 % load runs 3-4 % above it.
  if (!atACap(analysis) && analysis.loadFactor !== null && analysis.loadFactor < TREND_MIN_LOAD && !leftAtUnseenCap(ctx)) return false;
  if (analysis.signal === 'kafka' && !offsetsRise(finiteWindow(ctx, n))) return false;
  // Backlog inside the batches: they must overrun the trigger.
  return !backlogInBatches(analysis, ctx.latest) || overrunning(ctx);
}

/**
 * An input ramp past capacity (input-ramp.ts), uncapped: the arrivals' fitted line puts them at
 * RAMP_MIN_LOAD × the capacity or more by the newest batch's end, while batches overrun the trigger
 * (the median of the last 3 over it, the newest at least 1.1 × it), lengthen over the last 8
 * (Mann–Kendall at 1 %), and run longer than the growth ratio over the query's usual batches
 * before the window (their 99th percentile since lag last resolved, once 16 of them are known:
 * `withinHistory`). The trend's own load test reads the median arrival of the last few batches,
 * which a ramp outruns; this reads where the ramp has got to. It opens on the line, a forecast
 * a batch or so ahead of the rates, while the capacity cause states no more than the newest rates
 * have shown. Bounding the opening by them too put 1 more ramp past its deadline and opened 143 to
 * 210 later (of 1,500 forced ramps in each of two modes); asking the rates to rise through both
 * halves of the window (no step) put 1 to 2 more past it.
 *
 * On 1,500 forced ramps in each reporting mode (seeds 920000–) it found 3 to 8 more within the
 * deadline and opened sooner on a fifth to two fifths of them; on 16,000 draws of the quiet
 * families it added no false alarm. Noise that wanders (input running high for several batches)
 * is what it must not read as a ramp: over RAMP_WINDOW batches such a wander rarely both rises
 * and reaches the load, and the batches must lengthen past those the query usually ran.
 */
export function rampEvidence(ctx: DetectorContext): boolean {
  const { analysis, features } = ctx;
  const n = features.length;
  if (atACap(analysis) || n <= RAMP_WINDOW) return false;
  const last = features[n - 1]!.d;
  // Backlog inside the batches: they overrun the trigger, the newest clearly.
  if (!overrunning(ctx) || last < 1.1 * analysis.triggerMs) return false;
  const durations = features.slice(-8).map((f) => f.d);
  if (mannKendallS(durations, 0.005) < mannKendallCritical(durations.length)) return false;
  if (withinHistory(ctx, features.map((f) => f.d), last / TUNING.lagGrowthRatio, n - RAMP_WINDOW)) return false;
  const ramp = analysis.inputRamp;
  const capacity = analysis.capacity;
  return ramp !== null && capacity !== null && capacity > 0 && ramp.nowPerSec >= RAMP_MIN_LOAD * capacity;
}

/** Where arrivals must stand against the capacity left after a loss (capacityDropEvidence). */
const DROP_MIN_LOAD = 1.05;
/** The most the fastest of the slow batches' per-row rates may be over the slowest. */
const DROP_PACE_SPREAD = 1.5;
/** Slow batches in a row, each a rise of the signal: GC pauses drawn at random seldom make 4. */
const DROP_BATCHES = 4;

/**
 * Capacity lost under the same arrivals (a slower cluster, a heavier plan), uncapped: the newest
 * DROP_BATCHES batches process under LOST_PACE of the run's usual per-row rate, the newest 3 of them
 * reading as many rows as before (capacityLoss: not a lull's share of fixed cost, not a burst, which
 * reads more at the usual rate), at one pace (DROP_PACE_SPREAD), the arrivals outrun what is left,
 * and the signal rose at each of those batches to past the growth ratio over the window's base
 * (on Kafka, with the offsets behind: as for the trend). The trend waits for a rise sustained over
 * 5 batches, which on a slow trigger a loss of half an hour does not last: the rates say at the 4th
 * slow batch why it rises.
 */
export function capacityDropEvidence(ctx: DetectorContext, values: number[], windowBase: number, minAbs: number): boolean {
  const n = values.length;
  if (n <= DROP_BATCHES) return false;
  const current = values[n - 1]!;
  if (current < windowBase * TUNING.lagGrowthRatio || current - windowBase < minAbs) return false;
  for (let i = n - DROP_BATCHES; i < n; i += 1) if (!(values[i]! > values[i - 1]!)) return false;
  const { analysis, features } = ctx;
  if (analysis.cappedRows !== null || analysis.loadFactor === null || analysis.loadFactor < DROP_MIN_LOAD) return false;
  if (runLength(ctx) < TREND_MIN_RUN) return false;
  if (analysis.signal === 'kafka' && !offsetsRise(finiteWindow(ctx, n))) return false;
  const lost = capacityLoss(features);
  if (lost === null) return false;
  // Lost capacity is a new pace that holds batch to batch; pauses add time of their own length,
  // so the per-row rates of pauses in a row scatter.
  let slowest = Infinity;
  let fastest = 0;
  for (let i = features.length - DROP_BATCHES; i < features.length; i += 1) {
    const f = features[i]!;
    const rate = f.rows / (f.addBatchMs / 1000);
    if (!(rate > 0) || rate >= LOST_PACE * lost.usual) return false;
    slowest = Math.min(slowest, rate);
    fastest = Math.max(fastest, rate);
  }
  if (fastest > DROP_PACE_SPREAD * slowest) return false;
  // Backlog inside the batches: they must overrun the trigger.
  return !backlogInBatches(analysis, ctx.latest) || overrunning(ctx);
}

/** Where a ramp's arrivals must have got to, as a multiple of the capacity (a 10 % overload). */
const RAMP_MIN_LOAD = 1.1;

/**
 * The newest batches overrun the trigger (the median of the last 3 is longer than it): back to
 * back, with no trigger, every batch does.
 */
function overrunning(ctx: DetectorContext): boolean {
  const { triggerMs } = ctx.analysis;
  return triggerMs <= 0 || median(ctx.features.slice(-3).map((f) => f.d)) > triggerMs;
}

/** The most of a trend's rise its newest batch may make alone. */
const ONE_STEP_SHARE = 0.75;

/** Batches of the current run before trends count. */
const TREND_MIN_RUN = 12;

/**
 * The lag signal over the whole of a young run (fewer than DRIFT_WINDOW batches) is `settling`:
 * near capacity a start takes dozens of batches to reach o/(1−ρ), longer than the trend waits.
 */
function runSettling(ctx: DetectorContext, run: number): boolean {
  const ends: number[] = [];
  const values: number[] = [];
  for (let i = Math.max(0, ctx.features.length - run); i < ctx.features.length; i += 1) {
    const value = ctx.analysis.seriesAt(i);
    if (!Number.isFinite(value)) continue;
    values.push(value);
    ends.push((ctx.features[i]!.t + ctx.features[i]!.d) / 1000);
  }
  return values.length >= TREND_MIN_RUN && settling(ends, values);
}

/** The batches behind the newest `count` finite values of the lag signal, oldest first. */
function finiteWindow(ctx: DetectorContext, count: number): BatchFeatures[] {
  const out: BatchFeatures[] = [];
  for (let i = ctx.features.length - 1; i >= 0 && out.length < count; i -= 1) {
    if (Number.isFinite(ctx.analysis.seriesAt(i))) out.push(ctx.features[i]!);
  }
  return out.reverse();
}

/**
 * Kafka's time behind is the offsets behind over an arrival estimate: after a burst the estimate
 * still holds the burst's rate for a few batches, and the time behind rises as it falls back
 * while the offsets stay put. Losing ground moves the offsets too.
 */
function offsetsRise(window: readonly BatchFeatures[]): boolean {
  const offsets: number[] = [];
  for (const f of window) if (f.kafkaBehind !== null) offsets.push(f.kafkaBehind);
  if (offsets.length < window.length || offsets.length < 6) return true;
  const last = offsets[offsets.length - 1]!;
  return last === 0 || last > 1.15 * median(offsets.slice(0, 3));
}

/** Batches in a row whose offsets behind fell, each below the one before: a backlog draining. */
const DRAINING_BATCHES = 3;
/**
 * How far they must fall over those batches, at least: uncapped, the offsets behind are what
 * arrived during the last batch, so noise alone makes small falls in a row while a creep goes on.
 */
const DRAINED_SHARE = 0.15;

/** The offsets behind fell at each of the newest DRAINING_BATCHES batches (none restarted), by DRAINED_SHARE in all. */
function offsetsDraining(features: readonly BatchFeatures[]): boolean {
  const n = features.length;
  if (n <= DRAINING_BATCHES) return false;
  for (let i = n - DRAINING_BATCHES; i < n; i += 1) {
    const f = features[i]!;
    const previous = features[i - 1]!.kafkaBehind;
    if (f.restart || f.kafkaBehind === null || previous === null || !(f.kafkaBehind < previous)) return false;
  }
  return features[n - 1]!.kafkaBehind! <= (1 - DRAINED_SHARE) * features[n - 1 - DRAINING_BATCHES]!.kafkaBehind!;
}

/**
 * Whether `current` is no higher than the 99th percentile of `series` (one value per ring batch)
 * before index `from`, where the judged window starts, counting only batches since the last lag
 * episode ended: a relapse climbs back to that episode's level, which was never normal. Nearly the
 * highest, not a 95th percentile: near capacity the input's noise makes excursions that rise as
 * steeply as an overload for a few batches and have done so before.
 */
function withinHistory(ctx: DetectorContext, series: readonly number[], current: number, from: number): boolean {
  const since = ctx.lagResolvedAtMs ?? Number.NEGATIVE_INFINITY;
  const before: number[] = [];
  for (let i = 0; i < from; i += 1) if (ctx.features[i]!.t >= since && Number.isFinite(series[i]!)) before.push(series[i]!);
  return before.length >= HISTORY_MIN && current <= quantile(before, 0.99);
}

/** Earlier batches needed before their range says what is normal. */
const HISTORY_MIN = 16;
