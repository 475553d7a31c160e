/**
 * Why a query falls behind, and what to change: an admission cap below the arrival rate, too
 * little throughput, a giant catch-up batch after downtime, partitions below the core count, state
 * and sink costs. Every number in evidence and advice comes from the batches.
 */
import { unreportedCatchUp, type UnreportedCatchUp } from '../aftermath.js';
import { admitsLess } from '../cap-binding.js';
import type { DetectorContext } from '../detectors/detector.js';
import { heldFileReads, notComingDown } from '../detectors/lag-evidence.js';
import { TUNING } from '../engine-options.js';
import * as fmt from '../format.js';
import { shownPerSec } from '../input-ramp.js';
import { atACap } from '../query-analysis.js';
import { median } from '../statistics.js';
import type { Advice, Cause } from '../types.js';
import { clamp, rank, type Explained } from './explained.js';
import {
  kafkaPartitionBound,
  slowSink,
  slowStateCommit,
  stateStoreMemory,
  tooFewShufflePartitions,
  unboundedState,
  type CauseInput,
} from './shared-causes.js';

export function explainLag(ctx: DetectorContext): { causes: Cause[]; advice: Advice[] } {
  const input: CauseInput = {
    features: ctx.features,
    latest: ctx.latest,
    facts: ctx.facts,
    cores: ctx.options.cores,
  };
  // Batches at a binding cap that slowed below the arrivals lost capacity: a larger cap admits no more.
  const lost = ctx.capBound !== null ? admitsLess(ctx.features, ctx.capBound, ctx.analysis.triggerMs) : null;
  const capped = lost ? null : rateLimitTooLow(ctx);
  // A cap binds throughput only while batches finish inside the interval; back to back, a larger
  // cap just makes longer batches, and capacity is what limits.
  const capBinds = capped !== null && capped.cause.confidence >= 0.5;
  const capacity = lost ? capacityLostUnderCap(ctx, lost) : insufficientCapacity(ctx, capBinds);
  // Lag without an admission cap in the way is a throughput shortage, whatever ρ reads this batch.
  const capacityBound = capacity !== null || !atACap(ctx.analysis);
  const explained = rank([
    capped,
    capacity,
    oversizedBatches(ctx),
    kafkaPartitionBound(input, capacityBound),
    tooFewShufflePartitions(input, capacityBound),
    unboundedState(input, 0.45),
    stateStoreMemory(input),
    slowStateCommit(input),
    slowSink(input),
  ]);
  if (explained.causes.length === 0) {
    explained.causes.push({
      code: 'insufficient_capacity',
      confidence: UNEXPLAINED_CONFIDENCE,
      evidence: `the lag signal rose from ${describeStart(ctx)} while batches took ${fmt.ms(ctx.latest.d)}${UNEXPLAINED_TAIL}`,
    });
    explained.advice.push({ text: UNEXPLAINED_ADVICE });
  }
  return explained;
}

/** The cause and advice `explainLag` falls back on when nothing else explains the lag. */
const UNEXPLAINED_CONFIDENCE = 0.4;
const UNEXPLAINED_TAIL = '; the source reports too little to separate arrival from processing rates.';
const UNEXPLAINED_ADVICE =
  'Compare inputRowsPerSecond with processedRowsPerSecond and the Spark UI (scheduler delay, GC, spill) to find the slow stage; add compute if every stage is busy.';

/**
 * `causes` and `advice` without what `explainLag` falls back on: a finding that says what happens
 * on its own (a catch-up after a stall or a restart) is not "a lag nothing explains".
 */
export function withoutUnexplained<T extends { causes: Cause[]; advice: Advice[] }>(explained: T): T {
  explained.causes = explained.causes.filter((c) => !(c.code === 'insufficient_capacity' && c.confidence === UNEXPLAINED_CONFIDENCE && c.evidence.endsWith(UNEXPLAINED_TAIL)));
  explained.advice = explained.advice.filter((a) => a.text !== UNEXPLAINED_ADVICE);
  return explained;
}

function describeStart(ctx: DetectorContext): string {
  const finite = ctx.analysis.series.filter(Number.isFinite);
  const first = finite[Math.max(0, finite.length - 8)] ?? 0;
  return ctx.analysis.signal === 'files' ? `${fmt.count(first)} files` : fmt.seconds(first);
}

/** Interval between batch starts people configured, or the cadence when it is back to back. */
function intervalSec(ctx: DetectorContext): number {
  const { analysis } = ctx;
  if (analysis.triggerMs > 0) return analysis.triggerMs / 1000;
  const gaps: number[] = [];
  const recent = ctx.features.slice(-8);
  for (let i = 1; i < recent.length; i += 1) {
    if (!recent[i]!.restart) gaps.push(recent[i]!.t - recent[i - 1]!.t);
  }
  const gap = median(gaps);
  return (Number.isFinite(gap) && gap > 0 ? gap : analysis.cadenceMs) / 1000;
}

/** Rows/s arrived over a window of Kafka batches: rows read after the first + growth of the offsets behind, over the time between batch ends. */
function arrivalFromBacklog(window: readonly DetectorContext['latest'][]): number | null {
  if (window.length < 3 || window.some((f) => f.kafkaBehind === null || f.restart)) return null;
  const first = window[0]!;
  const last = window[window.length - 1]!;
  const spanSec = (last.t + last.d - (first.t + first.d)) / 1000;
  let rows = 0;
  for (let i = 1; i < window.length; i += 1) rows += window[i]!.rows;
  const arrived = rows + last.kafkaBehind! - first.kafkaBehind!;
  return spanSec > 0 && arrived > 0 ? arrived / spanSec : null;
}

function rateLimitTooLow(ctx: DetectorContext): Explained | null {
  const { analysis, facts, latest } = ctx;
  const cap = analysis.cappedRows;
  // With several Kafka sources the cap binds one of them: compare it with that source's arrivals.
  // With one, the backlog's growth plus what was read is what arrived, exactly, while the latest-
  // offset estimate still smooths over the batches before a step.
  const estimate = analysis.cappedSource ? analysis.cappedSource.arrival : analysis.arrivalRate;
  const fromBacklog = analysis.cappedSource ? null : arrivalFromBacklog(ctx.features.slice(-5));
  const arrival = estimate === null ? fromBacklog : Math.max(estimate, fromBacklog ?? 0);
  const interval = intervalSec(ctx);
  if (analysis.signal === 'files' || analysis.signal === 'bytes') {
    if (cap !== null) return fileCapTooLow(ctx, { rows: cap }, interval);
    // A cap of files whose sizes vary: Auto Loader's offsets say each batch read as many files, and
    // Delta's each batch within one table version; otherwise batches read about as many rows each.
    if (analysis.cappedFiles !== null) return fileCapTooLow(ctx, { files: analysis.cappedFiles }, interval);
    const held = heldFileReads(ctx);
    if (held !== null) return fileCapTooLow(ctx, { aboutRows: held }, interval);
    return analysis.filesLeftAtPlanning ? fileCapTooLow(ctx, { left: true }, interval) : null;
  }
  if (cap === null) return null;
  // The typical recent batch, not the latest alone: one slow batch does not make them back to back.
  const typicalMs = median(ctx.features.slice(-5).map((f) => f.d));
  if (ctx.capBound !== null) return unreportedCapTooLow(ctx, ctx.capBound.cap, interval, typicalMs);
  if (arrival === null || arrival <= 0) return null;
  const admitted = cap / Math.max(interval, typicalMs / 1000);
  if (admitted >= arrival * 0.99) return null;
  const durationShare = typicalMs / 1000 / interval;
  const kafka = facts.sourceKinds.includes('kafka');
  const autoloader = facts.sourceKinds.includes('autoloader');
  const advice: Advice[] = [];
  if (kafka) {
    const value = fmt.niceCeil(arrival * interval * 1.3);
    // The fixed part of a batch stays; the busy part scales with the rows.
    const capacity = analysis.capacity;
    const projectedMs =
      capacity !== null && capacity > 0
        ? Math.max(0, latest.d - latest.addBatchMs) + (value / capacity) * 1000
        : latest.d * (value / cap);
    advice.push({
      text: `Raise maxOffsetsPerTrigger from ${cap} to at least ${value} (arrival ${fmt.rate(arrival)} × ${fmt.seconds(interval)} trigger interval, plus 30% headroom to drain the backlog).${
        projectedMs > interval * 1000
          ? ` Batches of that size would take about ${fmt.ms(projectedMs)}, longer than the trigger interval, so the cluster also needs more throughput.`
          : ` Batches of that size should take about ${fmt.ms(projectedMs)}, inside the ${fmt.seconds(interval)} trigger interval.`
      }`,
      setting: 'maxOffsetsPerTrigger',
      value: String(value),
    });
  } else {
    const needed = (arrival * interval * 1.3) / cap;
    advice.push({
      text: `Raise ${autoloader ? 'cloudFiles.maxFilesPerTrigger' : 'maxFilesPerTrigger'} (or maxBytesPerTrigger) to about ${fmt.factor(needed)} its current value: each batch admits ${fmt.count(cap)} rows while ${fmt.count(arrival * interval)} arrive per trigger interval.`,
      setting: autoloader ? 'cloudFiles.maxFilesPerTrigger' : 'maxFilesPerTrigger',
    });
  }
  const fillsInterval = durationShare >= 0.95;
  return {
    cause: {
      code: 'rate_limit_too_low',
      confidence: durationShare <= 0.8 ? 0.9 : fillsInterval ? 0.3 : 0.6,
      evidence: fillsInterval
        ? `each of the last batches read the admission cap (${fmt.count(cap)} ${kafka ? 'offsets' : 'rows'}) and they run back to back (${fmt.ms(typicalMs)} each) while ${fmt.rate(arrival)} arrived: a larger cap would make longer batches rather than faster progress.`
        : `each of the last batches read the admission cap (${fmt.count(cap)} ${kafka ? 'offsets' : 'rows'}) and finish in about ${fmt.ms(typicalMs)} of a ${fmt.seconds(interval)} interval, while ${fmt.rate(arrival)} arrived: the cap admits only ${fmt.rate(admitted)}.`,
    },
    advice,
  };
}

/**
 * A Kafka cap binds while the reports carry no backlog figure at all (cap-binding.ts): nothing says
 * by how much the input exceeds it, so advise a cap with headroom and say what will show it is
 * enough (batches reading less than it, which means nothing was left).
 */
function unreportedCapTooLow(ctx: DetectorContext, cap: number, interval: number, typicalMs: number): Explained {
  const bound = ctx.capBound!;
  const catchUp = unreportedCatchUp(ctx.features, ctx.disruption, bound, ctx.analysis.triggerMs);
  if (catchUp !== null) return restartCapTooLow(ctx, catchUp, cap, interval, typicalMs);
  const boundMs = ctx.latest.t + ctx.latest.d - bound.sinceMs;
  // Since a restart or a slow batch, within the budget, the reads may be what that left draining.
  const draining = !bound.fromSteady && boundMs < TUNING.catchUpBudgetSec * 1000;
  const durationShare = typicalMs / 1000 / interval;
  const value = fmt.niceCeil(cap * 1.5);
  const fillsInterval = durationShare >= 0.95;
  // At most proportional to the rows (the fixed part of a batch stays).
  const projectedMs = typicalMs * (value / cap);
  return {
    cause: {
      code: 'rate_limit_too_low',
      confidence: draining ? 0.3 : durationShare <= 0.8 ? 0.8 : fillsInterval ? 0.3 : 0.5,
      evidence: `every batch for the last ${fmt.ms(boundMs)}${draining ? ' (since a restart or a slow batch)' : ''} read the admission cap (about ${fmt.count(cap)} offsets) ${
        fillsInterval ? `and they run back to back (${fmt.ms(typicalMs)} each)` : `and finish in about ${fmt.ms(typicalMs)} of a ${fmt.seconds(interval)} interval`
      }; these reports carry no backlog figure, so how much more than the cap waits cannot be measured.`,
    },
    advice: [
      {
        text: `Raise maxOffsetsPerTrigger from about ${fmt.count(cap)} (what the batches read) to about ${value} (1.5×; how far arrivals exceed the cap is not reported). Batches that then read less than the cap have caught up; if they still read it, raise it again.${
          projectedMs > interval * 1050
            ? ` Batches of that size would take up to ${fmt.ms(projectedMs)}, longer than the ${fmt.seconds(interval)} trigger interval, so the cluster also needs more throughput.`
            : ''
        }`,
        setting: 'maxOffsetsPerTrigger',
        value: String(value),
      },
    ],
  };
}

/**
 * A restart's catch-up under a binding cap with no backlog figure, its backlog estimated from the
 * arrivals before the restart (aftermath.ts): the cap sets how fast it drains, so advise one that
 * drains it within what is left of the catch-up budget (a third of it at least).
 */
function restartCapTooLow(ctx: DetectorContext, catchUp: UnreportedCatchUp, cap: number, interval: number, typicalMs: number): Explained {
  const budget = TUNING.catchUpBudgetSec;
  const leftSec = Math.max(budget - catchUp.elapsedSec, budget / 3);
  const intervalSec = Math.max(interval, typicalMs / 1000);
  const value = Math.max(fmt.niceCeil((catchUp.arrival + catchUp.backlog / leftSec) * intervalSec), fmt.niceCeil(cap * 1.1));
  // At most proportional to the rows (the fixed part of a batch stays).
  const projectedMs = typicalMs * (value / cap);
  const drain = Number.isFinite(catchUp.etaSec) ? `drain in about ${fmt.seconds(catchUp.etaSec)}` : 'never drain';
  return {
    cause: {
      code: 'rate_limit_too_low',
      confidence: projectedMs > interval * 1050 ? 0.5 : 0.85,
      evidence: `every batch since the restart read the admission cap (about ${fmt.count(cap)} offsets), which admits about ${fmt.rate(catchUp.admitted)} against the ${fmt.rate(catchUp.arrival)}${catchUp.atLeast ? ' or more' : ''} that arrived before it, so the estimated ${fmt.count(catchUp.backlog)} offsets the downtime left ${drain}.`,
    },
    advice: [
      {
        text: `Raise maxOffsetsPerTrigger from about ${fmt.count(cap)} (what the batches read) to about ${value} for the catch-up, to drain the estimated backlog in about ${fmt.seconds(leftSec)}; batches that read less than the cap have caught up, and the cap can go back then.${
          projectedMs > interval * 1050
            ? ` Batches of that size would take up to ${fmt.ms(projectedMs)}, longer than the ${fmt.seconds(interval)} trigger interval, so the cluster also needs more throughput.`
            : ''
        }`,
        setting: 'maxOffsetsPerTrigger',
        value: String(value),
      },
    ],
  };
}

/**
 * What says the batches read a file cap: each exactly as many rows, as many files, about as many
 * rows, or files left at planning.
 */
type FileCapReads = { rows: number } | { files: number } | { aboutRows: number } | { left: true };

/**
 * File sources: the input rate is the admitted rate, so arrivals are unknown; the evidence is that
 * the batches read the cap (`reads`) while the outstanding files keep growing, or hold (the newest
 * 3 batches' median not under the oldest 3's: what jumped at the onset is not taken down).
 */
function fileCapTooLow(ctx: DetectorContext, reads: FileCapReads, interval: number): Explained | null {
  const { features, facts, latest } = ctx;
  // Since a catch-up began, not across it: the files a stall or downtime left are no cap's.
  const from = ctx.disruption?.catchUpFromMs ?? -Infinity;
  const recent = features.slice(-8).filter((f) => f.t >= from);
  if (recent.length < 2) return null;
  const first = recent[0]!;
  const unit = ctx.analysis.signal === 'files' ? 'files' : 'bytes';
  const before = unit === 'files' ? first.filesOutstanding : first.bytesOutstanding;
  const after = unit === 'files' ? latest.filesOutstanding : latest.bytesOutstanding;
  if (before === null || after === null || after <= 0) return null;
  const durationShare = latest.d / 1000 / interval;
  const setting = facts.sourceKinds.includes('autoloader') ? 'cloudFiles.maxFilesPerTrigger' : 'maxFilesPerTrigger';
  const amount = (value: number) => (unit === 'files' ? `${fmt.count(value)} ${value === 1 ? 'file' : 'files'}` : fmt.bytes(value));
  const room = durationShare <= 0.8 ? `; batches finish in ${fmt.percent(durationShare)} of the interval, so there is room` : '; batches already fill most of the interval, so the cluster also needs more throughput';
  const held = after <= before;
  const waiting = recent.map((f) => (unit === 'files' ? f.filesOutstanding : f.bytesOutstanding) ?? NaN);
  if (held && !notComingDown(waiting)) return null;
  const perBatch = (after - before) / Math.max(1, recent.length - 1);
  const usual = median(waiting);
  const change = held
    ? `held at about ${amount(unit === 'files' ? Math.round(usual) : usual)} (${amount(before)} then, ${amount(after)} now): at the cap the batches do not take it down, so about as much as the cap, or more, arrives`
    : `grew from ${amount(before)} to ${amount(after)} (+${amount(perBatch)} per batch)`;
  const take = held ? 'takes more than arrives, with headroom' : `also takes the ${amount(perBatch)} that pile up per batch now, plus headroom`;
  return {
    cause: {
      code: 'rate_limit_too_low',
      confidence: held ? (durationShare <= 0.8 ? 0.75 : 0.5) : durationShare <= 0.8 ? 0.85 : 0.55,
      evidence: `${
        'rows' in reads
          ? `each of the last batches read exactly ${fmt.count(reads.rows)} rows (the admission cap)`
          : 'files' in reads
            ? `each of the last batches${facts.sourceKinds.includes('delta') && !facts.sourceKinds.includes('autoloader') ? ' that stayed within one table version' : ''} read exactly ${fmt.count(reads.files)} ${reads.files === 1 ? 'file' : 'files'} (the admission cap)`
            : 'left' in reads
              ? 'the last batches were planned with files still waiting (a source without a cap reads all it lists, so an admission cap holds them back); the newest ran'
              : `the last batches read about ${fmt.count(reads.aboutRows)} rows each (about: the files an admission cap lets through), no more ${held ? 'while files waited' : 'as files piled up'},`
      } in ${fmt.ms(latest.d)} of a ${fmt.seconds(interval)} interval, while the outstanding backlog ${change}.`,
    },
    advice: [{ text: `Raise ${setting} (or maxBytesPerTrigger) so each batch ${take} to drain the ${amount(after)} outstanding${room}.`, setting }],
  };
}

function insufficientCapacity(ctx: DetectorContext, capped: boolean): Explained | null {
  const { analysis, latest } = ctx;
  const interval = intervalSec(ctx);
  const backToBack = analysis.triggerMs === 0 || latest.d >= analysis.triggerMs;
  if (analysis.loadFactor === null || analysis.arrivalRate === null || analysis.capacity === null) return null;
  // A ramp's arrivals have outrun the recent median: where the ramp has got to is the load now (no
  // higher than the newest batches have shown: the line runs on past a ramp that levelled off).
  const ramp = analysis.inputRamp;
  const rampNow = ramp !== null ? shownPerSec(ramp) : 0;
  const rampLoad = rampNow / analysis.capacity;
  const rising = ramp !== null && rampLoad > analysis.loadFactor;
  const rho = rising ? rampLoad : analysis.loadFactor;
  // With a cap that is the bottleneck, capacity matters only if it is short of arrivals too.
  if (rho < (capped ? 1.0 : 0.95)) return null;
  const needed = Math.max(1.05, rho * 1.15);
  const arriving = rising
    ? `the input has risen over the last ${ramp.batches} batches (${fmt.rate(ramp.risePerMin)} more every minute) to about ${fmt.rate(rampNow)} now,`
    : `${fmt.rate(analysis.arrivalRate)} arrive`;
  return {
    cause: {
      code: 'insufficient_capacity',
      confidence: clamp(capped ? 0.35 + (rho - 1) : 0.6 + (rho - 1) * 1.5, 0.3, 0.95),
      evidence: `${arriving} while the query processes ${fmt.count(analysis.capacity)} rows per second of busy time over its recent batches (rows ÷ addBatch): load factor ${rho.toFixed(2)}${rising ? ' and rising' : ''} (arrivals ÷ what it processes; over 1 falls behind)${backToBack ? ', batches run back to back' : ''}.`,
    },
    advice: [
      {
        text: `Give the query about ${fmt.factor(needed)} its current throughput (load factor ${rho.toFixed(2)} plus headroom to drain the backlog${rising ? ', more if the input keeps rising' : ''}): more or larger workers. ${
          backToBack
            ? 'A longer trigger interval will not help: batches already run back to back, and a longer interval only adds idle time.'
            : `A longer trigger interval than ${fmt.seconds(interval)} will not help: it only adds idle time.`
        }`,
        throughputFactor: needed,
        loadFactor: rho,
      },
    ],
  };
}

/**
 * A binding cap with no backlog figure whose batches slowed and stayed slow: they admit less than
 * arrived before, so at least that ratio is missing in throughput (arrivals now are not reported).
 */
function capacityLostUnderCap(ctx: DetectorContext, lost: { admitted: number; arrivalBefore: number; intervalMs: number }): Explained {
  const { admitted, arrivalBefore } = lost;
  const rho = arrivalBefore / admitted;
  const needed = Math.max(1.05, rho * 1.15);
  return {
    cause: {
      code: 'insufficient_capacity',
      confidence: clamp(0.6 + (rho - 1) * 1.5, 0.6, 0.9),
      evidence: `every batch reads the admission cap (about ${fmt.count(ctx.capBound!.cap)} offsets) and now takes about ${fmt.ms(lost.intervalMs)}, admitting about ${fmt.rate(admitted)}, while ${fmt.rate(arrivalBefore)} arrived before the batches slowed: load factor at least ${rho.toFixed(2)} (arrivals now are not reported).`,
    },
    advice: [
      {
        text: `Give the query about ${fmt.factor(needed)} its current throughput (load factor ${rho.toFixed(2)} plus headroom to drain the backlog), or find what slowed it (the Spark UI: lost executors, GC, spill, a slower sink). Raising maxOffsetsPerTrigger will not help: the batches at the cap already run back to back, slower than the input.`,
        throughputFactor: needed,
        loadFactor: rho,
      },
    ],
  };
}

function oversizedBatches(ctx: DetectorContext): Explained | null {
  const { features, analysis, facts } = ctx;
  let restartIndex = -1;
  for (let i = features.length - 1; i >= 0; i -= 1) {
    if (features[i]!.restart) {
      restartIndex = i;
      break;
    }
  }
  if (restartIndex < 0) return null;
  const first = features[restartIndex]!;
  const others = features.filter((_, i) => i !== restartIndex && features[i]!.rows > 0);
  if (others.length < 3) return null;
  const usualRows = median(others.map((f) => f.rows));
  const usualD = median(others.map((f) => f.d));
  if (!(first.rows >= 5 * usualRows || first.d >= 5 * usualD)) return null;
  if (analysis.cappedRows !== null && first.rows <= analysis.cappedRows * 1.01) return null;
  const target = Math.max(analysis.triggerMs, usualD);
  const targetName = target === analysis.triggerMs ? 'its trigger interval' : 'its usual batch duration';
  const capRows = analysis.capacity !== null ? fmt.niceCeil((analysis.capacity * target) / 1000) : fmt.niceCeil(usualRows);
  const kafka = facts.sourceKinds.includes('kafka');
  const advice: Advice = kafka
    ? {
        text: `Cap catch-up batches with maxOffsetsPerTrigger ${capRows}: about what the query processes in ${fmt.ms(target)}, ${targetName}, so a backlog drains as a series of normal batches instead of one giant one.`,
        setting: 'maxOffsetsPerTrigger',
        value: String(capRows),
      }
    : {
        text: `Cap catch-up batches with ${facts.sourceKinds.includes('autoloader') ? 'cloudFiles.maxFilesPerTrigger' : 'maxFilesPerTrigger'} or maxBytesPerTrigger so each batch holds about ${fmt.count(capRows)} rows, what the query processes in ${fmt.ms(target)}.`,
        setting: facts.sourceKinds.includes('autoloader') ? 'cloudFiles.maxFilesPerTrigger' : 'maxFilesPerTrigger',
      };
  return {
    cause: {
      code: 'oversized_batches',
      confidence: 0.8,
      evidence: `the first batch after the restart${first.batchId !== null ? ` (batch ${first.batchId})` : ''} read ${fmt.count(first.rows)} rows, ${fmt.factor(first.rows / Math.max(1, usualRows))} the usual ${fmt.count(usualRows)}, and ran for ${fmt.ms(first.d)} against a usual ${fmt.ms(usualD)}, with no admission cap.`,
    },
    advice: [advice],
  };
}
