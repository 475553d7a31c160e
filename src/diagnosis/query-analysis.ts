/**
 * Numbers derived from a query's recent batches that every detector shares: trigger interval
 * (known or inferred), cadence, arrival rate, processing capacity, load factor, admission cap, and
 * the lag signal (time behind, or the backlog when only a count is known).
 * Physics: ../shared/reference/detection.md "How micro-batches behave".
 */
import type { BatchFeatures } from './batch-features.js';
import { median, quantile, theilSen } from './statistics.js';

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
  /** Rows/s arriving at the source, recent. */
  arrivalRate: number | null;
  /** Rows/s the query processes per second of busy time (rows ÷ addBatch), recent. */
  capacity: number | null;
  /** arrival ÷ capacity (DS2's ρ). */
  loadFactor: number | null;
  /** Rows every recent batch read when they all read the same (an admission cap reached). */
  cappedRows: number | null;
  timeBehindSec: number | null;
  /** Growth of the lag signal per minute of wall time (negative when draining). */
  trendPerMin: number | null;
  /** Seconds until the backlog drains at the current trend; null = not draining. */
  drainEtaSec: number | null;
}

/** Rows/s arriving, for the batch `f` appended after `previous` (oldest first). */
export function arrivalRateAt(previous: readonly BatchFeatures[], f: BatchFeatures): number | null {
  // Kafka: growth of the latest offsets between batch starts, over up to 5 batches to smooth
  // the fetch-time jitter (17.1+ fetches after the batch, older runtimes at planning).
  // A backlog after the batch means the latest offsets were read at its end (17.1+); none means
  // they were read at planning and the batch consumed up to them.
  if (f.kafkaLatest !== null) {
    const fetchedAt = (x: BatchFeatures) => ((x.kafkaBehind ?? 0) > 0 ? x.t + x.d : x.t);
    for (let k = Math.min(5, previous.length); k >= 1; k -= 1) {
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
export function timeBehindOf(f: BatchFeatures): number | null {
  if (f.kafkaBehind !== null) {
    if (f.kafkaBehind > 0 && f.arrival !== null && f.arrival > 0) return f.kafkaBehind / f.arrival;
    if (f.kafkaBehind > 0) return null;
    // Reads 0 (planning-time latest offsets): what arrived during the batch is waiting.
    return f.rows > 0 ? f.d / 1000 : 0;
  }
  if (f.msBehind !== null) return f.msBehind / 1000;
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
  const recent = features.slice(-8);
  if (last.filesOutstanding !== null && recent.some((f) => (f.filesOutstanding ?? 0) > 0)) return 'files';
  if (last.bytesOutstanding !== null && recent.some((f) => (f.bytesOutstanding ?? 0) > 0)) return 'bytes';
  return 'duration';
}

function signalValue(f: BatchFeatures, kind: LagSignalKind): number {
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
 * previous batch ended early); null when batches always ran back to back.
 */
export function inferTriggerMs(features: readonly BatchFeatures[]): number | null {
  const gaps: number[] = [];
  for (let i = 1; i < features.length; i += 1) {
    const prev = features[i - 1]!;
    const cur = features[i]!;
    if (cur.restart) continue;
    const gap = cur.t - prev.t;
    if (gap <= 0) continue;
    if (gap > prev.d + Math.max(100, gap * 0.05)) gaps.push(gap);
  }
  if (gaps.length < 3) return null;
  // Idle triggers without a report make some gaps whole multiples of T: the low quantile is T.
  return Math.round(quantile(gaps, 0.2));
}

export function analyze(
  features: readonly BatchFeatures[],
  knownTriggerMs: number | null,
  inferredTriggerMs?: number | null,
): Analysis {
  const inferred =
    knownTriggerMs === null ? (inferredTriggerMs !== undefined ? inferredTriggerMs : inferTriggerMs(features)) : null;
  const triggerMs = knownTriggerMs ?? inferred ?? 0;
  const recent = features.slice(-8);
  const durations = recent.map((f) => f.d);
  const last = features[features.length - 1];
  const cadenceMs = Math.max(triggerMs, median(durations) || 0, last?.d ?? 0);

  const signal = signalKind(features);
  const series = features.map((f) => signalValue(f, signal));

  const arrivals = recent.map((f) => f.arrival ?? Number.NaN).filter(Number.isFinite);
  const arrivalRate = arrivals.length > 0 ? median(arrivals.slice(-5)) : null;

  const lastRows = features.slice(-5).map((f) => f.rows);
  let cappedRows: number | null = null;
  if (lastRows.length >= 4 && lastRows[0]! > 0) {
    const low = Math.min(...lastRows);
    const high = Math.max(...lastRows);
    if (low > 0 && (high - low) / high <= 0.01) cappedRows = Math.round(median(lastRows));
  }

  const timeBehindSec =
    last === undefined
      ? null
      : signal === 'duration'
        ? last.rows > 0
          ? last.d / 1000
          : 0
        : last.timeBehindSec;

  // Capacity and the trend cost pairwise slopes: computed on first use (most batches need neither).
  let capacityMemo: number | null | undefined;
  let trendMemo: { trendPerMin: number | null; drainEtaSec: number | null } | undefined;
  const capacityOf = () => (capacityMemo === undefined ? (capacityMemo = processingCapacity(features)) : capacityMemo);
  const trend = () => (trendMemo === undefined ? (trendMemo = trendOf(features, series)) : trendMemo);
  return {
    triggerMs,
    triggerInferred: knownTriggerMs === null,
    cadenceMs,
    signal,
    series,
    arrivalRate,
    get capacity() {
      return capacityOf();
    },
    get loadFactor() {
      const capacity = capacityOf();
      return arrivalRate !== null && capacity !== null && capacity > 0 ? arrivalRate / capacity : null;
    },
    cappedRows,
    timeBehindSec,
    get trendPerMin() {
      return trend().trendPerMin;
    },
    get drainEtaSec() {
      return trend().drainEtaSec;
    },
  };
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
    const slopePerMs = theilSen(window.xs, window.ys);
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
  const busy: BatchFeatures[] = [];
  for (let i = features.length - 1; i >= 0 && busy.length < 16; i -= 1) {
    const f = features[i]!;
    if (f.rows > 0 && f.addBatchMs > 0 && !f.restart) busy.unshift(f);
    if (f.restart) break;
  }
  if (busy.length === 0) return null;
  const ratio = median(busy.slice(-8).map((f) => f.rows / (f.addBatchMs / 1000)));
  const rows = busy.map((f) => f.rows);
  if (busy.length >= 6 && Math.max(...rows) >= 1.3 * Math.min(...rows)) {
    const msPerRow = theilSen(rows, busy.map((f) => f.addBatchMs));
    if (msPerRow > 0) return Math.min(Math.max(ratio, 1000 / msPerRow), 1.5 * ratio);
  }
  return ratio;
}

function trendWindow(
  features: readonly BatchFeatures[],
  series: number[],
): { xs: number[]; ys: number[] } {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = features.length - 1; i >= 0 && xs.length < 8; i -= 1) {
    const value = series[i]!;
    if (!Number.isFinite(value)) continue;
    const f = features[i]!;
    xs.unshift(f.t + f.d);
    ys.unshift(value);
    if (f.restart) break;
  }
  return { xs, ys };
}
