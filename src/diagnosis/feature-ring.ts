/**
 * A fixed-size ring of per-batch features: the whole memory a tracker has of a query's past.
 * Serializes to arrays of numbers in a fixed key order so the state stored per query stays small.
 */
import type { BatchFeatures } from './batch-features.js';

/**
 * Key order of the serialized tuples; append only, never reorder (stored state depends on it). A
 * retired key keeps its slot as `null`: written as null, skipped when read.
 */
const KEYS = [
  'batchId',
  't',
  'd',
  'rows',
  'inRate',
  'procRate',
  'addBatchMs',
  'sinkCommitMs',
  'kafkaLatest',
  'kafkaEnd',
  null, // kafkaStart: retired, nothing read it
  'kafkaBehind',
  'filesOutstanding',
  'bytesOutstanding',
  'msBehind',
  'stateRows',
  'stateBytes',
  'stateRemoved',
  'stateUpdated',
  'stateCommitMs',
  'repartitionMs',
  'watermark',
  'restart',
  'arrival',
  'timeBehindSec',
  'kLatest',
  'kBehind',
  'kRows',
  'kArrival',
  'filesRead',
  'filesInCommit',
] as const satisfies readonly (keyof BatchFeatures | null)[];

const ARRAY_KEYS = new Set<string>(['kLatest', 'kBehind', 'kRows', 'kArrival']);

const NULLABLE_DEFAULT_ZERO = new Set<string>([
  'stateRemoved',
  'stateUpdated',
  'stateCommitMs',
  'watermark',
  'restart',
  'sinkCommitMs',
]);

export type SerializedFeatures = (number | null | (number | null)[])[];

export class FeatureRing {
  private items: BatchFeatures[] = [];

  constructor(readonly capacity: number) {}

  push(item: BatchFeatures): void {
    this.items.push(item);
    if (this.items.length > this.capacity) this.items.shift();
  }

  /** Replaces the newest item (a retried batch reported again). */
  replaceLast(item: BatchFeatures): void {
    if (this.items.length === 0) this.items.push(item);
    else this.items[this.items.length - 1] = item;
  }

  get size(): number {
    return this.items.length;
  }

  last(): BatchFeatures | undefined {
    return this.items[this.items.length - 1];
  }

  /** The newest `count` items, oldest first (all when count is larger). */
  recent(count: number): BatchFeatures[] {
    return this.items.slice(Math.max(0, this.items.length - count));
  }

  all(): readonly BatchFeatures[] {
    return this.items;
  }

  toJSON(): SerializedFeatures[] {
    return this.items.map((item) =>
      KEYS.map((key) => {
        if (key === null) return null;
        const value = item[key];
        // Array.isArray does not narrow readonly arrays: test the other way round.
        return typeof value === 'number' || value === null ? roundForStorage(value) : value.map((v) => roundForStorage(v));
      }),
    );
  }

  static fromJSON(rows: unknown, capacity: number): FeatureRing {
    const ring = new FeatureRing(capacity);
    if (!Array.isArray(rows)) return ring;
    for (const row of rows.slice(-capacity)) {
      if (!Array.isArray(row)) continue;
      const item: Record<string, unknown> = {};
      KEYS.forEach((key, index) => {
        if (key === null) return;
        const value = row[index];
        if (ARRAY_KEYS.has(key)) {
          item[key] = Array.isArray(value)
            ? value.map((v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null))
            : [];
          if (key === 'kRows') item[key] = (item[key] as (number | null)[]).map((v) => v ?? 0);
          return;
        }
        item[key] =
          typeof value === 'number' && Number.isFinite(value)
            ? value
            : NULLABLE_DEFAULT_ZERO.has(key)
              ? 0
              : null;
      });
      if (typeof item.t !== 'number' || typeof item.d !== 'number' || typeof item.rows !== 'number') continue;
      ring.items.push(item as unknown as BatchFeatures);
    }
    return ring;
  }
}

/** Keeps stored numbers short: integers as they are, others to 4 significant digits. */
function roundForStorage(value: number | null): number | null {
  if (value === null || !Number.isFinite(value)) return null;
  if (Number.isInteger(value)) return value;
  return Number(value.toPrecision(4));
}
