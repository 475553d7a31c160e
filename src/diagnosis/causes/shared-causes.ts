/**
 * Causes several incident kinds share: partition counts against cores, state that never shrinks,
 * large state on the in-memory provider, slow state commits, a slow sink. Each returns null when the
 * data does not support it, else the cause with its numeric evidence and computed advice.
 * The facts they rest on: a Kafka query reads at most one task per partition, admission caps bound a
 * batch, state grows without a watermark, and a large state on the in-memory provider pressures
 * executor memory.
 */
import type { BatchFeatures, QueryFacts } from '../batch-features.js';
import { TUNING } from '../engine-options.js';
import * as fmt from '../format.js';
import { mannKendallZ, median } from '../statistics.js';
import { clamp, type Explained } from './explained.js';

export interface CauseInput {
  features: readonly BatchFeatures[];
  latest: BatchFeatures;
  facts: QueryFacts;
  cores: number | null;
}

export function kafkaPartitionBound(input: CauseInput, capacityBound: boolean): Explained | null {
  const { facts, cores } = input;
  const partitions = facts.kafkaPartitions;
  if (!cores || !capacityBound || !facts.sourceKinds.includes('kafka') || partitions <= 0) return null;
  if (partitions >= cores) return null;
  const idle = cores - partitions;
  return {
    cause: {
      code: 'kafka_partition_bound',
      confidence: 0.35 + 0.55 * (idle / cores),
      evidence: `${partitions} Kafka partitions feed ${cores} cores: each batch reads with at most ${partitions} tasks (one per partition), so ${idle} cores sit idle while reading.`,
    },
    advice: [
      {
        text: `Set the Kafka source option minPartitions to ${cores} (the core count) so each batch's reads split into about ${cores} tasks instead of ${partitions}.`,
        setting: 'minPartitions',
        value: String(cores),
      },
    ],
  };
}

export function tooFewShufflePartitions(input: CauseInput, capacityBound: boolean): Explained | null {
  const { facts, cores, latest } = input;
  const partitions = facts.shufflePartitions;
  if (!cores || !capacityBound || partitions === null || latest.stateRows === null) return null;
  if (partitions >= cores) return null;
  const target = cores * 2;
  const pauseMs = expectedRepartitionMs(latest.stateBytes ?? 0, input.features);
  return {
    cause: {
      code: 'too_few_shuffle_partitions',
      confidence: 0.35 + 0.55 * (1 - partitions / cores),
      evidence: `the stateful operators run ${partitions} state partitions on ${cores} cores, so at most ${partitions} tasks work on state at once and ${cores - partitions} cores wait.`,
    },
    advice: [
      {
        text: `Set spark.sql.streaming.stateStore.partitions to ${target} (2× the ${cores} cores) and restart on the same checkpoint (Databricks Runtime 18.3+, RocksDB state store); expect a repartition pause of about ${fmt.ms(pauseMs)} for ${fmt.bytes(latest.stateBytes ?? 0)} of state.`,
        setting: 'spark.sql.streaming.stateStore.partitions',
        value: String(target),
      },
    ],
  };
}

/** Repartition time for `stateBytes`: from this query's own past repartition when there is one. */
export function expectedRepartitionMs(stateBytes: number, features: readonly BatchFeatures[]): number {
  const gb = stateBytes / 1024 ** 3;
  for (let i = features.length - 1; i >= 1; i -= 1) {
    const f = features[i]!;
    const before = features[i - 1]!.stateBytes;
    if (f.repartitionMs !== null && before !== null && before > 0) {
      const perGb = Math.max(0, f.repartitionMs - TUNING.repartitionBaseMs) / (before / 1024 ** 3);
      return Math.round(TUNING.repartitionBaseMs + perGb * gb);
    }
  }
  return Math.round(TUNING.repartitionBaseMs + TUNING.repartitionMsPerGb * gb);
}

/** State rows that keep rising with nothing removed. */
export function stateGrowthStats(features: readonly BatchFeatures[]): {
  z: number;
  first: number;
  last: number;
  removed: number;
  batches: number;
} | null {
  const withState = features.filter((f) => f.stateRows !== null);
  if (withState.length < 6) return null;
  const rows = withState.map((f) => f.stateRows!);
  let removed = 0;
  for (const f of withState) removed += f.stateRemoved;
  return {
    z: mannKendallZ(rows, 0.0005),
    first: rows[0]!,
    last: rows[rows.length - 1]!,
    removed,
    batches: withState.length,
  };
}

export function unboundedState(input: CauseInput, baseConfidence: number): Explained | null {
  const stats = stateGrowthStats(input.features);
  if (!stats || stats.z < 2.5 || stats.last <= stats.first) return null;
  const watermark = input.latest.watermark === 1;
  if (stats.removed > 0.01 * (stats.last - stats.first)) return null;
  const steps = Math.max(1, stats.batches - 1);
  const perBatch = (stats.last - stats.first) / steps;
  const operators = input.facts.stateOperators.join(', ') || 'the stateful operators';
  const delay = watermarkDelay(input.facts.eventTimeSpreadMs);
  const dedupe = input.facts.stateOperators.some((name) => name.startsWith('dedupe'));
  return {
    cause: {
      code: 'unbounded_state',
      confidence: baseConfidence + (watermark ? 0 : 0.1),
      // The total and the steps are shown: N batches are N − 1 steps, and the rounded ends alone
      // do not give the per-batch figure back.
      evidence: `state rows grew from ${fmt.count(stats.first)} to ${fmt.count(stats.last)}: +${fmt.count(stats.last - stats.first)} over ${steps} steps between ${stats.batches} batches, +${fmt.count(perBatch)} per batch, with ${fmt.count(stats.removed)} removed${watermark ? ', although the query has a watermark' : ' and no watermark'} (${operators}).`,
    },
    advice: [
      watermark
        ? {
            text: `State is never evicted although a watermark exists: make sure the ${dedupe ? 'deduplication' : 'aggregation or join'} keys include the event-time column or window the watermark is on, so expired keys can be dropped.`,
          }
        : {
            text: `Add a watermark on the event-time column before the ${dedupe ? 'deduplication (or use dropDuplicatesWithinWatermark)' : 'aggregation or join'}, e.g. .withWatermark("event_time", "${delay}"), so Spark can drop state that can no longer change.`,
            setting: 'withWatermark',
            value: `"event_time", "${delay}"`,
          },
    ],
  };
}

/** A watermark delay people would write: twice the observed event-time spread, at least 10 minutes. */
function watermarkDelay(spreadMs: number | null): string {
  const minutes = Math.max(10, Math.ceil(((spreadMs ?? 0) * 2) / 60_000 / 5) * 5);
  return minutes >= 120 && minutes % 60 === 0 ? `${minutes / 60} hours` : `${minutes} minutes`;
}

export function stateStoreMemory(input: CauseInput): Explained | null {
  const { facts, latest } = input;
  if (facts.stateProvider !== 'hdfs' || latest.stateRows === null) return null;
  const bytes = latest.stateBytes ?? 0;
  if (bytes < 512 * 1024 ** 2 && latest.stateRows < 2_000_000) return null;
  const gcShare = jitter(input.features);
  return {
    cause: {
      code: 'state_store_memory',
      confidence: clamp(0.45 + Math.min(0.3, bytes / (8 * 1024 ** 3)) + (gcShare > 0.25 ? 0.15 : 0)),
      evidence: `${fmt.count(latest.stateRows)} state rows (${fmt.bytes(bytes)}) live on the default in-memory (HDFS-backed) state store, where large state means long GC pauses${gcShare > 0.25 ? `; batch durations vary by ${fmt.percent(gcShare)}` : ''}.`,
    },
    advice: [
      {
        text: 'Move the state off the JVM heap: use the RocksDB state store provider (on Databricks com.databricks.sql.streaming.state.RocksDBStateStoreProvider; in open-source Spark org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider). Set it before the query first starts from a new checkpoint.',
        setting: 'spark.sql.streaming.stateStore.providerClass',
        value: 'com.databricks.sql.streaming.state.RocksDBStateStoreProvider',
      },
    ],
  };
}

/** Relative spread of recent batch durations (GC pauses make them jumpy). */
function jitter(features: readonly BatchFeatures[]): number {
  const durations = features.slice(-12).map((f) => f.d);
  const center = median(durations);
  if (!(center > 0)) return 0;
  return median(durations.map((d) => Math.abs(d - center))) / center;
}

export function slowStateCommit(input: CauseInput): Explained | null {
  const recent = input.features.slice(-8).filter((f) => f.stateRows !== null && f.d > 0);
  if (recent.length < 3) return null;
  const share = median(recent.map((f) => f.stateCommitMs / f.d));
  if (!(share >= 0.25)) return null;
  const commit = median(recent.map((f) => f.stateCommitMs));
  const rocksdb = input.facts.stateProvider === 'rocksdb';
  return {
    cause: {
      code: 'slow_state_commit',
      confidence: clamp(0.3 + share),
      evidence: `state commits take ${fmt.ms(commit)}, ${fmt.percent(share)} of each batch.`,
    },
    advice: [
      rocksdb
        ? {
            text: 'Enable changelog checkpointing so each commit uploads only the changes, and consider asynchronous state checkpointing if commits still dominate.',
            setting: 'spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled',
            value: 'true',
          }
        : {
            text: 'Switch to the RocksDB state store with changelog checkpointing, so commits write only the changes instead of whole state files.',
            setting: 'spark.sql.streaming.stateStore.providerClass',
            value: 'com.databricks.sql.streaming.state.RocksDBStateStoreProvider',
          },
    ],
  };
}

export function slowSink(input: CauseInput): Explained | null {
  const recent = input.features.slice(-8).filter((f) => f.d > 0);
  if (recent.length < 3) return null;
  const share = median(recent.map((f) => f.sinkCommitMs / f.d));
  if (!(share >= 0.3)) return null;
  const commit = median(recent.map((f) => f.sinkCommitMs));
  const sink = input.facts.sink || 'the sink';
  return {
    cause: {
      code: 'slow_sink',
      confidence: clamp(0.25 + share),
      evidence: `committing to ${sink} (durationMs.commitBatch) takes ${fmt.ms(commit)}, ${fmt.percent(share)} of each batch.`,
    },
    advice: [
      {
        text: `Speed up the write to ${sink}: write in bulk inside foreachBatch rather than row by row, keep the target table compacted (few small files), and if it is a MERGE, limit how much of the table each batch rewrites.`,
      },
    ],
  };
}
