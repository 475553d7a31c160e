/**
 * The state of one stateful operator: keys created per batch, expired by the watermark (when the
 * plan has one), their bytes, the commit cost, and `StateOperatorProgress` as Spark prints it for the
 * RocksDB or the in-memory (HDFS-backed) provider.
 */

import { sortedMap } from './sources/source.js';
import type { ResolvedState } from './spec.js';

const GB = 1024 ** 3;

export interface StateBatchResult {
  /** Extra batch time (ms) that the state causes besides the commit: lookups, GC. */
  workMs: number;
  commitMs: number;
  gcMs: number;
  updated: number;
  removed: number;
}

export class StateStoreModel {
  /** Keys by creation event time, oldest first; buckets are merged so the list stays short. */
  private buckets: { eventMs: number; keys: number }[] = [];
  private total: number;
  private lastUpdated = 0;
  private lastRemoved = 0;
  private lastCommitMs = 0;
  private lastRows = 0;
  private cumulativeBytesWritten = 0;
  partitions: number;

  constructor(
    readonly spec: ResolvedState,
    partitions: number,
    startMs: number,
  ) {
    this.partitions = partitions;
    this.total = Math.round(spec.initialRows);
    if (this.total > 0) {
      // With a watermark, initial keys are spread over the live window so they expire gradually,
      // as they would in a query that has been running for a while.
      const span = spec.watermarkMs ?? 0;
      const pieces = span > 0 ? 30 : 1;
      let left = this.total;
      for (let i = 0; i < pieces; i++) {
        const keys = i === pieces - 1 ? left : Math.floor(this.total / pieces);
        left -= keys;
        this.buckets.push({ eventMs: startMs - span + ((i + 1) * span) / pieces, keys });
      }
    }
  }

  get rows(): number {
    return this.total;
  }

  get bytes(): number {
    return this.total * this.spec.bytesPerRow;
  }

  /**
   * Applies one batch of `rows` input rows whose event times span [minEventMs, maxEventMs];
   * `watermarkMs` is the batch's watermark.
   */
  apply(rows: number, minEventMs: number, maxEventMs: number, watermarkMs: number | null): StateBatchResult {
    const created = Math.round(rows * this.spec.newKeysPerRow);
    if (created > 0) {
      // New keys carry the event times of the rows that made them: spread over the batch's range in
      // pieces of at least a minute (at most 20), so a long batch's keys expire gradually.
      const span = Math.max(0, maxEventMs - minEventMs);
      const pieces = Math.max(1, Math.min(20, Math.floor(span / 60_000)));
      let left = created;
      for (let i = 0; i < pieces; i++) {
        const keys = i === pieces - 1 ? left : Math.floor(created / pieces);
        left -= keys;
        const eventMs = minEventMs + ((i + 1) * span) / pieces;
        const last = this.buckets[this.buckets.length - 1];
        // Merge into the last bucket when it is close in time, bounding the bucket count.
        if (last && eventMs - last.eventMs < 60_000) last.keys += keys;
        else this.buckets.push({ eventMs, keys });
      }
      if (this.buckets.length > 2_000) {
        const [a, b] = this.buckets.splice(0, 2) as [{ eventMs: number; keys: number }, { eventMs: number; keys: number }];
        this.buckets.unshift({ eventMs: b.eventMs, keys: a.keys + b.keys });
      }
    }
    this.total += created;
    let removed = 0;
    if (this.spec.watermarkMs !== null && watermarkMs !== null) {
      while (this.buckets.length > 0 && this.buckets[0]!.eventMs < watermarkMs) {
        removed += this.buckets.shift()!.keys;
      }
      this.total -= removed;
    }
    const updated = Math.min(this.total, created + Math.round(rows * this.spec.updatesPerRow));
    const gb = this.bytes / GB;
    const commitMs =
      this.spec.commitBaseMs +
      (updated / 1e6) * this.spec.commitMsPerMillionUpdated +
      gb * this.spec.commitMsPerGb;
    const gcMs =
      this.spec.provider === 'hdfs' ? gb * this.spec.gcMsPerGb + (rows / 1e6) * gb * this.spec.gcMsPerGbPerMillionRows : 0;
    const workMs = (this.total / 1e6) * this.spec.msPerMillionRows;
    this.lastUpdated = updated;
    this.lastRemoved = removed;
    this.lastCommitMs = Math.round(commitMs);
    this.lastRows = rows;
    this.cumulativeBytesWritten = updated * this.spec.bytesPerRow;
    return { workMs, commitMs, gcMs, updated, removed };
  }

  /** A no-data trigger: nothing updated (Spark reports `numRowsUpdated` 0). */
  idle(): void {
    this.lastUpdated = 0;
    this.lastRemoved = 0;
    this.lastCommitMs = 0;
    this.lastRows = 0;
    this.cumulativeBytesWritten = 0;
  }

  /** Time of a state repartition of the current state, ms. */
  repartitionMs(): number {
    return Math.round(this.spec.repartitionBaseMs + (this.bytes / GB) * this.spec.repartitionMsPerGb);
  }

  private customMetrics(): Record<string, number> | undefined {
    const bytes = this.bytes;
    if (this.spec.provider === 'hdfs') {
      return sortedMap<number>([
        ['loadedMapCacheHitCount', this.partitions * 2],
        ['loadedMapCacheMissCount', 0],
        ['stateOnCurrentVersionSizeBytes', Math.round(bytes * 1.6)],
      ]);
    }
    const updated = this.lastUpdated;
    const written = this.cumulativeBytesWritten;
    const sst = Math.round(bytes * 0.45);
    const entries: [string, number][] = [
      ['rocksdbBytesCopied', Math.round(written * 0.4)],
      ['rocksdbCommitCheckpointLatency', Math.round(this.lastCommitMs * 0.02)],
      ['rocksdbCommitCompactLatency', 0],
      ['rocksdbCommitFileSyncLatencyMs', Math.round(this.lastCommitMs * 0.6)],
      ['rocksdbCommitFlushLatency', Math.round(this.lastCommitMs * 0.3)],
      ['rocksdbFilesCopied', Math.ceil(written / (64 * 1024 * 1024))],
      ['rocksdbFilesReused', Math.ceil(sst / (64 * 1024 * 1024))],
      ['rocksdbGetCount', this.lastRows],
      ['rocksdbGetLatency', Math.round(this.lastRows * 0.02)],
      ['rocksdbPinnedBlocksMemoryUsage', 0],
      ['rocksdbPutCount', updated],
      ['rocksdbPutLatency', Math.round(updated * 0.02)],
      ['rocksdbReadBlockCacheHitCount', Math.round(this.lastRows * 0.65)],
      ['rocksdbReadBlockCacheMissCount', Math.round(this.lastRows * 0.35)],
      ['rocksdbSstFileSize', sst],
      ['rocksdbTotalBytesRead', this.lastRows * this.spec.bytesPerRow],
      ['rocksdbTotalBytesReadByCompaction', 0],
      ['rocksdbTotalBytesReadThroughIterator', this.lastRemoved * this.spec.bytesPerRow],
      ['rocksdbTotalBytesWritten', written],
      ['rocksdbTotalBytesWrittenByCompaction', 0],
      ['rocksdbTotalBytesWrittenByFlush', Math.round(written * 0.9)],
      ['rocksdbTotalCompactionLatencyMs', 0],
      ['rocksdbWriterStallLatencyMs', 0],
      ['rocksdbZipFileBytesUncompressed', 188_416],
    ];
    return sortedMap(entries);
  }

  /** `StateOperatorProgress` in Spark's key order. */
  render(): Record<string, unknown> {
    const memory =
      this.spec.provider === 'hdfs'
        ? Math.round(this.bytes * 1.6) // JVM object overhead on the heap
        : Math.min(Math.round(this.bytes * 0.05), 512 * 1024 * 1024) + 4 * 1024 * 1024;
    const instances = this.spec.operator === 'symmetricHashJoin' ? this.partitions * 4 : this.partitions;
    const out: Record<string, unknown> = {
      operatorName: this.spec.operator,
      numRowsTotal: this.total,
      numRowsUpdated: this.lastUpdated,
      allUpdatesTimeMs: Math.round(this.lastUpdated * 0.01),
      numRowsRemoved: this.lastRemoved,
      allRemovalsTimeMs: Math.round(this.lastRemoved * 0.005),
      commitTimeMs: this.lastCommitMs,
      memoryUsedBytes: memory,
      numRowsDroppedByWatermark: 0,
      numShufflePartitions: this.partitions,
      numStateStoreInstances: instances,
    };
    let custom = this.customMetrics();
    if (this.spec.operator === 'dedupe') {
      custom = sortedMap([...Object.entries(custom ?? {}), ['numDroppedDuplicateRows', Math.max(0, this.lastRows - this.lastUpdated)]]);
    }
    if (custom) out.customMetrics = custom;
    return out;
  }
}
