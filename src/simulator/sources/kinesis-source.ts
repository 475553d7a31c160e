/**
 * The Databricks Kinesis connector (`KinesisV2[stream]`): offsets are a list of shard positions
 * (sequence numbers as strings), `latestOffset` is null, and the backlog is printed as time:
 * `avgMsBehindLatest` / `maxMsBehindLatest` / `minMsBehindLatest`. Ms behind is modelled from the
 * truth (the age of the oldest record the batch left unread when it ends), because that is what
 * `MillisBehindLatest` of the shard iterators measures.
 */

import { javaDoubleToString, javaLongToString } from '../java-format.js';
import type { SeededRandom } from '../random.js';
import type { KinesisSourceSpec } from '../spec.js';
import { sortedMap, sourceProgress, type SimSource, type SourceRenderContext } from './source.js';

/** Gap between consecutive sequence numbers of a shard (real ones are 56 digits and far apart). */
const SEQ_STEP = 10_000_000_000_000_000n;

export class KinesisSource implements SimSource {
  readonly kind = 'kinesis' as const;
  readonly description: string;
  readonly inputTasks: number;
  readonly rowsPerUnit = 1;
  cap: number | null = null;
  private readonly stream: string;
  private readonly bytesPerRow: number;
  private readonly weights: number[];
  /** Shards do not lag equally: the busiest is furthest behind. */
  private readonly behindShare: number[];
  private readonly firstSeq: bigint[];
  private readonly carry: number[];
  private readonly arrivedPerShard: number[];
  private readonly consumedPerShard: number[];
  private plannedStart: number[];
  private plannedEnd: number[];
  private arrived = 0;
  private consumedTotal = 0;
  /** Ms behind per shard as printed in the previous report (the start position carries it). */
  private lastBehind: number[];

  constructor(spec: KinesisSourceSpec, random: SeededRandom) {
    this.stream = spec.stream ?? 'events';
    const shards = Math.max(1, Math.floor(spec.shards ?? 4));
    this.inputTasks = shards;
    this.bytesPerRow = spec.bytesPerRow ?? 450;
    this.description = `KinesisV2[${this.stream}]`;
    this.weights = Array.from({ length: shards }, () => Math.max(0.05, 1 + 0.1 * random.normal()));
    const total = this.weights.reduce((a, b) => a + b, 0);
    for (let s = 0; s < shards; s++) this.weights[s]! /= total;
    const top = Math.max(...this.weights);
    this.behindShare = this.weights.map((w) => 0.8 + (0.2 * w) / top);
    this.firstSeq = Array.from(
      { length: shards },
      (_, s) => 49_652_022_592_149_344_892_294_981_243_280_420_130_985_816_456_924_495_874n + BigInt(s) * 22_300_745_198_530_623_141_535_718_272_648_361_505_980_416n + BigInt(random.int(1_000_000)),
    );
    this.carry = new Array<number>(shards).fill(0);
    this.arrivedPerShard = new Array<number>(shards).fill(0);
    this.consumedPerShard = new Array<number>(shards).fill(0);
    this.plannedStart = [...this.consumedPerShard];
    this.plannedEnd = [...this.consumedPerShard];
    this.lastBehind = new Array<number>(shards).fill(0);
  }

  receive(rows: number): void {
    if (rows <= 0) return;
    for (let s = 0; s < this.weights.length; s++) {
      const share = rows * this.weights[s]! + this.carry[s]!;
      const whole = Math.floor(share);
      this.carry[s] = share - whole;
      this.arrivedPerShard[s]! += whole;
      this.arrived += whole;
    }
  }

  availableRows(): number {
    return this.arrived - this.consumedTotal;
  }

  plan(): number {
    this.plannedStart = [...this.consumedPerShard];
    this.plannedEnd = [...this.arrivedPerShard];
    return this.arrived - this.consumedTotal;
  }

  commit(): void {
    for (let s = 0; s < this.plannedEnd.length; s++) {
      this.consumedTotal += this.plannedEnd[s]! - this.consumedPerShard[s]!;
      this.consumedPerShard[s] = this.plannedEnd[s]!;
    }
  }

  backlogRows(): number {
    return this.arrived - this.consumedTotal;
  }

  arrivedRows(): number {
    return this.arrived;
  }

  consumedRows(): number {
    return this.consumedTotal;
  }

  private positions(records: number[], behind: number[]): Record<string, unknown>[] {
    return records.map((n, s) => {
      const last = (this.firstSeq[s]! + BigInt(Math.max(0, n - 1)) * SEQ_STEP).toString();
      return {
        shard: { stream: this.stream, shardId: `shardId-${String(s).padStart(12, '0')}` },
        firstSeqNum: this.firstSeq[s]!.toString(),
        lastSeqNum: last,
        closed: false,
        msBehindLatest: javaLongToString(behind[s]!),
        lastRecordSeqNum: last,
      };
    });
  }

  render(ctx: SourceRenderContext): Record<string, unknown> {
    const behindMs = ctx.oldestUnreadAtMs === null ? 0 : Math.max(0, ctx.reportMs - ctx.oldestUnreadAtMs);
    const behind = this.behindShare.map((share) => Math.round(behindMs * share));
    const unreadBytes = (this.arrived - this.consumedTotal - (ctx.rows > 0 ? ctx.rows : 0)) * this.bytesPerRow;
    const metrics = sortedMap<string>([
      ['avgMsBehindLatest', javaDoubleToString(behind.reduce((a, b) => a + b, 0) / behind.length)],
      ['maxMsBehindLatest', javaLongToString(Math.max(...behind))],
      ['minMsBehindLatest', javaLongToString(Math.min(...behind))],
      ['mode', 'efo'],
      ['numClosedShards', '0'],
      ['numProcessedBytes', javaLongToString(ctx.rows * this.bytesPerRow)],
      ['numProcessedRecords', javaLongToString(ctx.rows)],
      ['numRegisteredConsumers', '1'],
      ['numStreams', '1'],
      ['numTotalShards', javaLongToString(this.weights.length)],
      // The enhanced fan-out consumer keeps pushing into a bounded buffer while a batch runs.
      ['totalPrefetchedBytes', javaLongToString(Math.min(Math.max(0, unreadBytes), 64 * 1024 * 1024 * this.weights.length))],
    ]);
    const start = ctx.firstBatch ? null : this.positions(this.plannedStart, this.lastBehind);
    this.lastBehind = behind;
    return sourceProgress(
      this.description,
      start,
      this.positions(this.plannedEnd, behind),
      null,
      ctx,
      metrics,
    );
  }
}
