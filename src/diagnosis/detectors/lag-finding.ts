/**
 * A firing lag finding (detectors/lag.ts): its severity, causes and advice, and the incident's
 * summary and metrics as of the batch, built when the incident is read.
 */
import { batchesSince, unreportedCatchUp, type Disruption, type UnreportedCatchUp } from '../aftermath.js';
import type { BatchFeatures } from '../batch-features.js';
import { admitsLess, type CapBound } from '../cap-binding.js';
import { explainLag } from '../causes/lag-causes.js';
import { TUNING } from '../engine-options.js';
import * as fmt from '../format.js';
import { capacityLoss, signalValue, trendWindow } from '../query-analysis.js';
import type { Advice, Cause, IncidentMetrics, Severity } from '../types.js';
import type { DetectorContext, Finding } from './detector.js';
import { LAG_SIGNALS, backlogInBatches, isTimeSignal } from './lag-signal.js';

/** A firing finding described now: summary, metrics and severity, causes and advice when due. */
export function finding(ctx: DetectorContext, verdict: 'fire', memo: Record<string, number>): Finding {
  // An opening records the signal its base is measured on (see the resolution in detectLag).
  if (memo.base !== undefined && memo.signal === undefined) memo.signal = LAG_SIGNALS.indexOf(ctx.analysis.signal);
  const { summary, metrics } = describeLag(ctx, memo);
  return { verdict, severity: lagSeverity(ctx), summary, metrics, ...explained(ctx), memo };
}

/**
 * An open incident still firing: its verdict, severity and (every few batches) causes now, its
 * summary and metrics only when read. Those are what most of a firing batch cost, and an episode
 * fires for hundreds of batches whose texts nobody reads but the last one's. The analysis stops
 * sharing the ring's array, so what it computes later still reads this batch.
 */
export function stillFiring(ctx: DetectorContext): Finding {
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
  /** A growth the text names already says the backlog is not draining. */
  let saidGrowing = false;
  if (memo?.capBound && view.capBound !== null) return describeCapBound(view, view.capBound);
  // A backlog read directly that fell batch after batch drains, whatever the 12-batch trend says.
  const falling = backlogInsideBatches(view) ? null : fallingDrainSec(view);
  const growing = falling === null && analysis.trendPerMin !== null && analysis.trendPerMin > 0;
  if (analysis.signal === 'files' || analysis.signal === 'bytes') {
    const backlog = analysis.signal === 'files' ? latest.filesOutstanding! : latest.bytesOutstanding!;
    const unit = analysis.signal === 'files' ? `${fmt.count(backlog)} files` : fmt.bytes(backlog);
    // Delta's progress does not say how many files a batch read, so its time behind is unknown:
    // say so rather than leave it out; Auto Loader's is estimated from files arriving per second.
    parts.push(
      `${unit} waiting at the source${behind !== null && behind > 0 ? ` (about ${fmt.seconds(behind)} of data, estimated from files)` : ' (time behind unknown for this source)'}`,
    );
    if (growing) {
      saidGrowing = true;
      parts.push(
        analysis.signal === 'files'
          ? `growing ${fmt.count(analysis.trendPerMin!)} files per minute`
          : `growing ${fmt.bytes(analysis.trendPerMin!)} per minute`,
      );
    }
  } else if (backlogInsideBatches(view)) {
    // The source reads everything that has arrived at each plan, so its backlog figures read 0:
    // the data that arrived while the last batch ran is what waits, and its growth is the lag.
    growth = growthPerBatch(view.features);
    saidGrowing = growth !== null && growth > 0.005;
    const change =
      growth === null ? '' : saidGrowing ? `, growing ${fmt.percent(growth)} per batch` : growth < -0.005 ? `, shrinking ${fmt.percent(-growth)} per batch` : '';
    // No figure at all (Spark 3.0-era reports) is not a figure that reads 0. The reason comes first:
    // it is what makes a batch's duration the time behind.
    const noFigure = latest.kafkaBehind === null && latest.filesOutstanding === null && latest.bytesOutstanding === null && latest.msBehind === null;
    const why = noFigure ? 'these reports carry no backlog figure' : "the source's backlog reads 0 because each batch takes everything that has arrived";
    parts.push(
      `${why}, so time behind ≈ the last batch's duration, ${fmt.ms(latest.d)}${upFrom(memo, latest.d / 1000)}${
        analysis.triggerMs > 0 ? ` against a ${fmt.ms(analysis.triggerMs)} trigger` : ''
      }${change}`,
    );
  } else {
    parts.push(`${behind === null ? 'data' : fmt.seconds(behind)} of data waiting`);
    if (growing) {
      saidGrowing = true;
      parts.push(`growing ${fmt.seconds(analysis.trendPerMin!)} per minute`);
    }
  }
  // Said only when what is left falls short of the arrivals: then it is why the query falls behind.
  const loss = capacityLoss(view.features);
  if (loss !== null && analysis.arrivalRate !== null && analysis.arrivalRate > loss.now) {
    parts.push(`processing fell from about ${fmt.rate(loss.usual)} to ${fmt.rate(loss.now)}, under the ${fmt.rate(analysis.arrivalRate)} arriving: processing lost capacity`);
  }
  // Batches that shorten batch after batch are draining before the trend over the window says so.
  const shrinking = analysis.drainEtaSec === null && growth !== null ? shrinkingDrainSec(latest.d, growth, analysis.triggerMs) : null;
  // Batches still lengthening say the backlog inside them grows, whatever the window's trend.
  const etaSec = growth !== null && growth > 0.005 ? null : (falling ?? analysis.drainEtaSec ?? shrinking);
  const level = etaSec !== null && !materialDrain(isTimeSignal(analysis.signal) ? behind : null, etaSec);
  // "Growing …" already says it is not draining.
  if (etaSec !== null || !saidGrowing) parts.push(etaSec === null ? 'not draining' : level ? 'about level, not draining' : `about ${fmt.seconds(etaSec)} to catch up`);
  const metrics = lagMetrics(view);
  // A backlog figure of 0 beside a time behind of minutes reads as a contradiction: the data that
  // waits is inside the running batch, which the summary says.
  if (backlogInsideBatches(view) && metrics.backlog === 0) {
    delete metrics.backlog;
    delete metrics.backlogUnit;
  }
  // The ETA the text names, or none: the shrinking batches' when they say more than the window's
  // trend (which still reads the growth before the turn), none when the drain is too slow to matter.
  metrics.drainEtaSec = etaSec === null || level ? null : Math.round(etaSec);
  if (shrinking !== null || falling !== null) delete metrics.timeBehindTrendSecPerMin;
  // The lead says where the episode stands now: an incident stays open while its backlog holds or
  // drains, and "falling behind" over a level backlog, or one gone in minutes, misreads it.
  const lead = etaSec === null ? 'Falling behind' : level ? 'Behind' : 'Draining';
  return { summary: `${lead}: ${parts.join(', ')}`, metrics };
}

/**
 * Where the time behind stood when the incident's evidence began (its base, in seconds), when it
 * has grown materially since: the growth that opened it, which the last few batches (shrinking, say)
 * may not show.
 */
function upFrom(memo: Record<string, number> | null, nowSec: number): string {
  const base = memo?.base;
  const signal = memo?.signal === undefined ? undefined : LAG_SIGNALS[memo.signal];
  if (base === undefined || signal === undefined || !isTimeSignal(signal) || !(base > 0) || nowSec < 1.2 * base) return '';
  return ` (up from about ${fmt.seconds(base)})`;
}

/** The least pace a drain must gain back, seconds of data per second, to be called draining. */
const MIN_DRAIN_PACE = 0.01;

/**
 * Whether `behindSec` of data draining in `etaSec` is a drain worth the word: gaining back at least
 * MIN_DRAIN_PACE of the time that passes. A trend that barely dips below level (15 s of data "about
 * 28 h to catch up") is noise around a plateau, and naming an ETA for it misleads. Without a time
 * figure (files, bytes with no estimate) any drain counts.
 */
function materialDrain(behindSec: number | null, etaSec: number): boolean {
  if (behindSec === null || !(behindSec > 0)) return true;
  return behindSec / etaSec >= MIN_DRAIN_PACE;
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

/** Newest points of the signal `fallingDrainSec` reads: 2 falls in a row. */
const FALLING_POINTS = 3;
/** Those falls must take off at least this share of the backlog: noise on a level makes small ones. */
const FALLING_SHARE = 0.3;

/**
 * Seconds to drain at the pace of the newest batches, when the backlog (time, files or bytes read
 * from the source) fell at each of the last 2 by 30 % or more in all; else null. The 12-batch trend
 * still reads the rise before the turn for a few batches (a loss of capacity that came back read
 * "growing" over a backlog that halved at each batch), and once it turns it reads the slow start of
 * the drain ("about 5h to catch up" over 4 min of data gone in 3 batches).
 */
function fallingDrainSec(view: LagView): number | null {
  const { analysis, features } = view;
  // Read off the view's batches (an aftermath's leave its disruption out), not the analysis' series.
  const { xs: ends, ys: values } = trendWindow(features, features.map((f) => signalValue(f, analysis.signal)), FALLING_POINTS);
  if (values.length < FALLING_POINTS) return null;
  for (let i = 1; i < FALLING_POINTS; i += 1) if (!(values[i]! < values[i - 1]!)) return null;
  const first = values[0]!;
  const last = values[FALLING_POINTS - 1]!;
  if (last > (1 - FALLING_SHARE) * first || !(last > 0)) return null;
  const perSec = (first - last) / ((ends[FALLING_POINTS - 1]! - ends[0]!) / 1000);
  return perSec > 0 ? last / perSec : null;
}

/** The backlog lives inside the batches: no backlog figure, or Kafka offsets that read 0 uncapped. */
function backlogInsideBatches(view: LagView): boolean {
  return backlogInBatches(view.analysis, view.latest) && (view.analysis.signal !== 'kafka' || view.analysis.cappedRows === null);
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
  // What is known first, then what is not: by how much it falls behind.
  const tail = 'by how much cannot be read: these reports carry no backlog figure (no latestOffset, no source metrics)';
  const lost = admitsLess(features, bound, view.analysis.triggerMs);
  const catchUp = lost ? null : unreportedCatchUp(features, view.disruption, bound, view.analysis.triggerMs);
  if (catchUp !== null) return describeRestartCatchUp(view, view.disruption!, catchUp);
  const summary = lost
    ? `Falling behind: ${reads} and taken about ${fmt.ms(lost.intervalMs)}, so the query now admits about ${fmt.rate(lost.admitted)}, less than the ${fmt.rate(lost.arrivalBefore)} that arrived before the batches slowed: processing lost capacity; ${tail}`
    : bound.fromSteady
      ? `Falling behind: ${reads}${bound.readBefore !== null ? `, up from about ${fmt.count(bound.readBefore)} before` : ''}, so more than the cap arrives at each trigger; ${tail}`
      : ms >= TUNING.catchUpBudgetSec * 1000
        ? `Falling behind: ${reads}, longer than the ${fmt.seconds(TUNING.catchUpBudgetSec)} catch-up budget, so at least the cap waits at each trigger (part of it may be what a restart or a slow batch left); ${tail}`
        : `Falling behind: ${reads}, since a restart or a slow batch, so at least the cap waits at each trigger (part of it may be what that left, draining); ${tail}`;
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
    ? `${estimate.atLeast ? 'at least' : 'about'} ${fmt.seconds(estimate.etaSec)} to drain at the ${fmt.rate(estimate.admitted)} the cap admits${elapsedSec + estimate.etaSec > budget ? `: past the ${fmt.seconds(budget)} catch-up budget (${estimate.atLeast ? 'at least ' : ''}${fmt.seconds(elapsedSec + estimate.etaSec)} in all)` : ''}`
    : `not draining: the cap admits about ${fmt.rate(estimate.admitted)}, no more than arrived before`;
  const summary =
    `Catching up after a restart (down for ${fmt.ms(disruption.durationMs)}): ${estimate.atLeast ? 'at least' : 'about'} ${fmt.count(estimate.backlog)} offsets waiting (${fmt.seconds(estimate.backlog / estimate.arrival)} of data), ${drain}. ` +
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
