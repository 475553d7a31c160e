/**
 * `lag`: the query is losing ground. Judged on the lag signal (time behind when the source reports
 * a backlog, files/bytes outstanding for Delta and Auto Loader, batch duration when the backlog
 * lives inside the batches) over a short window:
 * - trend: a Mann–Kendall-significant rise over 8 batches, material against the level at the
 *   start of the window and against the range the ring held before it, sustained for 5 batches and
 *   still rising at the newest (a burst that drains, a single slow batch, a noisy steady stream,
 *   a climb back out of a dip or a young run settling from its start does not pass them all);
 * - creep: batches overrun the trigger interval and keep getting longer (state, GC) within the
 *   current run, with no one outsized batch among them (a pause and its catch-up), time behind is
 *   clearly past one trigger interval (`creepBacklogTriggers`), and the files waiting (on a file
 *   source) did not fall over the last 4 batches;
 * - drift: a slow steady rise over 24 batches that the rates confirm (arrivals above what is
 *   admitted or processed) and that does not slow down over the window (a query settling towards
 *   its steady batch duration after a start, o/(1−ρ), rises ever more slowly);
 * - admission: a capped Kafka query reads its cap in every batch while the offsets behind rise at
 *   each, by steps of a like size (what arrives beyond the cap, exactly, with no arrival estimate);
 *   a capped Delta or Auto Loader query reads its cap in 8 batches while the files waiting never fall;
 * - saturation: with no backlog figure at all, the cap read in every batch since reads rose into it
 *   out of a steady state (`capBoundBatches`), or for longer than the catch-up budget when the
 *   binding followed a hiccup (a slow batch, a restart) whose backlog it may be draining (after a
 *   restart, sooner: as soon as the backlog estimated from the arrivals before it will not drain
 *   within the budget even at the most hopeful arrival rate, aftermath.ts; while that estimate
 *   drains it in time no other evidence opens either); when the
 *   batches at the cap stay slow and admit clearly less than arrived before (capacity lost),
 *   `capBoundBatches` after the first slow batch, however the binding began (cap-binding.ts; the
 *   tracker follows the binding past the ring); an
 *   incident opened on other evidence while such a binding holds reads and stays open as it;
 * - level: a backlog of more than `lagLevelSec` that will not drain within the catch-up budget
 *   (a sudden one waits for its drain to show when the rates say it will drain in half of it).
 * Trends are vetoed when uncapped durations are only converging to o/(1−ρ) with ρ < 1, the
 * load factor says capacity is comfortably above arrivals, Kafka's time behind rises while its
 * offsets behind do not, or (a drift) the rise is one outsized batch. After a stall or a restart after
 * downtime the aftermath is judged first (src/diagnosis/aftermath.ts). Resolves when the signal is
 * back within its level and noise band before the episode (and, with the backlog inside the
 * batches, batches fit the trigger); the tracker adds the hold period and the relapse cool-down.
 */
import { admittedSince, batchesSince, catchUpEtaSec, levelBefore, unreportedCatchUp, valuesBefore, withoutDisruption, type Disruption, type UnreportedCatchUp } from '../aftermath.js';
import { explainLag } from '../causes/lag-causes.js';
import { TUNING } from '../engine-options.js';
import * as fmt from '../format.js';
import { mannKendallCritical, mannKendallS, mannKendallZ, median, quantile, theilSen } from '../statistics.js';
import type { Advice, AftermathInfo, Cause, IncidentMetrics, Severity } from '../types.js';
import type { BatchFeatures } from '../batch-features.js';
import { admitsLess, type CapBound } from '../cap-binding.js';
import { capacityLoss, signalValue, type LagSignalKind } from '../query-analysis.js';
import { CLEAR, type DetectorContext, type Finding } from './detector.js';

const MIN_ABS: Record<string, number> = { kafka: 2, kinesis: 2, duration: 2, files: 2, bytes: 1 << 20 };
/** Lag signals by the number a memo stores them as (memos hold numbers only); append only. */
const LAG_SIGNALS: readonly LagSignalKind[] = ['kafka', 'kinesis', 'files', 'bytes', 'duration'];

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
    const insideBatches = analysis.signal === 'duration' || (analysis.signal === 'kafka' && ctx.latest.kafkaBehind === 0);
    // Never call a backlog of more than the lag level normal, whatever the level at onset was.
    const ceiling = judgedIsTime ? Math.max(TUNING.lagLevelSec / 2, (1.5 * analysis.triggerMs) / 1000) : Infinity;
    // The base already holds the steady backlog of 17.1+ (about d behind in each report; at most
    // max(T, d) however read).
    const band = ctx.memo.band ?? base;
    const normal = Math.min(Math.max(base * 1.25, base + MIN_ABS[judged]!, band * 1.1), ceiling);
    // With the backlog inside the batches, normal also means batches fit the trigger again.
    const fits = !insideBatches || analysis.triggerMs <= 0 || ctx.latest.d <= analysis.triggerMs * 1.05;
    // Opened on a binding cap with no backlog figure: the batches look normal throughout, so it
    // fires while the cap binds; a batch that reads less than the cap read everything there was.
    if (ctx.memo.capBound && ctx.capBound !== null && ctx.capBound.dips === 0) return stillFiring(ctx);
    if (level <= normal && fits) return CLEAR;
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
      fileAdmissionEvidence(ctx)) &&
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
  if (bound !== null && bound.dips === 0) memo.capBound = 1;
  return finding(ctx, 'fire', memo);
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

/**
 * Lag right after a stall or a restart after downtime: quiet while the backlog it left drains within
 * the catch-up budget (or while nothing says yet, for the first few batches); past the budget, an
 * incident that says it is catching up, how long that takes, and causes drawn from the normal
 * batches only. Null leaves the judgement to the ordinary evidence (a small backlog).
 */
function judgeAftermath(ctx: DetectorContext, disruption: Disruption): Finding | null {
  const { analysis } = ctx;
  const isTime = isTimeSignal(analysis.signal);
  const behind = isTime ? analysis.timeBehindSec : (analysis.series[analysis.series.length - 1] ?? null);
  if (behind === null || !Number.isFinite(behind)) return null;
  // What the catch-up drains down to; a small excess over it is left to the ordinary evidence.
  const before = valuesBefore(ctx.features, disruption, (i) => analysis.series[i]);
  const level = levelBefore(before);
  if (isTime && (behind - level) * 1000 < Math.max(2 * 60_000, analysis.triggerMs)) return null;
  if (!isTime && behind <= 0) return null;
  const eta = catchUpEta(ctx, disruption, behind, level, isTime);
  if (eta === null) return batchesSince(ctx.features, disruption.catchUpFromMs) < 4 ? CLEAR : null;
  // The budget is for the whole catch-up, from its start (a restart's giant first batch counts).
  const elapsedSec = (ctx.latest.t + ctx.latest.d - disruption.catchUpFromMs) / 1000;
  if (elapsedSec + eta <= TUNING.catchUpBudgetSec) return CLEAR;
  const info = aftermathInfo(ctx, disruption);
  const stallMs = info.stallOpenedAt !== undefined ? Date.parse(info.stallOpenedAt) : Number.NaN;
  // A hung batch says nothing about capacity or partitions; a restart's giant first batch is itself
  // a cause (uncapped catch-up), so it stays.
  const result = aftermathFinding({ ...ctx, features: withoutDisruption(ctx.features, disruption) }, info, behind, eta, elapsedSec);
  // Normal is what the signal read before the disruption; the memo keeps the disruption for the
  // incident's later updates.
  const cap = (v: number) => (isTime ? Math.min(v, TUNING.lagLevelSec / 2) : v);
  result.memo = {
    signal: LAG_SIGNALS.indexOf(analysis.signal),
    base: before.length > 0 ? cap(median(before)) : 0,
    band: before.length > 0 ? cap(quantile(before, 0.9)) : 0,
    aftermath: disruption.what === 'stall' ? 1 : 2,
    aftermathStartMs: disruption.startMs,
    aftermathDurationMs: info.durationMs,
    aftermathStallMs: info.stallOpenedAt ? stallMs : 0,
    aftermathCatchUpMs: disruption.catchUpFromMs,
  };
  return result;
}

/** What the disruption was, and the stall incident it was reported as, if any. */
function aftermathInfo(ctx: DetectorContext, disruption: Disruption): AftermathInfo {
  const info: AftermathInfo = {
    what: disruption.what,
    startedAt: fmt.iso(disruption.startMs),
    durationMs: Math.round(disruption.durationMs),
  };
  const stallMs = ctx.lastStallOpenedAt !== null ? Date.parse(ctx.lastStallOpenedAt) : Number.NaN;
  if (disruption.what === 'stall' && stallMs >= disruption.startMs) info.stallOpenedAt = ctx.lastStallOpenedAt!;
  return info;
}

/**
 * The catch-up's ETA. Kafka: from the offsets behind, exact counts (time behind divides them by an
 * arrival estimate whose noise, on a slow drain, reads as a rise). Otherwise from the lag signal,
 * down to `level`, what it read before the disruption.
 */
function catchUpEta(ctx: DetectorContext, disruption: Disruption, behind: number, level: number, isTime: boolean): number | null {
  const { analysis, latest } = ctx;
  const admitted = analysis.cappedRows === null ? Infinity : admittedSince(ctx.features, disruption, analysis.cappedRows, analysis.triggerMs);
  if (analysis.signal === 'kafka' && latest.kafkaBehind !== null && latest.kafkaBehind > 0) {
    const offsets = ctx.features.map((f) => f.kafkaBehind ?? Number.NaN);
    const normal = levelBefore(valuesBefore(ctx.features, disruption, (i) => offsets[i]));
    return catchUpEtaSec(ctx.features, disruption, latest.kafkaBehind, offsets, analysis.arrivalRate, 'rows', normal, admitted);
  }
  return catchUpEtaSec(ctx.features, disruption, behind, analysis.series, analysis.arrivalRate, isTime ? 'seconds' : 'other', level, admitted);
}

/** An open aftermath incident, updated from its memo and the drain trend since. */
function ongoingAftermath(ctx: DetectorContext, memo: Record<string, number>, behind: number): Finding {
  const info: AftermathInfo = {
    what: memo.aftermath === 1 ? 'stall' : 'restart',
    startedAt: fmt.iso(memo.aftermathStartMs ?? 0),
    durationMs: memo.aftermathDurationMs ?? 0,
  };
  if (memo.aftermathStallMs) info.stallOpenedAt = fmt.iso(memo.aftermathStallMs);
  const { analysis } = ctx;
  const eta = analysis.drainEtaSec ?? (analysis.trendPerMin !== null && analysis.trendPerMin > 0 ? Infinity : null);
  const features = ctx.disruption ? withoutDisruption(ctx.features, ctx.disruption) : ctx.features;
  const elapsedSec = (ctx.latest.t + ctx.latest.d - (memo.aftermathCatchUpMs ?? ctx.latest.t)) / 1000;
  return aftermathFinding({ ...ctx, features }, info, behind, eta, elapsedSec);
}

/** "Catching up after …": what happened, how much waits, how long it takes at the recent rate. */
function aftermathFinding(
  ctx: DetectorContext,
  info: AftermathInfo,
  behind: number,
  eta: number | null,
  elapsedSec: number,
): Finding {
  const { analysis } = ctx;
  const result = finding(ctx, 'fire', {});
  const startMs = Date.parse(info.startedAt);
  const what =
    info.what === 'stall'
      ? `a ${fmt.ms(info.durationMs)} stall (a batch hung from ${clock(startMs)}${info.stallOpenedAt ? ', reported as stalled' : ''})`
      : `a restart after ${fmt.ms(info.durationMs)} down`;
  // Under a binding cap the drain runs at what the cap admits, whatever the cluster could process.
  const rate =
    analysis.cappedRows !== null && ctx.disruption !== null
      ? ` (the cap admits about ${fmt.rate(admittedSince(ctx.features, ctx.disruption, analysis.cappedRows, analysis.triggerMs))})`
      : analysis.capacity !== null
        ? ` (${fmt.rate(analysis.capacity)} processed)`
        : '';
  const budget = TUNING.catchUpBudgetSec;
  const head = `Catching up after ${what}: ${waitingText(ctx, behind)} waiting`;
  if (eta === null) result.summary = head;
  else if (!Number.isFinite(eta)) result.summary = `${head} and not draining at the recent processing rate${rate}`;
  else {
    const over = elapsedSec + eta > budget;
    const since = elapsedSec >= 60 ? ` (${fmt.seconds(elapsedSec)} in already)` : '';
    result.summary = `${head}, about ${fmt.seconds(eta)} to drain at the recent processing rate${rate}${over ? `: past the ${fmt.seconds(budget)} catch-up budget${since}` : ''}`;
  }
  if (eta !== null && Number.isFinite(eta) && ctx.explain) {
    const { cause, advice } = catchingUp(ctx, info, what, behind, eta, elapsedSec);
    // After a restart, an uncapped giant first batch already says it (and what cap to set).
    const oversized = result.causes.some((c) => c.code === 'oversized_batches');
    if (!oversized) result.causes = [cause, ...result.causes];
    result.advice = [...advice.filter((a) => !oversized || a.setting !== 'maxOffsetsPerTrigger'), ...result.advice];
  }
  result.aftermath = info;
  return result;
}

/**
 * The catch-up itself as the cause: the backlog is the disruption's, the query drains it. What to
 * do is about the disruption (why the batch hung) and, when the drain is too slow, throughput for
 * the catch-up; a cap keeps the catch-up in normal-sized batches.
 */
function catchingUp(
  ctx: DetectorContext,
  info: AftermathInfo,
  what: string,
  behindSec: number,
  etaSec: number,
  elapsedSec: number,
): { cause: Cause; advice: Advice[] } {
  const budget = TUNING.catchUpBudgetSec;
  const over = elapsedSec + etaSec > budget;
  const advice: Advice[] = [];
  if (info.what === 'stall') {
    advice.push({
      text: `Find why the batch that started at ${clock(Date.parse(info.startedAt))} hung for ${fmt.ms(info.durationMs)} (a stuck sink write or task: the Spark UI's stage timeline for that batch); a timeout on the sink keeps the next one short.`,
    });
  }
  if (over) {
    advice.push({
      text: `To drain sooner, add workers for the catch-up: at the recent rate the backlog needs about ${fmt.seconds(etaSec)}; twice the spare throughput halves that.`,
    });
  }
  if (ctx.analysis.cappedRows === null && ctx.facts.sourceKinds.includes('kafka') && ctx.analysis.capacity !== null) {
    const target = Math.max(ctx.analysis.triggerMs, 10_000);
    const value = fmt.niceCeil((ctx.analysis.capacity * target) / 1000);
    advice.push({
      text: `Cap catch-up batches with maxOffsetsPerTrigger ${value} (what the query processes in ${fmt.ms(target)}) so a backlog drains as a series of normal batches, not one giant one.`,
      setting: 'maxOffsetsPerTrigger',
      value: String(value),
    });
  }
  return {
    cause: {
      code: 'catching_up',
      confidence: 0.85,
      evidence: `the ${waitingText(ctx, behindSec)} waiting piled up during ${what}; the batches since read through it at a pace that needs about ${fmt.seconds(etaSec)} more${over ? `, past the ${fmt.seconds(budget)} catch-up budget` : ''}.`,
    },
    advice,
  };
}

/** What waits, in the lag signal's unit: seconds of data, files or bytes. */
function waitingText(ctx: DetectorContext, value: number): string {
  const { signal } = ctx.analysis;
  if (signal === 'files') return `${fmt.count(value)} files`;
  if (signal === 'bytes') return fmt.bytes(value);
  return `${fmt.seconds(value)} of data`;
}

/** The median of three numbers (median() of them, without its copy and sort: this runs every batch). */
function middleOfThree(a: number, b: number, c: number): number {
  return Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));
}

/** Whether the lag signal is seconds of data (not files or bytes waiting). */
function isTimeSignal(signal: DetectorContext['analysis']['signal']): boolean {
  return signal !== 'files' && signal !== 'bytes';
}

function clock(epochMs: number): string {
  return `${fmt.iso(epochMs).slice(11, 16)} UTC`;
}

/**
 * A large backlog (a catch-up after downtime, the aftermath of a stall): more than `lagLevelSec`
 * behind is lag unless it visibly drains within the catch-up budget (judged once 4 batches above
 * the level show the trend).
 */
function levelEvidence(ctx: DetectorContext, values: number[]): boolean {
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
 * can process, or admit under a cap, minus arrivals). The recent arrival estimate still holds a
 * burst's rate, so it errs towards a longer drain.
 */
function ratesDrainSoon(ctx: DetectorContext, behindSec: number): boolean {
  const { analysis, latest } = ctx;
  const arrival = analysis.arrivalRate;
  let rate = analysis.capacity;
  if (arrival === null || rate === null || !(arrival > 0)) return false;
  if (analysis.cappedRows !== null) rate = Math.min(rate, analysis.cappedRows / (Math.max(analysis.triggerMs, latest.d) / 1000));
  const spare = rate - arrival;
  if (!(spare > 0.1 * rate)) return false;
  return (behindSec * arrival) / spare <= TUNING.catchUpBudgetSec / 2;
}

/**
 * A steady drift too slow for the short window: over the last 24 batches the signal rises with a
 * strong Mann–Kendall trend, and the rates confirm arrivals exceed what is admitted or processed,
 * uncapped at each of the last three batches (so a random walk at exactly the cap or near capacity
 * does not count).
 */
function driftEvidence(ctx: DetectorContext, minAbs: number): boolean {
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
  const arrival = analysis.cappedSource ? analysis.cappedSource.arrival : analysis.arrivalRate;
  if (analysis.cappedRows !== null) {
    if (arrival === null) return analysis.signal === 'files' || analysis.signal === 'bytes';
    const interval = Math.max(analysis.triggerMs, median(ctx.features.slice(-8).map((f) => f.d)));
    if (!(interval > 0) || arrival < 1.02 * (analysis.cappedRows / (interval / 1000))) return false;
  } else if (analysis.loadFactor === null || analysis.loadFactor < 1.03 || !arrivalsOutran(ctx.features, analysis.capacity)) {
    return false;
  }
  if (mannKendallZ(values, 0.002) < 3) return false;
  const ends = ctx.features.slice(-DRIFT_WINDOW).map((f) => (f.t + f.d) / 1000);
  if (settling(ends, values)) return false;
  const slopePerSec = theilSen(ends, values);
  const isTime = isTimeSignal(analysis.signal);
  return isTime ? slopePerSec >= 0.01 : slopePerSec > 0;
}

const DRIFT_WINDOW = 24;

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
 * A capped Kafka query whose arrivals outrun its cap: each of the last batches read the cap, and
 * the offsets behind rose at every one of them by 5 % of the cap or more on the whole. With the cap
 * binding, what arrives beyond it is exactly that growth, so this needs no arrival estimate (which
 * lags a step by its smoothing window), and it says so long before the backlog is large when
 * batches are short (a 2 s back-to-back query loses a fraction of a second per batch).
 */
function admissionEvidence(ctx: DetectorContext): boolean {
  const { analysis } = ctx;
  const cap = analysis.cappedRows;
  if (cap === null || analysis.cappedSource !== null || ctx.features.length < ADMISSION_WINDOW) return false;
  if (runLength(ctx) < ADMISSION_WINDOW + 2) return false;
  const recent = ctx.features.slice(-ADMISSION_WINDOW);
  // Floored shares read up to P − 1 under the cap (admission-cap.ts): more than 1 % of a small one.
  // Past a tenth of the cap that spread is what noisy uncapped input shows too: no cap to read.
  const floors = ctx.facts.kafkaPartitions - 1;
  const tolerance = floors <= 0.1 * cap ? Math.max(0.01 * cap, floors) : 0.01 * cap;
  let previous: number | null = null;
  let largestStep = 0;
  for (const f of recent) {
    if (f.kafkaBehind === null || f.restart || Math.abs(f.rows - cap) > tolerance) return false;
    if (previous !== null && f.kafkaBehind <= previous) return false;
    largestStep = previous === null ? 0 : Math.max(largestStep, f.kafkaBehind - previous);
    previous = f.kafkaBehind;
  }
  const rise = recent[recent.length - 1]!.kafkaBehind! - recent[0]!.kafkaBehind!;
  // Arrivals beyond a binding cap add about the same at every batch; one slow batch (a GC pause)
  // on a steady feed that merely looks capped adds it all at once.
  return rise >= 0.05 * cap * (ADMISSION_WINDOW - 1) && largestStep <= 0.6 * rise;
}

/** Batches the file admission evidence looks at: a file backlog moves in whole files. */
const FILE_ADMISSION_WINDOW = 8;

/**
 * A capped Delta or Auto Loader query whose new files outrun its cap: each of the last batches read
 * the cap and the files (or bytes) waiting rose by two files or more on the whole, to their highest
 * now, never falling or with a significant Mann–Kendall trend (files are listed at planning, so
 * noisy arrivals can leave one file fewer for a batch without the rise starting over). The file
 * count moves in steps, so the window is longer than Kafka's and the rise need not show at every
 * batch.
 */
function fileAdmissionEvidence(ctx: DetectorContext): boolean {
  const { analysis } = ctx;
  const cap = analysis.cappedRows;
  if (cap === null || (analysis.signal !== 'files' && analysis.signal !== 'bytes')) return false;
  if (ctx.features.length < FILE_ADMISSION_WINDOW || runLength(ctx) < FILE_ADMISSION_WINDOW + 2) return false;
  const recent = ctx.features.slice(-FILE_ADMISSION_WINDOW);
  const backlogs: number[] = [];
  let neverFell = true;
  let highest = -Infinity;
  for (const f of recent) {
    const backlog = signalValue(f, analysis.signal);
    if (!Number.isFinite(backlog) || f.restart || Math.abs(f.rows - cap) > 0.01 * cap) return false;
    if (backlogs.length > 0 && backlog < backlogs[backlogs.length - 1]!) neverFell = false;
    highest = Math.max(highest, backlog);
    backlogs.push(backlog);
  }
  const last = backlogs[backlogs.length - 1]!;
  const enough = analysis.signal === 'files' ? 2 : 2 * MIN_ABS.bytes!;
  if (last < highest || last - backlogs[0]! < enough) return false;
  return neverFell || mannKendallS(backlogs) >= mannKendallCritical(backlogs.length);
}

/** Batches since the current run started (as far as the ring remembers). */
function runLength(ctx: DetectorContext): number {
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
function creepEvidence(ctx: DetectorContext): boolean {
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
  const recent = features.slice(runStart);
  const durations = recent.map((f) => f.d);
  // Material growth over the window: near capacity, durations settle above the trigger (o/(1−ρ))
  // and wander there with the input's noise without getting longer on the whole.
  if (durations[durations.length - 1]! < 1.2 * median(durations.slice(0, 4))) return false;
  // One outsized batch (a GC pause, a slow commit) and the capped catch-up after it, or such a
  // batch newest of all: not a creep, whose batches get longer step by step (its longest is the
  // newest, and no batch jumps fourfold).
  const longest = durations.indexOf(Math.max(...durations));
  if (longest < durations.length - 1 && durations[longest]! > SPIKE_FACTOR * median(durations)) return false;
  if (oneBatchSpike(durations)) return false;
  // Batches no longer than the query's earlier ones have been: its noise, not a creep.
  if (withinHistory(ctx, ctx.features.map((f) => f.d), durations[durations.length - 1]!, ctx.features.length - recent.length)) return false;
  // Near capacity (ρ ≈ 0.9–0.97) noise alone makes runs of overrunning, lengthening batches, but
  // the backlog they leave stays within about a trigger interval and a bit (the steady
  // max(T, d) plus noise); a creep that costs ground carries it clearly past that.
  const behindSec = ctx.analysis.timeBehindSec;
  if (behindSec !== null && behindSec * 1000 < TUNING.creepBacklogTriggers * triggerMs) return false;
  // Nor while the files waiting fall: the query gains ground, however long its batches.
  if (fileBacklogFell(ctx)) return false;
  const rho = ctx.analysis.loadFactor;
  if (ctx.analysis.cappedRows === null && rho !== null && rho < 0.98) return false;
  return mannKendallS(durations, 0.002) >= mannKendallCritical(durations.length);
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
 * when the durations span a wide enough range to fit.
 */
function converging(ctx: DetectorContext): boolean {
  const { analysis } = ctx;
  if (analysis.cappedRows !== null) return false;
  // Arrivals clearly past the measured capacity while batches overrun the trigger: the fit below,
  // on eight noisy pairs, is the weaker witness (a 10 % overload with 14 % noise often reads ρ < 0.97).
  const overrunning = analysis.triggerMs > 0 && median(ctx.features.slice(-3).map((f) => f.d)) > analysis.triggerMs;
  if (overrunning && analysis.loadFactor !== null && analysis.loadFactor >= CONVERGING_MAX_LOAD) return false;
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

/** The load factor an uncapped query's rising trend needs (a 10 % overload reads about 1.1). */
const TREND_MIN_LOAD = 1.05;

/** `values`: the window's finite values, the first at index `from` of the series. */
function trendEvidence(
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
  if (analysis.cappedRows === null && analysis.loadFactor !== null && analysis.loadFactor < TREND_MIN_LOAD) return false;
  if (analysis.signal === 'kafka' && !offsetsRise(finiteWindow(ctx, n))) return false;
  if (analysis.signal === 'duration' || (analysis.signal === 'kafka' && ctx.latest.kafkaBehind === 0)) {
    // Backlog inside the batches: they must overrun the trigger.
    const lastDurations = ctx.features.slice(-3).map((f) => f.d);
    if (analysis.triggerMs > 0 && median(lastDurations) <= analysis.triggerMs) return false;
  }
  return true;
}

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

function finding(ctx: DetectorContext, verdict: 'fire', memo: Record<string, number>): Finding {
  const { summary, metrics } = describeLag(ctx, memo);
  // An opening records the signal its base is measured on (see the resolution above).
  if (memo.base !== undefined && memo.signal === undefined) memo.signal = LAG_SIGNALS.indexOf(ctx.analysis.signal);
  return { verdict, severity: lagSeverity(ctx), summary, metrics, ...explained(ctx), memo };
}

/**
 * An open incident still firing: its verdict, severity and (every few batches) causes now, its
 * summary and metrics only when read. Those are what most of a firing batch cost, and an episode
 * fires for hundreds of batches whose texts nobody reads but the last one's. The analysis stops
 * sharing the ring's array, so what it computes later still reads this batch.
 */
function stillFiring(ctx: DetectorContext): Finding {
  const features = ctx.analysis.detach();
  const view: LagView = { analysis: ctx.analysis, latest: ctx.latest, features, capBound: ctx.capBound, disruption: ctx.disruption };
  const memo = ctx.memo;
  return { verdict: 'fire', severity: lagSeverity(ctx), summary: '', metrics: {}, ...explained(ctx), memo: {}, describe: () => describeLag(view, memo) };
}

function lagSeverity(ctx: DetectorContext): Severity {
  const { analysis } = ctx;
  const behind = analysis.timeBehindSec;
  return (behind !== null && behind >= TUNING.criticalTimeBehindSec) ||
    (analysis.loadFactor !== null && analysis.loadFactor >= 1.5 && analysis.cappedRows === null)
    ? 'critical'
    : 'warning';
}

function explained(ctx: DetectorContext): { causes: Cause[]; advice: Advice[] } {
  return ctx.explain ? explainLag(ctx) : { causes: [], advice: [] };
}

/** What a firing lag finding reads from: the batch's analysis, its newest features. */
type LagView = Pick<DetectorContext, 'analysis' | 'latest' | 'features' | 'capBound' | 'disruption'>;

/** The incident's summary and metrics as of the batch `view` holds. */
function describeLag(view: LagView, memo: Record<string, number> | null): { summary: string; metrics: IncidentMetrics } {
  const { analysis, latest } = view;
  const behind = analysis.timeBehindSec;
  const parts: string[] = [];
  /** Batch-duration growth per batch, when the backlog lives inside the batches. */
  let growth: number | null = null;
  if (memo?.capBound && view.capBound !== null) return describeCapBound(view, view.capBound);
  if (analysis.signal === 'files' || analysis.signal === 'bytes') {
    const backlog = analysis.signal === 'files' ? latest.filesOutstanding! : latest.bytesOutstanding!;
    const unit = analysis.signal === 'files' ? `${fmt.count(backlog)} files` : fmt.bytes(backlog);
    // Delta's progress does not say how many files a batch read, so its time behind is unknown:
    // say so rather than leave it out; Auto Loader's is estimated from files arriving per second.
    parts.push(
      `Falling behind: ${unit} waiting at the source${behind !== null && behind > 0 ? ` (about ${fmt.seconds(behind)} of data, estimated from files)` : ' (time behind unknown for this source)'}`,
    );
    if (analysis.trendPerMin !== null && analysis.trendPerMin > 0) {
      parts.push(
        analysis.signal === 'files'
          ? `growing ${fmt.count(analysis.trendPerMin)} files per minute`
          : `growing ${fmt.bytes(analysis.trendPerMin)} per minute`,
      );
    }
  } else if (backlogInsideBatches(view)) {
    // The source reads everything that has arrived at each plan, so its backlog figures read 0:
    // the data that arrived while the last batch ran is what waits, and its growth is the lag.
    growth = growthPerBatch(view.features);
    const change =
      growth === null ? '' : growth > 0.005 ? `, growing ${fmt.percent(growth)} per batch` : growth < -0.005 ? `, shrinking ${fmt.percent(-growth)} per batch` : '';
    // No figure at all (Spark 3.0-era reports) is not a figure that reads 0.
    const noFigure = latest.kafkaBehind === null && latest.filesOutstanding === null && latest.bytesOutstanding === null && latest.msBehind === null;
    const why = noFigure ? 'these reports carry no backlog figure' : "the source's backlog reads 0: each batch takes everything that has arrived";
    parts.push(
      `Falling behind: time behind ≈ the last batch's duration, ${fmt.ms(latest.d)}${change}${
        analysis.triggerMs > 0 ? ` against a ${fmt.ms(analysis.triggerMs)} trigger` : ''
      } (${why})`,
    );
  } else {
    parts.push(`Falling behind: ${behind === null ? 'data' : fmt.seconds(behind)} of data waiting`);
    if (analysis.trendPerMin !== null && analysis.trendPerMin > 0) {
      parts.push(`growing ${fmt.seconds(analysis.trendPerMin)} per minute`);
    }
  }
  // Said only when what is left falls short of the arrivals: then it is why the query falls behind.
  const loss = capacityLoss(view.features);
  if (loss !== null && analysis.arrivalRate !== null && analysis.arrivalRate > loss.now) {
    parts.push(`processing fell from about ${fmt.rate(loss.usual)} to ${fmt.rate(loss.now)}, under the ${fmt.rate(analysis.arrivalRate)} arriving: processing lost capacity`);
  }
  // Batches that shorten batch after batch are draining before the trend over the window says so.
  const shrinking = analysis.drainEtaSec === null && growth !== null ? shrinkingDrainSec(latest.d, growth, analysis.triggerMs) : null;
  const etaSec = analysis.drainEtaSec ?? shrinking;
  parts.push(etaSec === null ? 'not draining' : `draining, about ${fmt.seconds(etaSec)} to catch up`);
  const metrics = lagMetrics(view);
  if (shrinking !== null) {
    // The window's trend still reads the growth before the turn: the shrinking batches say more.
    metrics.drainEtaSec = Math.round(shrinking);
    delete metrics.timeBehindTrendSecPerMin;
  }
  return { summary: parts.join(', '), metrics };
}

/**
 * With the backlog inside the batches, the last batch `d` ms long and batches changing by `growth` a
 * batch, what is left to catch up: the batches still to come until one fits the trigger
 * (d·r + d·r² + …, r = 1 + growth), s; null unless they shrink.
 */
function shrinkingDrainSec(d: number, growth: number, trigger: number): number | null {
  if (growth >= -0.005) return null;
  const r = 1 + growth;
  const batches = trigger > 0 && d > trigger ? Math.ceil(Math.log(trigger / d) / Math.log(r)) : Infinity;
  return (d * r * (1 - r ** batches)) / (1 - r) / 1000;
}

/** The backlog lives inside the batches: no backlog figure, or Kafka offsets that read 0 uncapped. */
function backlogInsideBatches(view: LagView): boolean {
  const { analysis, latest } = view;
  return analysis.signal === 'duration' || (analysis.signal === 'kafka' && latest.kafkaBehind === 0 && analysis.cappedRows === null);
}

/** Geometric mean growth of batch duration over the newest 4 data batches of the run (0.12 = 12 %). */
function growthPerBatch(features: readonly BatchFeatures[]): number | null {
  const ds: number[] = [];
  for (let i = features.length - 1; i >= 0 && ds.length < 4; i -= 1) {
    const f = features[i]!;
    if (f.rows > 0 && f.d > 0) ds.unshift(f.d);
    if (f.restart) break;
  }
  if (ds.length < 2) return null;
  return (ds[ds.length - 1]! / ds[0]!) ** (1 / (ds.length - 1)) - 1;
}

/**
 * Lag on a binding cap with no backlog figure: what the reads show, and that the size of the
 * backlog cannot be read. After a hiccup or a restart the reads may still be its backlog draining.
 */
function describeCapBound(view: LagView, bound: CapBound): { summary: string; metrics: IncidentMetrics } {
  const { latest, features } = view;
  const ms = latest.t + latest.d - bound.sinceMs;
  // The run of cap reads, counted while the ring still reaches back to its start.
  const counted = features.length > 0 && features[0]!.t < bound.sinceMs ? ` (${fmt.count(batchesSince(features, bound.sinceMs))} batches)` : '';
  const reads = `every batch for the last ${fmt.ms(ms)}${counted} has read the admission cap (about ${fmt.count(bound.cap)} offsets)`;
  const tail = 'these reports carry no backlog figure (no latestOffset, no source metrics)';
  const lost = admitsLess(features, bound, view.analysis.triggerMs);
  const catchUp = lost ? null : unreportedCatchUp(features, view.disruption, bound, view.analysis.triggerMs);
  if (catchUp !== null) return describeRestartCatchUp(view, view.disruption!, catchUp);
  const summary = lost
    ? `Falling behind, by how much is unknown: ${reads} and taken about ${fmt.ms(lost.intervalMs)}, so the query now admits about ${fmt.rate(lost.admitted)}, less than the ${fmt.rate(lost.arrivalBefore)} that arrived before the batches slowed: processing lost capacity; ${tail}`
    : bound.fromSteady
      ? `Falling behind, by how much is unknown: ${reads}${bound.readBefore !== null ? `, up from about ${fmt.count(bound.readBefore)} before` : ''}, so more than the cap arrives at each trigger; ${tail}`
      : ms >= TUNING.catchUpBudgetSec * 1000
        ? `Falling behind, by how much is unknown: ${reads}, longer than the ${fmt.seconds(TUNING.catchUpBudgetSec)} catch-up budget, so at least the cap waits at each trigger (part of it may be what a restart or a slow batch left); ${tail}`
        : `Falling behind, by how much is unknown: ${reads}, since a restart or a slow batch, so at least the cap waits at each trigger (part of it may be what that left, draining); ${tail}`;
  const metrics = lagMetrics(view);
  // Time behind, its trend, the drain and the arrivals would all be read off the cap here.
  delete metrics.timeBehindSec;
  delete metrics.timeBehindTrendSecPerMin;
  delete metrics.drainEtaSec;
  delete metrics.arrivalRate;
  // One batch's pace, not what the cap admits: it would read as headroom.
  delete metrics.processingRate;
  return { summary, metrics };
}

/**
 * A restart's catch-up under a binding cap with no backlog figure, its backlog estimated from the
 * arrivals before the restart: what waits, how long it takes at what the cap admits, how sure.
 */
function describeRestartCatchUp(view: LagView, disruption: Disruption, estimate: UnreportedCatchUp): { summary: string; metrics: IncidentMetrics } {
  const budget = TUNING.catchUpBudgetSec;
  const { elapsedSec } = estimate;
  const drain = Number.isFinite(estimate.etaSec)
    ? `${estimate.atLeast ? 'at least' : 'about'} ${fmt.seconds(estimate.etaSec)} to drain at the ${fmt.rate(estimate.admitted)} the cap admits${elapsedSec + estimate.etaSec > budget ? `: past the ${fmt.seconds(budget)} catch-up budget${elapsedSec >= 60 ? ` (${fmt.seconds(elapsedSec)} in already)` : ''}` : ''}`
    : `not draining: the cap admits about ${fmt.rate(estimate.admitted)}, no more than arrived before`;
  const summary =
    `Catching up after a restart after ${fmt.ms(disruption.durationMs)} down: ${estimate.atLeast ? 'at least' : 'about'} ${fmt.count(estimate.backlog)} offsets waiting (${fmt.seconds(estimate.backlog / estimate.arrival)} of data), ${drain}. ` +
    `Estimated: these reports carry no backlog figure (no latestOffset, no source metrics), so the backlog is what arrived at the ${fmt.rate(estimate.arrival)} the run before the restart read${
      estimate.atLeast ? ' (at least: some of its batches read the cap, not all that had arrived)' : ''
    }, less what every batch since read at the cap (about ${fmt.count(view.capBound!.cap)} offsets)`;
  const metrics = lagMetrics(view);
  delete metrics.timeBehindTrendSecPerMin;
  delete metrics.processingRate;
  metrics.timeBehindSec = round1(estimate.backlog / estimate.arrival);
  metrics.drainEtaSec = Number.isFinite(estimate.etaSec) ? Math.round(estimate.etaSec) : null;
  metrics.arrivalRate = round1(estimate.arrival);
  metrics.backlog = Math.round(estimate.backlog);
  metrics.backlogUnit = 'offsets';
  return { summary, metrics };
}

function lagMetrics(view: LagView): IncidentMetrics {
  const { analysis, latest } = view;
  const metrics: IncidentMetrics = {
    batchDurationMs: latest.d,
    drainEtaSec: analysis.drainEtaSec === null ? null : Math.round(analysis.drainEtaSec),
  };
  if (analysis.triggerMs > 0) metrics.triggerIntervalMs = analysis.triggerMs;
  if (analysis.timeBehindSec !== null) metrics.timeBehindSec = round1(analysis.timeBehindSec);
  const isTime = isTimeSignal(analysis.signal);
  if (isTime && analysis.trendPerMin !== null) metrics.timeBehindTrendSecPerMin = round1(analysis.trendPerMin);
  if (latest.kafkaBehind !== null) {
    metrics.backlog = latest.kafkaBehind;
    metrics.backlogUnit = 'offsets';
  } else if (latest.filesOutstanding !== null) {
    metrics.backlog = latest.filesOutstanding;
    metrics.backlogUnit = 'files';
  } else if (latest.bytesOutstanding !== null) {
    metrics.backlog = latest.bytesOutstanding;
    metrics.backlogUnit = 'bytes';
  } else if (latest.msBehind !== null) {
    metrics.backlog = latest.msBehind;
    metrics.backlogUnit = 'ms';
  }
  if (analysis.arrivalRate !== null) metrics.arrivalRate = round1(analysis.arrivalRate);
  const processing = latest.procRate ?? analysis.capacity;
  if (processing !== null) metrics.processingRate = round1(processing);
  if (latest.stateRows !== null) metrics.stateRows = latest.stateRows;
  if (latest.stateBytes !== null) metrics.stateBytes = latest.stateBytes;
  return metrics;
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}
