/**
 * Kafka source: per-partition offsets, `maxOffsetsPerTrigger` prorated over partitions by their
 * backlog, and the behind-latest metrics in both runtime semantics (latest read at planning, or after
 * the batch on Databricks Runtime 17.1+).
 */

import { javaDoubleToString, javaLongToString } from '../java-format.js';
import type { SeededRandom } from '../random.js';
import type { KafkaSourceSpec } from '../spec.js';
import { PartitionedLog } from './partitioned-log.js';
import { sortedMap, sourceProgress, type SimSource, type SourceRenderContext } from './source.js';

export class KafkaSource implements SimSource {
  readonly kind = 'kafka' as const;
  readonly description: string;
  readonly inputTasks: number;
  readonly rowsPerUnit = 1;
  cap: number | null;
  private readonly topic: string;
  private readonly bytesPerRow: number;
  private readonly latestOffsetAsEnd: boolean;
  private readonly log: PartitionedLog;
  private plannedStart: number[];
  private plannedEnd: number[];
  private latestAtPlan: number[];

  constructor(spec: KafkaSourceSpec, random: SeededRandom) {
    this.topic = spec.topic ?? 'events';
    const partitions = Math.max(1, Math.floor(spec.partitions ?? 8));
    this.inputTasks = Math.max(partitions, spec.minPartitions ?? 0);
    this.cap = spec.maxOffsetsPerTrigger ?? null;
    this.bytesPerRow = spec.bytesPerRow ?? 450;
    this.latestOffsetAsEnd = spec.latestOffsetAsEnd ?? false;
    this.description = `KafkaV2[Subscribe[${this.topic}]]`;
    const skew = spec.skew ?? 0.1;
    const weights = Array.from({ length: partitions }, () => Math.max(0.05, 1 + skew * random.normal()));
    const total = weights.reduce((a, b) => a + b, 0);
    for (let p = 0; p < partitions; p++) weights[p]! /= total;
    // Partitions of a long-lived topic do not start at the same offset.
    const base = spec.startingOffset ?? 1_000_000;
    this.log = new PartitionedLog(weights, Array.from({ length: partitions }, (_, p) => base + Math.floor(random.next() * 5_000) + p));
    this.plannedStart = [...this.log.latest];
    this.plannedEnd = [...this.log.latest];
    this.latestAtPlan = [...this.log.latest];
  }

  receive(rows: number): void {
    this.log.receive(rows);
  }

  availableRows(): number {
    const sum = this.log.backlogRows();
    return this.cap === null ? sum : Math.min(sum, this.cap);
  }

  plan(): number {
    this.latestAtPlan = [...this.log.latest];
    this.plannedStart = [...this.log.consumed];
    const lags = this.log.lags();
    const total = lags.reduce((a, b) => a + b, 0);
    if (this.cap === null || total <= this.cap) {
      this.plannedEnd = [...this.log.latest];
      return total;
    }
    // Prorate the cap by each partition's backlog and floor each share, a share below one offset
    // rounded up to one (Spark's KafkaMicroBatchStream.rateLimit): a capped batch reads up to P − 1
    // offsets short of the cap, more on a small cap over many partitions.
    const take = lags.map((lag) => {
      if (lag <= 0) return 0;
      const share = (this.cap! * lag) / total;
      return Math.min(lag, share < 1 ? Math.ceil(share) : Math.floor(share));
    });
    this.plannedEnd = this.log.consumed.map((c, p) => c + take[p]!);
    return take.reduce((a, b) => a + b, 0);
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

  private offsets(values: number[]): Record<string, Record<string, number>> {
    const partitions: Record<string, number> = {};
    values.forEach((v, p) => (partitions[String(p)] = v));
    return { [this.topic]: partitions };
  }

  render(ctx: SourceRenderContext): Record<string, unknown> {
    const latest = ctx.latestAfterBatch ? this.log.latest : this.latestAtPlan;
    const behind = latest.map((l, p) => Math.max(0, l - this.plannedEnd[p]!));
    const sum = behind.reduce((a, b) => a + b, 0);
    const entries: [string, string][] = [
      ['avgOffsetsBehindLatest', javaDoubleToString(sum / behind.length)],
      ['maxOffsetsBehindLatest', javaLongToString(Math.max(...behind))],
      ['minOffsetsBehindLatest', javaLongToString(Math.min(...behind))],
    ];
    if (ctx.databricks) {
      entries.push(['estimatedTotalBytesBehindLatest', javaDoubleToString(sum * this.bytesPerRow)]);
    }
    return sourceProgress(
      this.description,
      ctx.firstBatch ? null : this.offsets(this.plannedStart),
      this.offsets(this.plannedEnd),
      this.offsets(this.latestOffsetAsEnd ? this.plannedEnd : latest),
      ctx,
      sortedMap(entries),
    );
  }
}
