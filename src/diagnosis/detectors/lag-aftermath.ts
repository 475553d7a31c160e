/**
 * Lag right after a stall or a restart after downtime (detectors/lag.ts; the disruption itself is
 * found in src/diagnosis/aftermath.ts): quiet while its backlog drains within the catch-up budget,
 * past it "Catching up after …" with the drain's ETA (or, before one can be read, the budget spent)
 * and the catch-up as the cause.
 */
import { FLAT_POINTS, admittedSince, batchesSince, catchUpEtaSec, catchUpReadRate, giantFirstBatch, levelBefore, valuesBefore, withoutDisruption, type Disruption } from '../aftermath.js';
import type { BatchFeatures } from '../batch-features.js';
import { withoutUnexplained } from '../causes/lag-causes.js';
import { TUNING } from '../engine-options.js';
import * as fmt from '../format.js';
import { fileArrivalsPerSec, filesReadOf, type LagSignalKind } from '../query-analysis.js';
import { median, quantile } from '../statistics.js';
import type { Advice, AftermathInfo, Cause } from '../types.js';
import { CLEAR, type DetectorContext, type Finding } from './detector.js';
import { finding } from './lag-finding.js';
import { LAG_SIGNALS, isTimeSignal, normalCeiling } from './lag-signal.js';

/**
 * Lag right after a stall or a restart after downtime: quiet while the backlog it left drains within
 * the catch-up budget (or while nothing says yet, for the first few batches, unless the budget is
 * spent by then); past the budget, an incident that says it is catching up, how long that takes
 * (or that the budget is spent before that can be read), and causes drawn from the normal batches
 * only. Null leaves the judgement to the ordinary evidence (a small backlog).
 */
export function judgeAftermath(ctx: DetectorContext, disruption: Disruption): Finding | null {
  const { analysis } = ctx;
  const isTime = isTimeSignal(analysis.signal);
  const behind = isTime ? analysis.timeBehindSec : (analysis.series[analysis.series.length - 1] ?? null);
  if (behind === null || !Number.isFinite(behind)) return null;
  // What the catch-up drains down to; a small excess over it is left to the ordinary evidence.
  const before = signalBefore(ctx, disruption);
  const level = levelBefore(before);
  if (isTime && (behind - level) * 1000 < Math.max(2 * 60_000, analysis.triggerMs)) return null;
  // A count (files, bytes) still what an open incident would call normal against the level before:
  // files listed after each batch stand at about a batch's arrivals, which is no residue of it.
  if (!isTime && behind <= (before.length >= 4 ? normalCeiling(level, quantile(before, 0.9), analysis.signal) : 0)) return null;
  // Nor a count of files worth less than the time rule above, at the rate files arrive now (or, where
  // the source does not say what it read, arrived before it while each batch ran).
  const filesPerSec = analysis.signal === 'files' ? (recentFileArrivals(ctx.features) ?? disruption.countsBefore?.filesPerSec ?? null) : null;
  if (filesPerSec !== null && ((behind - level) / filesPerSec) * 1000 < Math.max(2 * 60_000, analysis.triggerMs)) return null;
  const eta = catchUpEta(ctx, disruption, behind, level, isTime);
  // The budget is for the whole catch-up, from its start (a restart's giant first batch counts).
  const elapsedSec = (ctx.latest.t + ctx.latest.d - disruption.catchUpFromMs) / 1000;
  // Quiet while nothing says yet (4 batches, or as many as a flat count of files needs), unless the
  // budget is spent with the residue still there: it did not drain in time, whatever its pace (after
  // a long downtime an uncapped catch-up's first batches can take the budget in two).
  if (eta === null && elapsedSec <= TUNING.catchUpBudgetSec) {
    return batchesSince(ctx.features, disruption.catchUpFromMs) < (isTime ? 4 : FLAT_POINTS) ? CLEAR : null;
  }
  if (eta !== null && elapsedSec + eta <= TUNING.catchUpBudgetSec) return CLEAR;
  const info = aftermathInfo(ctx, disruption);
  const stallMs = info.stallOpenedAt !== undefined ? Date.parse(info.stallOpenedAt) : Number.NaN;
  // A hung batch says nothing about capacity or partitions; a restart's giant first batch is itself
  // a cause (uncapped catch-up), so it stays.
  const result = aftermathFinding({ ...ctx, features: withoutDisruption(ctx.features, disruption) }, info, behind, eta, elapsedSec, disruption.catchUpFromMs);
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

/** The lag signal's values before the disruption (`countsBefore`). */
function signalBefore(ctx: DetectorContext, disruption: Disruption): number[] {
  const { analysis } = ctx;
  return countsBefore(valuesBefore(ctx.features, disruption, (i) => analysis.series[i]), disruption, analysis.signal);
}

/**
 * What the lag signal read before the disruption: from the ring while it holds those batches, else
 * the files or bytes the disruption kept (`countsBefore`): a fast query's ring forgets them within
 * minutes, and against nothing a file source's standing backlog would read as all residue.
 */
function countsBefore(fromRing: number[], disruption: Disruption, signal: LagSignalKind): number[] {
  if (fromRing.length >= 4 || (signal !== 'files' && signal !== 'bytes')) return fromRing;
  const counts = disruption.countsBefore;
  const kept = counts ? (signal === 'files' ? counts.files : counts.bytes) : [];
  return kept.length > fromRing.length ? kept : fromRing;
}

/** Files arriving per second over the newest batches (median of up to 8 batch-to-batch figures), or null. */
function recentFileArrivals(features: readonly BatchFeatures[]): number | null {
  const rates: number[] = [];
  for (let i = features.length - 1; i > 0 && rates.length < 8; i -= 1) {
    const rate = fileArrivalsPerSec(features[i - 1]!, features[i]!);
    if (rate !== null) rates.push(rate);
  }
  return rates.length >= 3 ? median(rates) : null;
}

/** What the disruption was, and the stall incident it was reported as, if any. */
export function aftermathInfo(ctx: DetectorContext, disruption: Disruption): AftermathInfo {
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
    return catchUpEtaSec(ctx.features, disruption, latest.kafkaBehind, offsets, analysis.arrivalRate, 'rows', normal, admitted, analysis.triggerMs);
  }
  return catchUpEtaSec(ctx.features, disruption, behind, analysis.series, analysis.arrivalRate, isTime ? 'seconds' : 'other', level, admitted, analysis.triggerMs);
}

/** An open aftermath incident, updated from its memo and the drain trend since. */
export function ongoingAftermath(ctx: DetectorContext, memo: Record<string, number>, behind: number): Finding {
  const info: AftermathInfo = {
    what: memo.aftermath === 1 ? 'stall' : 'restart',
    startedAt: fmt.iso(memo.aftermathStartMs ?? 0),
    durationMs: memo.aftermathDurationMs ?? 0,
  };
  if (memo.aftermathStallMs) info.stallOpenedAt = fmt.iso(memo.aftermathStallMs);
  const { analysis, disruption } = ctx;
  // While the disruption it opened on is still known, the catch-up's own ETA (from its batches, down
  // to the level before it): the trend window also reads the jump into the catch-up, as a rise.
  const eta =
    disruption !== null && disruption.catchUpFromMs === memo.aftermathCatchUpMs
      ? catchUpEta(ctx, disruption, behind, levelBefore(signalBefore(ctx, disruption)), isTimeSignal(analysis.signal))
      : (analysis.drainEtaSec ?? (analysis.trendPerMin !== null && analysis.trendPerMin > 0 ? Infinity : null));
  const features = disruption ? withoutDisruption(ctx.features, disruption) : ctx.features;
  const elapsedSec = (ctx.latest.t + ctx.latest.d - (memo.aftermathCatchUpMs ?? ctx.latest.t)) / 1000;
  const drained = backAtLevel(ctx, memo, behind);
  return aftermathFinding({ ...ctx, features }, info, behind, drained ? null : eta, elapsedSec, memo.aftermathCatchUpMs ?? null, drained);
}

/**
 * Whether the backlog is back within what the disruption's judgement leaves to the ordinary evidence
 * of the level before it (`judgeAftermath`): a trend there is noise around that level, not a
 * catch-up that stopped draining.
 */
function backAtLevel(ctx: DetectorContext, memo: Record<string, number>, behind: number): boolean {
  const signal = memo.signal === undefined ? undefined : LAG_SIGNALS[memo.signal];
  if (signal === undefined || memo.base === undefined) return false;
  if (isTimeSignal(signal)) return (behind - memo.base) * 1000 < Math.max(2 * 60_000, ctx.analysis.triggerMs);
  return behind <= normalCeiling(memo.base, memo.band ?? memo.base, signal);
}

/** "Catching up after …": what happened, how much waits, how long it takes at the recent rate. */
function aftermathFinding(
  ctx: DetectorContext,
  info: AftermathInfo,
  behind: number,
  eta: number | null,
  elapsedSec: number,
  catchUpFromMs: number | null,
  drained = false,
): Finding {
  const result = finding(ctx, 'fire', {});
  const what = disruptionText(info);
  const budget = TUNING.catchUpBudgetSec;
  const head = `Catching up after ${what}: ${waitingText(ctx, behind)} waiting`;
  const pace = drainPace(ctx, catchUpFromMs);
  // Spent before an ETA can be read (a long downtime's giant first batches): the catch-up is the
  // cause all the same.
  const pastBudget = eta === null && !drained && elapsedSec > budget;
  if (drained) result.summary = `Catching up after ${what}: back to about the usual level before it (${waitingText(ctx, behind)} waiting)`;
  else if (eta === null) {
    result.summary = pastBudget
      ? `Catching up after ${what}: ${waitingText(ctx, behind)} still waiting ${fmt.seconds(elapsedSec)} into the catch-up (its ${fmt.seconds(budget)} budget spent; how long it still needs cannot be read yet)`
      : head;
  }
  else if (!Number.isFinite(eta)) result.summary = `${head} and not draining${notDrainingWhy(ctx, pace)}`;
  else {
    const over = elapsedSec + eta > budget;
    result.summary = `${head}, about ${fmt.seconds(eta)} to drain at ${pace}${over ? `: past the ${fmt.seconds(budget)} catch-up budget (${fmt.seconds(elapsedSec + eta)} in all)` : ''}`;
  }
  aftermathMetrics(result, eta, drained);
  // Not draining (or not yet said) under a file cap: the cap is what to change, whatever else the batches say.
  const { capacity, arrivalRate } = ctx.analysis;
  const capHolds = (eta === null || !Number.isFinite(eta)) && !drained && ctx.explain && capacity !== null && arrivalRate !== null && capacity > arrivalRate ? fileCapAdvice(ctx, capacity, arrivalRate) : null;
  if (capHolds) {
    withoutUnexplained(result);
    result.advice = [capHolds, ...result.advice.filter((a) => a.setting !== capHolds.setting)];
  }
  if (((eta !== null && Number.isFinite(eta)) || pastBudget) && ctx.explain) {
    // The catch-up explains it: no "the source reports too little".
    withoutUnexplained(result);
    const { cause, advice } = catchingUp(ctx, info, behind, eta, elapsedSec, catchUpFromMs);
    // After a restart, an uncapped giant first batch already says it (and what cap to set).
    const oversized = result.causes.some((c) => c.code === 'oversized_batches');
    if (!oversized) result.causes = [cause, ...result.causes];
    const own = advice.filter((a) => !oversized || a.setting !== 'maxOffsetsPerTrigger');
    result.advice = [...own, ...result.advice.filter((a) => !supersededBy(own, a))];
    withoutIdleCoreCauses(result);
  }
  result.aftermath = info;
  return result;
}

/** "a 40m stall (a batch hung from 10:10 UTC, reported as stalled)", "a restart (down for 12m)". */
function disruptionText(info: AftermathInfo): string {
  return info.what === 'stall'
    ? `a ${fmt.ms(info.durationMs)} stall (a batch hung from ${clock(Date.parse(info.startedAt))}${info.stallOpenedAt ? ', reported as stalled' : ''})`
    : `a restart (down for ${fmt.ms(info.durationMs)})`;
}

/**
 * The rate the drain runs at, said with what sets it: under a binding cap what the cap admits,
 * whatever the cluster could process; before the cap shows in a run of equal reads, the catch-up's
 * reads; otherwise what the query processes against what arrives (the drain is the difference).
 */
function drainPace(ctx: DetectorContext, catchUpFromMs: number | null): string {
  const { analysis } = ctx;
  const read = analysis.cappedRows === null && catchUpFromMs !== null ? catchUpReadRate(ctx.features, catchUpFromMs, analysis.triggerMs) : null;
  if (analysis.cappedRows !== null && ctx.disruption !== null) {
    return `the recent processing rate (the cap admits about ${fmt.rate(admittedSince(ctx.features, ctx.disruption, analysis.cappedRows, analysis.triggerMs))})`;
  }
  if (read !== null && analysis.capacity !== null && read < 0.9 * analysis.capacity) {
    return `the recent processing rate (the batches since read about ${fmt.rate(read)}; the query processes ${fmt.rate(analysis.capacity)})`;
  }
  if (analysis.capacity === null) return 'the recent processing rate';
  const arriving = analysis.arrivalRate !== null ? ` against ${fmt.rate(analysis.arrivalRate)} arriving` : '';
  return `the recent processing rate (${fmt.rate(analysis.capacity)} processed${arriving})`;
}

/**
 * Why a catch-up reads as not draining: the pace, unless the query processes more than arrives,
 * which the pace would then contradict: the backlog did not come down all the same (what it is
 * admitted, or a cap, holds it back, not its processing).
 */
function notDrainingWhy(ctx: DetectorContext, pace: string): string {
  const { capacity, arrivalRate } = ctx.analysis;
  if (capacity === null || arrivalRate === null || capacity <= arrivalRate) return ` at ${pace}`;
  return `: it has not come down over the recent batches, though the query processes ${fmt.rate(capacity)} against ${fmt.rate(arrivalRate)} arriving`;
}

/** The figures beside the summary say what it says: its drain ETA, no growth while it drains. */
function aftermathMetrics(result: Finding, eta: number | null, drained: boolean): void {
  const metrics = result.metrics;
  if (drained) {
    delete metrics.drainEtaSec;
    delete metrics.timeBehindTrendSecPerMin;
    return;
  }
  // Not known yet: no figure, rather than one the summary does not say (the trend's, or "not draining").
  if (eta === null) {
    delete metrics.drainEtaSec;
    return;
  }
  metrics.drainEtaSec = Number.isFinite(eta) ? Math.round(eta) : null;
  // Kafka's time behind divides by an arrival estimate that falls back after the disruption, so it
  // can read as growing while the offsets drain; the ETA is the judgement.
  if (Number.isFinite(eta) && (metrics.timeBehindTrendSecPerMin ?? 0) > 0) delete metrics.timeBehindTrendSecPerMin;
}

/**
 * Advice the catch-up's own replaces: its throughput (to drain within the budget) covers the
 * steady-state capacity advice, and its cap the ordinary cap advice; two figures for one knob confuse.
 */
function supersededBy(catchUp: readonly Advice[], item: Advice): boolean {
  if (item.throughputFactor !== undefined && catchUp.some((a) => a.throughputFactor !== undefined)) return true;
  return item.setting !== undefined && catchUp.some((a) => a.setting === item.setting);
}

/** Cause codes that say cores sit idle: they matter when throughput is short, not when a catch-up drains. */
const IDLE_CORE_CAUSES: Record<string, string> = {
  kafka_partition_bound: 'minPartitions',
  too_few_shuffle_partitions: 'spark.sql.streaming.stateStore.partitions',
};

/**
 * A catch-up whose query processes more than arrives is not short of throughput: partitions below
 * the core count are not why it lags (one outsized batch says nothing about them), so they go, with
 * their advice, unless a capacity shortage is among the causes.
 */
function withoutIdleCoreCauses(result: Finding): void {
  if (result.causes.some((c) => c.code === 'insufficient_capacity')) return;
  const dropped = result.causes.filter((c) => IDLE_CORE_CAUSES[c.code] !== undefined).map((c) => IDLE_CORE_CAUSES[c.code]);
  if (dropped.length === 0) return;
  result.causes = result.causes.filter((c) => IDLE_CORE_CAUSES[c.code] === undefined);
  result.advice = result.advice.filter((a) => a.setting === undefined || !dropped.includes(a.setting));
}

/**
 * The catch-up itself as the cause: the backlog is the disruption's, the query drains it. What to
 * do is about the disruption (why the batch hung) and the backlog: wait when it drains within the
 * catch-up budget from now; past that, what drains it within the budget (a larger cap when the
 * batches read less than the query processes, else throughput); a cap keeps the catch-up in
 * normal-sized batches.
 */
function catchingUp(
  ctx: DetectorContext,
  info: AftermathInfo,
  behindSec: number,
  etaSec: number | null,
  elapsedSec: number,
  catchUpFromMs: number | null,
): { cause: Cause; advice: Advice[] } {
  const budget = TUNING.catchUpBudgetSec;
  const advice: Advice[] = [];
  if (info.what === 'stall') {
    advice.push({
      text: `Find why the batch that started at ${clock(Date.parse(info.startedAt))} hung for ${fmt.ms(info.durationMs)} (a stuck sink write or task: the Spark UI's stage timeline for that batch); a timeout on the sink keeps the next one short.`,
    });
  }
  // Only after a giant first batch: equal reads since are a cap already binding.
  const giant = catchUpFromMs !== null && giantFirstBatch(ctx.features, catchUpFromMs);
  // Without an ETA there is no figure to advise a drain with; the cap advice below still holds.
  if (etaSec !== null) advice.push(...drainAdvice(ctx, etaSec, catchUpFromMs, giant));
  if (giant && ctx.analysis.cappedRows === null && ctx.facts.sourceKinds.includes('kafka') && ctx.analysis.capacity !== null) {
    const target = Math.max(ctx.analysis.triggerMs, 10_000);
    const value = fmt.niceCeil((ctx.analysis.capacity * target) / 1000);
    advice.push({
      text: `Cap catch-up batches with maxOffsetsPerTrigger ${value} (what the query processes in ${fmt.ms(target)}) so a backlog drains as a series of normal batches, not one giant one.`,
      setting: 'maxOffsetsPerTrigger',
      value: String(value),
    });
  }
  const since = info.what === 'stall' ? `the ${fmt.ms(info.durationMs)} stall` : `the ${fmt.ms(info.durationMs)} of downtime before the restart`;
  return {
    cause: {
      code: 'catching_up',
      confidence: 0.85,
      evidence: `the ${waitingText(ctx, behindSec)} waiting is what remains of the backlog from ${since}; ${needs(etaSec, elapsedSec, budget)}.`,
    },
    advice,
  };
}

/** How long the catch-up still needs, against its budget: the catching_up cause's second half. */
function needs(etaSec: number | null, elapsedSec: number, budget: number): string {
  if (etaSec === null) {
    return `${fmt.seconds(elapsedSec)} into the catch-up, past the ${fmt.seconds(budget)} catch-up budget, and how much longer it needs cannot be read from its few batches yet`;
  }
  const over = elapsedSec + etaSec > budget;
  return `at the pace the batches since have read it, it needs about ${fmt.seconds(etaSec)} more${over ? ` (${fmt.seconds(elapsedSec + etaSec)} in all, past the ${fmt.seconds(budget)} catch-up budget)` : ''}`;
}

/** The least throughput factor worth advising: below it the worker count rounds to what it is. */
const MIN_FACTOR = 1.05;

/** What to do about the backlog itself: wait, raise the cap, or add throughput, with the figure. */
function drainAdvice(ctx: DetectorContext, etaSec: number, catchUpFromMs: number | null, giant: boolean): Advice[] {
  const budget = TUNING.catchUpBudgetSec;
  if (etaSec <= budget) {
    return [{ text: `Wait for the backlog to drain: at the recent rate that takes about ${fmt.seconds(etaSec)}. Nothing needs changing for it unless the drain ETA stops falling.` }];
  }
  const { analysis } = ctx;
  const { capacity, arrivalRate: arrival } = analysis;
  const read = analysis.cappedRows === null && catchUpFromMs !== null ? catchUpReadRate(ctx.features, catchUpFromMs, analysis.triggerMs) : null;
  const kafka = ctx.facts.sourceKinds.includes('kafka');
  if (capacity === null || arrival === null || !(capacity > arrival)) {
    return [{ text: `To drain sooner than the ${fmt.seconds(etaSec)} the recent rate needs, add workers for the catch-up: only what the query processes beyond what arrives drains the backlog.` }];
  }
  // Equal reads below what the query processes (no giant first batch) are a cap holding it back.
  const readLimited = analysis.cappedRows !== null || (read !== null && read < 0.9 * capacity && !giant);
  if (kafka && readLimited) {
    const target = Math.max(analysis.triggerMs, 10_000);
    const value = fmt.niceCeil((capacity * target) / 1000);
    const drainRate = read !== null ? read - arrival : null;
    const newEta = drainRate !== null && drainRate > 0 ? (etaSec * drainRate) / (capacity - arrival) : null;
    return [
      {
        text: `Raise maxOffsetsPerTrigger to ${value} for the catch-up (what the query processes in ${fmt.ms(target)}): the batches read ${read !== null ? `about ${fmt.rate(read)}` : 'the cap'}, less than the ${fmt.rate(capacity)} it can process${
          newEta !== null ? `, so the backlog would drain in about ${fmt.seconds(newEta)} instead of ${fmt.seconds(etaSec)}` : ''
        }. Set it back once batches read less than the cap.`,
        setting: 'maxOffsetsPerTrigger',
        value: String(value),
      },
    ];
  }
  const fileCap = fileCapAdvice(ctx, capacity, arrival);
  if (fileCap) return [fileCap];
  // Processing at `capacity × f` drains the backlog (`etaSec` at the spare `capacity − arrival`) within the budget.
  const spare = capacity - arrival;
  const factor = (arrival + (spare * etaSec) / budget) / capacity;
  if (factor < MIN_FACTOR) return [];
  const rounded = Math.round(factor * 100) / 100;
  return [
    {
      text: `To drain within ${fmt.seconds(budget)} instead of about ${fmt.seconds(etaSec)}, give the query about ${fmt.factor(rounded)} its current throughput: more or larger workers. It processes ${fmt.rate(capacity)} while ${fmt.rate(arrival)} arrive, so only ${fmt.rate(spare)} are left over to drain the backlog.`,
      throughputFactor: rounded,
    },
  ];
}

/**
 * A catch-up a file cap holds back (a Delta or Auto Loader source reading its cap in rows or in
 * files, or reading equal counts since the catch-up began): raise the cap, not the throughput. The
 * factor drains what the catch-up left (the files beyond their level before it) within the budget,
 * from the rows a file holds (what the batches at the cap read over the files they read, where the
 * offsets say: Auto Loader's, Delta's within one table version); without those, the advice says so
 * without a figure. Null when no file cap binds.
 */
function fileCapAdvice(ctx: DetectorContext, capacity: number, arrival: number): Advice | null {
  const { analysis, facts } = ctx;
  if (ctx.disruption === null || analysis.signal !== 'files' || !(facts.sourceKinds.includes('autoloader') || facts.sourceKinds.includes('delta'))) return null;
  // Before a run of equal reads shows the cap, the catch-up's own: equal reads since it began.
  const since = ctx.features.filter((f) => f.t >= ctx.disruption!.catchUpFromMs && f.rows > 0 && !f.restart);
  const equal = since.length >= 2 && since.every((f) => Math.abs(f.rows - since[0]!.rows) <= 0.01 * since[0]!.rows);
  // A cap in files whose sizes vary (the offsets count them: Auto Loader's always, Delta's within
  // one table version), or one count of files read since the catch-up began, by each batch that
  // says, with files left: the rows it admits are what its batches read, in the median.
  const counted = since.filter((f) => filesReadOf(f) !== null);
  const first = counted.length >= 2 ? filesReadOf(counted[0]!) : null;
  const equalFiles = first !== null && first > 0 && counted.every((f) => filesReadOf(f) === first) && since.every((f) => (f.filesOutstanding ?? 0) > 0);
  const files = analysis.cappedFiles ?? (equalFiles ? first : null);
  const atFileCap = files === null ? [] : ctx.features.slice(-8).filter((f) => filesReadOf(f) === files && !f.restart);
  const cap = analysis.cappedRows ?? (equal ? median(since.map((f) => f.rows)) : atFileCap.length > 0 ? median(atFileCap.map((f) => f.rows)) : null);
  if (cap === null) return null;
  const setting = facts.sourceKinds.includes('autoloader') ? 'cloudFiles.maxFilesPerTrigger' : 'maxFilesPerTrigger';
  const admitted = admittedSince(ctx.features, ctx.disruption, cap, analysis.triggerMs);
  const exactRows = analysis.cappedRows !== null || equal;
  const filesRead = exactRows
    ? ctx.features.slice(-8).flatMap((f) => {
        const read = filesReadOf(f);
        return read !== null && read > 0 && Math.abs(f.rows - cap) <= 0.01 * cap ? [read] : [];
      })
    : atFileCap.map((f) => filesReadOf(f)!);
  // What the catch-up drains: the files waiting beyond the level they stood at before it.
  const before = ctx.disruption.countsBefore?.files ?? [];
  const excess = ctx.latest.filesOutstanding === null ? null : ctx.latest.filesOutstanding - (before.length >= 4 ? median(before) : 0);
  const why = `each batch admits about ${fmt.rate(admitted)} while ${fmt.rate(arrival)} arrive, and the query could process ${fmt.rate(capacity)}`;
  const plain = { text: `Raise ${setting} (or maxBytesPerTrigger) for the catch-up: ${why}. Set it back once batches read less than the cap.`, setting };
  if (filesRead.length === 0 || excess === null || !(excess > 0) || !(admitted > 0)) return plain;
  const rowsPerFile = cap / median(filesRead);
  const wanted = arrival + (excess * rowsPerFile) / TUNING.catchUpBudgetSec;
  const needed = Math.min(wanted, capacity) / admitted;
  if (needed < MIN_FACTOR) return plain;
  const factor = fmt.factor(Math.ceil(needed * 10) / 10);
  // Past what the query processes, a larger cap only makes longer batches: say how far it helps.
  const aim = wanted <= capacity ? `to drain the ${fmt.count(excess)} files it left within ${fmt.seconds(TUNING.catchUpBudgetSec)}` : 'up to what the query can process';
  return { text: `Raise ${setting} (or maxBytesPerTrigger) to about ${factor} its current value for the catch-up, ${aim}: ${why}. Set it back once batches read less than the cap.`, setting };
}

/** What waits, in the lag signal's unit: seconds of data, files or bytes. */
function waitingText(ctx: DetectorContext, value: number): string {
  const { signal } = ctx.analysis;
  if (signal === 'files') return `${fmt.count(value)} files`;
  if (signal === 'bytes') return fmt.bytes(value);
  return `${fmt.seconds(value)} of data`;
}

function clock(epochMs: number): string {
  return `${fmt.iso(epochMs).slice(11, 16)} UTC`;
}
