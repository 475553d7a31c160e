/**
 * Lag right after a stall or a restart after downtime (detectors/lag.ts; the disruption itself is
 * found in src/diagnosis/aftermath.ts): quiet while its backlog drains within the catch-up budget,
 * past it "Catching up after …" with the drain's ETA and the catch-up as the cause.
 */
import { FLAT_POINTS, admittedSince, batchesSince, catchUpEtaSec, catchUpReadRate, giantFirstBatch, levelBefore, valuesBefore, withoutDisruption, type Disruption } from '../aftermath.js';
import { TUNING } from '../engine-options.js';
import * as fmt from '../format.js';
import { median, quantile } from '../statistics.js';
import type { Advice, AftermathInfo, Cause } from '../types.js';
import { CLEAR, type DetectorContext, type Finding } from './detector.js';
import { finding } from './lag-finding.js';
import { LAG_SIGNALS, isTimeSignal } from './lag-signal.js';

/**
 * Lag right after a stall or a restart after downtime: quiet while the backlog it left drains within
 * the catch-up budget (or while nothing says yet, for the first few batches); past the budget, an
 * incident that says it is catching up, how long that takes, and causes drawn from the normal
 * batches only. Null leaves the judgement to the ordinary evidence (a small backlog).
 */
export function judgeAftermath(ctx: DetectorContext, disruption: Disruption): Finding | null {
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
  // Quiet while nothing says yet: 4 batches, or as many as a flat count of files needs.
  if (eta === null) return batchesSince(ctx.features, disruption.catchUpFromMs) < (isTime ? 4 : FLAT_POINTS) ? CLEAR : null;
  // The budget is for the whole catch-up, from its start (a restart's giant first batch counts).
  const elapsedSec = (ctx.latest.t + ctx.latest.d - disruption.catchUpFromMs) / 1000;
  if (elapsedSec + eta <= TUNING.catchUpBudgetSec) return CLEAR;
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
  const { analysis } = ctx;
  const eta = analysis.drainEtaSec ?? (analysis.trendPerMin !== null && analysis.trendPerMin > 0 ? Infinity : null);
  const features = ctx.disruption ? withoutDisruption(ctx.features, ctx.disruption) : ctx.features;
  const elapsedSec = (ctx.latest.t + ctx.latest.d - (memo.aftermathCatchUpMs ?? ctx.latest.t)) / 1000;
  return aftermathFinding({ ...ctx, features }, info, behind, eta, elapsedSec, memo.aftermathCatchUpMs ?? null);
}

/** "Catching up after …": what happened, how much waits, how long it takes at the recent rate. */
function aftermathFinding(
  ctx: DetectorContext,
  info: AftermathInfo,
  behind: number,
  eta: number | null,
  elapsedSec: number,
  catchUpFromMs: number | null,
): Finding {
  const { analysis } = ctx;
  const result = finding(ctx, 'fire', {});
  const startMs = Date.parse(info.startedAt);
  const what =
    info.what === 'stall'
      ? `a ${fmt.ms(info.durationMs)} stall (a batch hung from ${clock(startMs)}${info.stallOpenedAt ? ', reported as stalled' : ''})`
      : `a restart after ${fmt.ms(info.durationMs)} down`;
  // Under a binding cap the drain runs at what the cap admits, whatever the cluster could process;
  // before the cap shows in a run of equal reads, the catch-up's reads say it.
  const read = analysis.cappedRows === null && catchUpFromMs !== null ? catchUpReadRate(ctx.features, catchUpFromMs, analysis.triggerMs) : null;
  const rate =
    analysis.cappedRows !== null && ctx.disruption !== null
      ? ` (the cap admits about ${fmt.rate(admittedSince(ctx.features, ctx.disruption, analysis.cappedRows, analysis.triggerMs))})`
      : read !== null && analysis.capacity !== null && read < 0.9 * analysis.capacity
        ? ` (the batches since read about ${fmt.rate(read)}; the query processes ${fmt.rate(analysis.capacity)})`
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
    const { cause, advice } = catchingUp(ctx, info, what, behind, eta, elapsedSec, catchUpFromMs);
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
  catchUpFromMs: number | null,
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
  // Only after a giant first batch: equal reads since are a cap already binding.
  const giant = catchUpFromMs !== null && giantFirstBatch(ctx.features, catchUpFromMs);
  if (giant && ctx.analysis.cappedRows === null && ctx.facts.sourceKinds.includes('kafka') && ctx.analysis.capacity !== null) {
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

function clock(epochMs: number): string {
  return `${fmt.iso(epochMs).slice(11, 16)} UTC`;
}
