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
import { PartitionedLog } from './partitioned-log.js';
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
  private readonly log: PartitionedLog;
  /** Shards do not lag equally: the busiest is furthest behind. */
  private readonly behindShare: number[];
  private readonly firstSeq: bigint[];
  private plannedStart: number[];
  private plannedEnd: number[];
  /** Ms behind per shard as printed in the previous report (the start position carries it). */
  private lastBehind: number[];

  constructor(spec: KinesisSourceSpec, random: SeededRandom) {
    this.stream = spec.stream ?? 'events';
    const shards = Math.max(1, Math.floor(spec.shards ?? 4));
    this.inputTasks = shards;
    this.bytesPerRow = spec.bytesPerRow ?? 450;
    this.description = `KinesisV2[${this.stream}]`;
    const weights = Array.from({ length: shards }, () => Math.max(0.05, 1 + 0.1 * random.normal()));
    const total = weights.reduce((a, b) => a + b, 0);
    for (let s = 0; s < shards; s++) weights[s]! /= total;
    const top = Math.max(...weights);
    this.behindShare = weights.map((w) => 0.8 + (0.2 * w) / top);
    this.firstSeq = Array.from(
      { length: shards },
      (_, s) => 49_652_022_592_149_344_892_294_981_243_280_420_130_985_816_456_924_495_874n + BigInt(s) * 22_300_745_198_530_623_141_535_718_272_648_361_505_980_416n + BigInt(random.int(1_000_000)),
    );
    this.log = new PartitionedLog(weights, new Array<number>(shards).fill(0));
    this.plannedStart = [...this.log.consumed];
    this.plannedEnd = [...this.log.consumed];
    this.lastBehind = new Array<number>(shards).fill(0);
  }

  receive(rows: number): void {
    this.log.receive(rows);
  }

  availableRows(): number {
    return this.log.backlogRows();
  }

  plan(): number {
    this.plannedStart = [...this.log.consumed];
    this.plannedEnd = [...this.log.latest];
    return this.log.backlogRows();
  }

  commit(): void {
    this.log.commit(this.plannedEnd);
  }

  backlogRows(): number {
    return this.log.backlogRows();
  }

  arrivedRows(): number {
    return this.log.arrivedRows();
  }

  consumedRows(): number {
    return this.log.consumedRows();
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
    const unreadBytes = (this.log.backlogRows() - (ctx.rows > 0 ? ctx.rows : 0)) * this.bytesPerRow;
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
      ['numTotalShards', javaLongToString(this.log.partitions)],
      // The enhanced fan-out consumer keeps pushing into a bounded buffer while a batch runs.
      ['totalPrefetchedBytes', javaLongToString(Math.min(Math.max(0, unreadBytes), 64 * 1024 * 1024 * this.log.partitions))],
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
