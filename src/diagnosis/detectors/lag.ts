/**
 * `lag`: the query is losing ground. Judged on the lag signal (time behind when the source reports
 * a backlog, files/bytes outstanding for Delta and Auto Loader, batch duration when the backlog
 * lives inside the batches) over a short window:
 * - trend: a Mann–Kendall-significant rise over 8 batches, material against the level at the
 *   start of the window and against the range the ring held before it, sustained for 5 batches,
 *   still rising at the newest, which made no more than three quarters of it (a burst that drains,
 *   a single slow batch, a noisy steady stream, a climb back out of a dip or a young run settling
 *   from its start does not pass them all);
 * - creep: batches overrun the trigger interval and keep getting longer (state, GC) within the
 *   current run, past its first YOUNG_RUN batches, with no one outsized batch among them (a pause
 *   and its catch-up) nor a jump among the newest 3 (a burst, a step), time behind is clearly past
 *   one trigger interval (`creepBacklogTriggers`), and the files waiting (on a file source) did not
 *   fall over the last 4 batches;
 * - drift: a slow steady rise over 24 batches that the rates confirm (arrivals above what is
 *   admitted or processed) and that does not slow down over the window (a query settling towards
 *   its steady batch duration after a start, o/(1−ρ), rises ever more slowly) nor stop in its
 *   newest 8 batches (a step, or a walk near capacity that levelled off), and on a capped file
 *   source is more than the files pauses left behind;
 * - admission: a capped Kafka query reads its cap in every batch while the offsets behind rise at
 *   each of 5, or over 8 to near their highest now with a Mann–Kendall trend at about 1.6 % (noisy
 *   input leaves them lower for a batch now and then, the newest too), by steps of a like size
 *   (what arrives beyond the cap, exactly, with no arrival estimate);
 *   a capped Delta or Auto Loader query reads its cap in 8 batches while the files waiting never fall
 *   or rise with a Mann–Kendall trend at about 1.6 % (what a pause left behind, a jump at or right
 *   after a slow batch that a usual one ended or that is one of the newest 2, not counted), to above
 *   the range the run wandered in before, per ms of batch too (files counted after each batch follow
 *   the batches' durations), and not while the files waiting are each batch's own arrivals (Auto
 *   Loader, counted after the batch), or hold above their usual range at each of the 8 without
 *   coming down (a jump at the onset that noise then hides from the rise to a new high);
 * - saturation: with no backlog figure at all, the cap read in every batch since reads rose into it
 *   out of a steady state, idle stretches aside (`capBoundBatches`, 2 fewer after a steady ramp,
 *   a trend of the reads into the cap or a back-to-back build-up into it, more when the rise was
 *   within the reads' noise and no trend of the reads before carried them to the cap), or for
 *   longer than the catch-up budget when the binding followed a hiccup (a slow batch, a restart)
 *   whose backlog it may be draining (after a restart, sooner: as soon as the backlog estimated
 *   from the arrivals before it will not drain within the budget even at the most hopeful arrival
 *   rate, aftermath.ts; while that estimate drains it in time no other evidence opens either);
 *   when the batches at the cap stay slow and admit clearly less than arrived before (capacity
 *   lost), `capBoundBatches` after the first slow batch, however the binding began (cap-binding.ts;
 *   the tracker follows the binding past the ring); an incident opened on other evidence while
 *   such a binding holds reads and stays open as it;
 * - ramp: uncapped, the arrival rates of the newest 24 batches rose and their line reaches 1.1 ×
 *   the capacity by now, while batches overrun the trigger, lengthen, and run longer than the
 *   query's usual ones by the growth ratio (input-ramp.ts: the median arrival the trend's load test
 *   reads trails a ramp);
 * - capacity drop: uncapped, the newest 4 batches run under 0.8 of the run's usual per-row rate
 *   (the newest 3 reading as many rows as it usually did), at one pace (the fastest at most 1.5 ×
 *   the slowest: GC pauses in a row scatter it), the arrivals are past what is left (load factor
 *   1.05), and the signal rose at each of them past the growth ratio, Kafka's offsets behind too
 *   (the trend's rise sustained over 5 batches outlasts a loss on a slow trigger);
 * - level: a backlog of more than `lagLevelSec` that will not drain within the catch-up budget
 *   (a sudden one waits for its drain to show when the rates say it will drain in half of it).
 * Trends are vetoed when uncapped durations are only converging to o/(1−ρ) with ρ < 1 (unless
 * the arrivals, or a ramp of them read so at two batches in a row, are clearly past capacity), the
 * load factor of an uncapped query says capacity is comfortably above arrivals (a cap in rows, in
 * files the offsets count, or files left at planning: `atACap`; nor where files waiting rise while the
 * reads hold at the run's high: a cap of files whose sizes vary that nothing else shows,
 * `leftAtUnseenCap`), Kafka's time behind rises while its
 * offsets behind do not (a drift or a creep: while they fall batch after batch), or (a drift) the
 * rise is one outsized batch (lag-evidence.ts). After a stall
 * or a restart after downtime the aftermath is judged first (lag-aftermath.ts, on the disruption
 * src/diagnosis/aftermath.ts finds). Resolves when the signal is
 * back within its level and noise band before the episode (and, with the backlog inside the
 * batches, batches fit the trigger), or, opened on a young run, once the run has settled at a level
 * of its own (`settledLevel`); the tracker adds the hold period and the relapse cool-down.
 */
import { batchesSince, unreportedCatchUp } from '../aftermath.js';
import type { BatchFeatures } from '../batch-features.js';
import { admitsLess } from '../cap-binding.js';
import { TUNING } from '../engine-options.js';
import { signalValue } from '../query-analysis.js';
import { median, quantile } from '../statistics.js';
import { CLEAR, type DetectorContext, type Finding } from './detector.js';
import { aftermathInfo, judgeAftermath, ongoingAftermath } from './lag-aftermath.js';
import { admissionEvidence, capacityDropEvidence, converging, creepEvidence, driftEvidence, fileAdmissionEvidence, fileHoldEvidence, levelEvidence, rampEvidence, runLength, trendEvidence, YOUNG_RUN } from './lag-evidence.js';
import { finding, stillFiring } from './lag-finding.js';
import { LAG_SIGNALS, MIN_ABS, backlogInBatches, isTimeSignal, normalCeiling } from './lag-signal.js';

export function detectLag(ctx: DetectorContext): Finding {
  const { analysis } = ctx;
  // The newest lagWindow finite values, oldest first (read one by one: the whole series is built
  // only when an opening or an open incident needs it).
  const length = ctx.features.length;
  let from = length;
  for (let count = 0; from > 0 && count < TUNING.lagWindow; ) if (Number.isFinite(analysis.seriesAt(--from))) count += 1;
  const values: number[] = [];
  for (let i = from; i < length; i += 1) {
    const value = analysis.seriesAt(i);
    if (Number.isFinite(value)) values.push(value);
  }
  if (values.length < 3) return CLEAR;
  const isTime = isTimeSignal(analysis.signal);
  const minAbs = MIN_ABS[analysis.signal]!;
  const current = values[values.length - 1]!;
  const windowBase = middleOfThree(values[0]!, values[1]!, values[2]!);

  if (ctx.memo) {
    // Open: resolve once back near the level before the episode, read on the signal the incident
    // opened on (its base is in that signal's units: files, seconds, …) while the report still
    // carries it; a file source whose backlog drained to 0 reads batch durations meanwhile.
    const openedOn = ctx.memo.signal !== undefined ? LAG_SIGNALS[ctx.memo.signal] : undefined;
    const judged = openedOn !== undefined && Number.isFinite(signalValue(ctx.latest, openedOn)) ? openedOn : analysis.signal;
    const level = judged === analysis.signal ? current : signalValue(ctx.latest, judged);
    const judgedIsTime = isTimeSignal(judged);
    const base = ctx.memo.base!;
    const insideBatches = backlogInBatches(analysis, ctx.latest);
    // Never call a backlog of more than the lag level normal, whatever the level at onset was.
    const ceiling = judgedIsTime ? Math.max(TUNING.lagLevelSec / 2, (1.5 * analysis.triggerMs) / 1000) : Infinity;
    // The base already holds the steady backlog of 17.1+ (about d behind in each report; at most
    // max(T, d) however read).
    const band = ctx.memo.band ?? base;
    const normal = Math.min(normalCeiling(base, band, judged), ceiling);
    // With the backlog inside the batches, normal also means batches fit the trigger again.
    const fits = !insideBatches || analysis.triggerMs <= 0 || ctx.latest.d <= analysis.triggerMs * 1.05;
    // Opened on a binding cap with no backlog figure: the batches look normal throughout, so it
    // fires while the cap binds; a batch that reads less than the cap read everything there was.
    if (ctx.memo.capBound && ctx.capBound !== null && ctx.capBound.dips === 0) return stillFiring(ctx);
    if (level <= normal && fits) return CLEAR;
    if (judged === analysis.signal && judgedIsTime && settledLevel(ctx, ctx.memo, ceiling)) return CLEAR;
    const behind = isTime ? analysis.timeBehindSec : current;
    if (ctx.memo.aftermath && behind !== null) return ongoingAftermath(ctx, ctx.memo, behind);
    return stillFiring(ctx);
  }

  if (ctx.disruption) {
    const judged = judgeAftermath(ctx, ctx.disruption);
    if (judged) return judged;
  }
  const bound = ctx.capBound;
  if (bound !== null && bound.dips === 0) {
    const ms = ctx.latest.t + ctx.latest.d - bound.sinceMs;
    // Batches at the cap that stay slower than the arrivals before: capacity lost (after a hiccup,
    // not a residue draining). No floor in time then: a burst that pins the cap makes larger
    // batches, which admit more than arrived before, never less.
    const lost = admitsLess(ctx.features, bound, ctx.analysis.triggerMs) !== null;
    const toOpen = lost ? Math.min(bound.batchesToOpen ?? Infinity, TUNING.capBoundBatches) : bound.batchesToOpen;
    // Lost capacity counts from the first slow batch, which may come before the first read at the
    // cap (batches slow down as their reads grow into it).
    const since = lost ? Math.min(bound.slowSinceMs ?? bound.sinceMs, bound.sinceMs, slowBefore(ctx.features, bound.sinceMs)) : bound.sinceMs;
    if (ms >= TUNING.catchUpBudgetSec * 1000 || (toOpen !== null && batchesSince(ctx.features, since) >= toOpen && (lost || ms >= TUNING.capBoundMinMs))) {
      return finding(ctx, 'fire', { base: windowBase, band: windowBase, capBound: 1 });
    }
    // After a restart the backlog can be estimated from the run before it: open as soon as even
    // the most hopeful estimate will not drain within the budget.
    const catchUp = unreportedCatchUp(ctx.features, ctx.disruption, bound, analysis.triggerMs);
    if (catchUp !== null && catchUp.elapsedSec + catchUp.etaLowSec > TUNING.catchUpBudgetSec) {
      const result = finding(ctx, 'fire', { base: windowBase, band: windowBase, capBound: 1 });
      result.aftermath = aftermathInfo(ctx, ctx.disruption!);
      return result;
    }
    // And while the estimate drains it in time, batches at the cap are that catch-up (longer than
    // before it, late on the trigger), not a trend of their own.
    if (catchUp !== null && !lost && catchUp.elapsedSec + catchUp.etaSec <= TUNING.catchUpBudgetSec) return CLEAR;
  }
  const trend =
    (trendEvidence(ctx, values, from, windowBase, minAbs) ||
      creepEvidence(ctx) ||
      driftEvidence(ctx, minAbs) ||
      admissionEvidence(ctx) ||
      fileAdmissionEvidence(ctx) ||
      fileHoldEvidence(ctx) ||
      rampEvidence(ctx) ||
      capacityDropEvidence(ctx, values, windowBase, minAbs)) &&
    !converging(ctx);
  const level = isTime && levelEvidence(ctx, values);
  if (!trend && !level) return CLEAR;
  // The normal level: what the signal read before the episode (low quantile of the ring), and
  // how high it went then (its noise band: back within it is back to normal).
  const series = analysis.series;
  const before = series.slice(0, Math.max(0, series.length - TUNING.lagWindow)).filter(Number.isFinite);
  const ringLow = quantile(series.filter(Number.isFinite), 0.1);
  let base = Math.max(Math.min(windowBase, Number.isFinite(ringLow) ? ringLow : windowBase), 0);
  let band = before.length >= 8 ? quantile(before, 0.9) : base;
  if (isTime) {
    base = Math.min(base, TUNING.lagLevelSec / 2);
    band = Math.min(band, TUNING.lagLevelSec / 2);
  }
  // On a binding cap with no backlog figure the batches' durations say nothing of the backlog (at
  // least the cap waits): the incident reads, and stays open, as the binding.
  const memo: Record<string, number> = { base, band: Math.max(band, base) };
  // Opened on a query's first batches: its base is where a run still filling up from its start
  // stood, and nothing before it says what its normal is (after a restart, the run before does).
  if (ctx.batches < YOUNG_RUN) memo.youngSince = ctx.batches;
  if (bound !== null && bound.dips === 0) memo.capBound = 1;
  return finding(ctx, 'fire', memo);
}

/** Batches an open incident's signal must have held level, all of them since it opened. */
const SETTLED_BATCHES = 24;
/**
 * The older half's median of those batches at most this factor over the newer half's (not draining
 * fast), and the median of the newest 3 at most this factor over all of them (not rising off the
 * level now).
 */
const SETTLED_SPREAD = 1.25;
/** The newer half's median at most this factor over the older half's: a level, not a slow climb. */
const SETTLED_RISE = 1.1;

/**
 * An incident opened in a query's first batches (`youngSince`) whose signal has since held one
 * level, neither rising nor draining, for SETTLED_BATCHES batches of the same run, below the level
 * that is never normal (`ceiling`). Its base was where the run stood while still filling up from its
 * start; the level it settled at is the only normal known, which nothing would open lag on, so the
 * incident may resolve (after the hold period; a relapse within the cool-down re-opens it) rather
 * than stay open for good against a base the run was never going to return to. An incident opened
 * later (a restart included: the run before it says what normal is), or one a restart has since
 * turned into a catch-up, keeps its base: a plateau above it is a backlog not yet drained.
 */
function settledLevel(ctx: DetectorContext, memo: Record<string, number>, ceiling: number): boolean {
  const { analysis } = ctx;
  if (memo.youngSince === undefined || memo.aftermath || ctx.batches - memo.youngSince < SETTLED_BATCHES) return false;
  // Still the run it opened on: after a restart the level is a catch-up's, judged as that.
  if (runLength(ctx) <= ctx.batches - memo.youngSince) return false;
  const n = ctx.features.length;
  if (n < SETTLED_BATCHES) return false;
  const values: number[] = [];
  for (let i = n - SETTLED_BATCHES; i < n; i += 1) {
    const value = analysis.seriesAt(i);
    if (!Number.isFinite(value)) return false;
    values.push(value);
  }
  const current = values[values.length - 1]!;
  const recent = median(values.slice(-3));
  if (current > ceiling || recent > SETTLED_SPREAD * median(values)) return false;
  // Halves, not a rank test: near capacity each batch's length carries the last one's, so noise
  // wanders for dozens of batches and a Mann–Kendall z (which assumes independent values) swings
  // past 2 on a level that holds; the newest value alone is past the spread one batch in five.
  const half = SETTLED_BATCHES / 2;
  const older = median(values.slice(0, half));
  const newer = median(values.slice(half));
  return newer <= SETTLED_RISE * older && older <= SETTLED_SPREAD * newer;
}

/** Batches just before a cap binding that slowed into it: at most this many are counted to it. */
const SLOW_LEAD = 3;

/**
 * Start of the slow batches that led into a binding beginning at `sinceMs` (capacity lost: the
 * batches slow down before their reads reach the cap), or `sinceMs` when none did: up to SLOW_LEAD
 * batches that read under 0.8 of the usual rows per ms of the batches before them (by pace, not
 * duration: reads growing into the cap make batches longer at the same pace).
 */
function slowBefore(features: readonly BatchFeatures[], sinceMs: number): number {
  let at = features.length;
  while (at > 0 && features[at - 1]!.t >= sinceMs) at -= 1;
  const usual: number[] = [];
  for (let i = Math.max(0, at - SLOW_LEAD - 8); i < Math.max(0, at - SLOW_LEAD); i += 1) {
    const f = features[i]!;
    if (f.rows > 0 && f.d > 0 && !f.restart) usual.push(f.rows / f.d);
  }
  if (usual.length < 4) return sinceMs;
  const slow = 0.8 * median(usual);
  let first = at;
  while (first > at - SLOW_LEAD && first > 0) {
    const f = features[first - 1]!;
    if (f.restart || !(f.rows > 0 && f.d > 0 && f.rows / f.d < slow)) break;
    first -= 1;
  }
  return first < features.length ? features[first]!.t : sinceMs;
}

/** The median of three numbers (median() of them, without its copy and sort: this runs every batch). */
function middleOfThree(a: number, b: number, c: number): number {
  return Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));
}
