/**
 * The numbers the detectors need from one progress report, extracted once per batch. The tracker
 * keeps only a fixed ring of these, never the reports themselves, so memory per query is bounded.
 */
import type { Progress, SourceProgress } from '../progress/types.js';
import { isoMs } from '../progress/values.js';

export interface BatchFeatures {
  batchId: number | null;
  /** Trigger start, epoch ms. */
  t: number;
  /** Batch duration, ms. */
  d: number;
  rows: number;
  inRate: number | null;
  procRate: number | null;
  /** durationMs.addBatch (the busy part), ms; falls back to the batch duration. */
  addBatchMs: number;
  /** durationMs.commitBatch (Databricks sink commit), ms. */
  sinkCommitMs: number;
  /** Sum of Kafka latest / end offsets over every partition (null when not reported). */
  kafkaLatest: number | null;
  kafkaEnd: number | null;
  /** Kafka offsets behind latest after this batch (offsets, else the metrics). */
  kafkaBehind: number | null;
  /** Delta / Auto Loader files and bytes outstanding. */
  filesOutstanding: number | null;
  bytesOutstanding: number | null;
  /** Kinesis maxMsBehindLatest. */
  msBehind: number | null;
  /** Files this batch read (Auto Loader: growth of the offset's seqNum); null when unknown. */
  filesRead: number | null;
  /**
   * Files a Delta source's batch read when its start and end offsets lie in one table version
   * (growth of `index`); null otherwise: a batch across versions read the rest of one whose size
   * the offsets do not give.
   */
  filesInCommit: number | null;
  /** Total state rows / bytes over all stateful operators (null when stateless). */
  stateRows: number | null;
  stateBytes: number | null;
  stateRemoved: number;
  stateUpdated: number;
  /** Sum of state commit times, ms. */
  stateCommitMs: number;
  /** controlBatch.REPARTITION, ms. */
  repartitionMs: number | null;
  /** 1 when the plan has a watermark. */
  watermark: number;
  /** 1 when this report starts a new run (runId changed). */
  restart: number;
  /** Derived by the tracker from the history: arrival rate (rows/s) and time behind (s). */
  arrival: number | null;
  timeBehindSec: number | null;
  /**
   * Per Kafka source (in report order), when there are several: latest-offset sum, offsets
   * behind, rows read, and the derived arrival rate. One lagging source of a join or union is
   * hidden in the totals, so time behind is judged per source. Empty for a single source.
   */
  kLatest: readonly (number | null)[];
  kBehind: readonly (number | null)[];
  kRows: readonly number[];
  kArrival: readonly (number | null)[];
}

/** Per-query facts that change rarely; kept once, not per batch. */
export interface QueryFacts {
  sourceKinds: string[];
  kafkaPartitions: number;
  kafkaTopics: string[];
  sink: string;
  stateProvider: 'rocksdb' | 'hdfs' | 'unknown' | null;
  shufflePartitions: number | null;
  stateOperators: string[];
  eventTimeSpreadMs: number | null;
}

interface KafkaTotals {
  sum: number;
  partitions: number;
}

/** Sum over `{"topic": {"partition": offset}}` objects; null when absent or unreadable. */
function kafkaOffsetTotal(offset: unknown): KafkaTotals | null {
  if (typeof offset !== 'object' || offset === null || Array.isArray(offset)) return null;
  let sum = 0;
  let partitions = 0;
  const topics = offset as Record<string, unknown>;
  for (const topic in topics) {
    const byPartition = topics[topic];
    if (typeof byPartition !== 'object' || byPartition === null) continue;
    // Object.values, not for…in: partition keys are array indices, which for…in enumerates on a
    // slow path (same order, several times slower on the hot path).
    const values = Object.values(byPartition as Record<string, unknown>);
    for (let i = 0; i < values.length; i += 1) {
      const value = values[i];
      if (typeof value === 'number' && Number.isFinite(value)) {
        sum += value;
        partitions += 1;
      }
    }
  }
  return partitions > 0 ? { sum, partitions } : null;
}

/** Auto Loader offsets carry a file sequence number: end − start is the files a batch read. */
function seqNumGrowth(start: unknown, end: unknown): number | null {
  const seq = (offset: unknown): number | null => {
    if (typeof offset !== 'object' || offset === null) return null;
    const value = (offset as Record<string, unknown>).seqNum;
    return typeof value === 'number' && Number.isFinite(value) ? value : null;
  };
  const a = seq(start);
  const b = seq(end);
  return a !== null && b !== null && b >= a ? b - a : null;
}

/**
 * Delta offsets name a table version and the index of the last file read in it (-1: none yet;
 * -20 and -19 mark schema changes; a version read to its end moves on to the next one's -1):
 * within one version, end − start is the files a batch read.
 */
function indexGrowth(start: unknown, end: unknown): number | null {
  if (typeof start !== 'object' || start === null || typeof end !== 'object' || end === null) return null;
  const a = start as Record<string, unknown>;
  const b = end as Record<string, unknown>;
  if (a.reservoirId !== b.reservoirId || typeof a.reservoirVersion !== 'number' || a.reservoirVersion !== b.reservoirVersion || a.isStartingVersion !== b.isStartingVersion) return null;
  const from = a.index;
  const to = b.index;
  // Safe integers: an index near the end of the long range marks a version's end, never a file.
  if (typeof from !== 'number' || typeof to !== 'number' || !Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < -1 || to < from) return null;
  return to - from;
}

function metric(source: SourceProgress, key: string): number | null {
  const value = source.metrics[key];
  return typeof value === 'number' ? value : null;
}

/** The shared empty list of per-source figures (frozen: features are read, never appended to). */
const NONE: readonly never[] = Object.freeze([]);

export function extractFeatures(p: Progress, previousRunId: string | null): BatchFeatures {
  let kafkaLatest: number | null = null;
  let kafkaEnd: number | null = null;
  let kafkaBehind: number | null = null;
  let filesOutstanding: number | null = null;
  let bytesOutstanding: number | null = null;
  let msBehind: number | null = null;
  let filesRead: number | null = null;
  let filesInCommit: number | null = null;
  let deltaSpansVersions = false;
  let latestComplete = true;
  // Per-source figures only when several Kafka sources report (one source is the totals).
  let kafkaSources = 0;
  for (const source of p.sources) if (source.kind === 'kafka') kafkaSources += 1;
  const several = kafkaSources > 1;
  const kLatest: (number | null)[] | null = several ? [] : null;
  const kBehind: (number | null)[] | null = several ? [] : null;
  const kRows: number[] | null = several ? [] : null;
  for (const source of p.sources) {
    if (source.kind === 'kafka') {
      const end = kafkaOffsetTotal(source.endOffset);
      const latest = kafkaOffsetTotal(source.latestOffset);
      // Offsets first; the metrics when the offsets cannot say. Some runtimes print `latestOffset`
      // equal to `endOffset` (read at planning) while the metrics carry a backlog read later:
      // then the non-zero metric is the truer figure, and end + behind the truer latest offset
      // (the printed one grows with what was read, not with what arrived).
      let latestSum = latest ? latest.sum : null;
      let behind: number | null = null;
      if (end && latest && end.partitions === latest.partitions) behind = Math.max(0, latest.sum - end.sum);
      if (behind === null || behind === 0) {
        const avg = metric(source, 'avgOffsetsBehindLatest');
        const fromMetrics = avg !== null && end ? avg * end.partitions : metric(source, 'maxOffsetsBehindLatest');
        if (fromMetrics !== null && (behind === null || fromMetrics > 0)) {
          behind = fromMetrics;
          if (end && latest && fromMetrics > 0) latestSum = end.sum + fromMetrics;
        }
      }
      if (end) kafkaEnd = (kafkaEnd ?? 0) + end.sum;
      if (latestSum !== null) kafkaLatest = (kafkaLatest ?? 0) + latestSum;
      else latestComplete = false;
      if (behind !== null) kafkaBehind = (kafkaBehind ?? 0) + behind;
      kLatest?.push(latestSum);
      kBehind?.push(behind);
      kRows?.push(source.numInputRows);
    } else if (source.kind === 'delta' || source.kind === 'autoloader') {
      const files = metric(source, 'numFilesOutstanding');
      const bytes = metric(source, 'numBytesOutstanding');
      if (files !== null) filesOutstanding = (filesOutstanding ?? 0) + files;
      if (bytes !== null) bytesOutstanding = (bytesOutstanding ?? 0) + bytes;
      const read = seqNumGrowth(source.startOffset, source.endOffset);
      if (read !== null) filesRead = (filesRead ?? 0) + read;
      if (source.kind === 'delta') {
        const within = indexGrowth(source.startOffset, source.endOffset);
        if (within === null) deltaSpansVersions = true;
        else filesInCommit = (filesInCommit ?? 0) + within;
      }
    } else if (source.kind === 'kinesis') {
      const ms = metric(source, 'maxMsBehindLatest');
      if (ms !== null) msBehind = Math.max(msBehind ?? 0, ms);
    }
  }
  if (!latestComplete) kafkaLatest = null;
  if (deltaSpansVersions) filesInCommit = null;

  let stateRows: number | null = null;
  let stateBytes: number | null = null;
  let stateRemoved = 0;
  let stateUpdated = 0;
  let stateCommitMs = 0;
  for (const op of p.stateOperators) {
    stateRows = (stateRows ?? 0) + op.numRowsTotal;
    const sst = op.customMetrics.rocksdbSstFileSize;
    stateBytes = (stateBytes ?? 0) + (sst !== undefined && sst > 0 ? sst : op.memoryUsedBytes);
    stateRemoved += op.numRowsRemoved;
    stateUpdated += op.numRowsUpdated;
    stateCommitMs += op.commitTimeMs;
  }

  const durations = p.durationMs;
  return {
    batchId: p.batchId,
    t: p.timestampMs,
    d: p.batchDurationMs,
    rows: p.numInputRows,
    inRate: p.inputRowsPerSecond,
    procRate: p.processedRowsPerSecond,
    addBatchMs: durations.addBatch ?? p.batchDurationMs,
    sinkCommitMs: durations.commitBatch ?? 0,
    kafkaLatest,
    kafkaEnd,
    kafkaBehind,
    filesOutstanding,
    bytesOutstanding,
    msBehind,
    filesRead,
    filesInCommit,
    stateRows,
    stateBytes,
    stateRemoved,
    stateUpdated,
    stateCommitMs,
    repartitionMs: durations['controlBatch.REPARTITION'] ?? null,
    watermark: p.eventTime.watermark !== undefined ? 1 : 0,
    restart: previousRunId !== null && p.runId !== '' && p.runId !== previousRunId ? 1 : 0,
    arrival: null,
    timeBehindSec: null,
    kLatest: kLatest ?? NONE,
    kBehind: kBehind ?? NONE,
    kRows: kRows ?? NONE,
    kArrival: NONE,
  };
}

function hasKeyStartingWith(map: Record<string, number>, prefix: string): boolean {
  for (const key in map) if (key.startsWith(prefix)) return true;
  return false;
}

/** Facts about the query's shape from its latest report. */
export function extractFacts(p: Progress): QueryFacts {
  const kinds = new Set<string>();
  const topics = new Set<string>();
  let partitions = 0;
  for (const source of p.sources) {
    kinds.add(source.kind);
    if (source.kind !== 'kafka') continue;
    const offsets = source.endOffset ?? source.startOffset;
    if (typeof offsets === 'object' && offsets !== null && !Array.isArray(offsets)) {
      const byTopic = offsets as Record<string, unknown>;
      for (const topic in byTopic) {
        topics.add(topic);
        const byPartition = byTopic[topic];
        if (typeof byPartition === 'object' && byPartition !== null) {
          partitions += Object.keys(byPartition).length;
        }
      }
    } else {
      const match = /\[(?:Subscribe|Assign|SubscribePattern)\[([^\]]*)\]/.exec(source.description);
      if (match) topics.add(match[1]!);
    }
  }
  let provider: QueryFacts['stateProvider'] = null;
  let shuffle: number | null = null;
  const operators: string[] = [];
  for (const op of p.stateOperators) {
    operators.push(op.operatorName ?? 'stateful operator');
    if (hasKeyStartingWith(op.customMetrics, 'rocksdb')) provider = 'rocksdb';
    else if (provider === null && Object.hasOwn(op.customMetrics, 'loadedMapCacheHitCount')) provider = 'hdfs';
    else if (provider === null) provider = 'unknown';
    if (op.numShufflePartitions !== null) {
      shuffle = shuffle === null ? op.numShufflePartitions : Math.min(shuffle, op.numShufflePartitions);
    }
  }
  let spread: number | null = null;
  if (p.eventTime.max && p.eventTime.min) {
    const value = isoMs(p.eventTime.max) - isoMs(p.eventTime.min);
    spread = Number.isFinite(value) ? value : null;
  }
  return {
    sourceKinds: [...kinds],
    kafkaPartitions: partitions,
    kafkaTopics: [...topics].slice(0, 5),
    sink: p.sink.description.slice(0, 120),
    stateProvider: provider,
    shufflePartitions: shuffle,
    stateOperators: operators.slice(0, 5),
    eventTimeSpreadMs: spread,
  };
}

/**
 * Rows per second batch `i` read over the time since the batch before it began (what arrived in
 * that time when it read all there was; what the query admits when it read the cap), null across a
 * restart or without a batch before.
 */
export function intervalRate(features: readonly BatchFeatures[], i: number): number | null {
  const f = features[i]!;
  const previous = features[i - 1];
  if (previous === undefined || f.restart || !(f.t > previous.t)) return null;
  return f.rows / ((f.t - previous.t) / 1000);
}
