/**
 * Kafka source: per-partition offsets, `maxOffsetsPerTrigger` prorated over partitions by their
 * backlog, and the behind-latest metrics in both runtime semantics (latest read at planning, or after
 * the batch on Databricks Runtime 17.1+).
 */

import { javaDoubleToString, javaLongToString } from '../java-format.js';
import type { SeededRandom } from '../random.js';
import type { KafkaSourceSpec } from '../spec.js';
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
  private readonly weights: number[];
  private readonly carry: number[];
  private readonly latest: number[];
  private readonly consumed: number[];
  private plannedStart: number[];
  private plannedEnd: number[];
  private latestAtPlan: number[];
  private arrived = 0;
  private consumedTotal = 0;

  constructor(spec: KafkaSourceSpec, random: SeededRandom) {
    this.topic = spec.topic ?? 'events';
    const partitions = Math.max(1, Math.floor(spec.partitions ?? 8));
    this.inputTasks = Math.max(partitions, spec.minPartitions ?? 0);
    this.cap = spec.maxOffsetsPerTrigger ?? null;
    this.bytesPerRow = spec.bytesPerRow ?? 450;
    this.latestOffsetAsEnd = spec.latestOffsetAsEnd ?? false;
    this.description = `KafkaV2[Subscribe[${this.topic}]]`;
    const skew = spec.skew ?? 0.1;
    this.weights = Array.from({ length: partitions }, () => Math.max(0.05, 1 + skew * random.normal()));
    const total = this.weights.reduce((a, b) => a + b, 0);
    for (let p = 0; p < partitions; p++) this.weights[p]! /= total;
    this.carry = new Array<number>(partitions).fill(0);
    // Partitions of a long-lived topic do not start at the same offset.
    const base = spec.startingOffset ?? 1_000_000;
    this.latest = Array.from({ length: partitions }, (_, p) => base + Math.floor(random.next() * 5_000) + p);
    this.consumed = [...this.latest];
    this.plannedStart = [...this.latest];
    this.plannedEnd = [...this.latest];
    this.latestAtPlan = [...this.latest];
  }

  receive(rows: number): void {
    if (rows <= 0) return;
    let added = 0;
    for (let p = 0; p < this.latest.length; p++) {
      const share = rows * this.weights[p]! + this.carry[p]!;
      const whole = Math.floor(share);
      this.carry[p] = share - whole;
      this.latest[p]! += whole;
      added += whole;
    }
    this.arrived += added;
  }

  availableRows(): number {
    let sum = 0;
    for (let p = 0; p < this.latest.length; p++) sum += this.latest[p]! - this.consumed[p]!;
    return this.cap === null ? sum : Math.min(sum, this.cap);
  }

  plan(): number {
    this.latestAtPlan = [...this.latest];
    this.plannedStart = [...this.consumed];
    const lags = this.latest.map((latest, p) => latest - this.consumed[p]!);
    const total = lags.reduce((a, b) => a + b, 0);
    if (this.cap === null || total <= this.cap) {
      this.plannedEnd = [...this.latest];
      return total;
    }
    // Prorate the cap by each partition's backlog (as Spark's rate limit does); largest remainders
    // get the leftover offsets so a capped batch reads exactly the cap.
    const exact = lags.map((lag) => (this.cap! * lag) / total);
    const take = exact.map(Math.floor);
    let left = this.cap - take.reduce((a, b) => a + b, 0);
    const order = exact.map((x, p) => [x - Math.floor(x), p] as const).sort((a, b) => b[0] - a[0]);
    for (const [, p] of order) {
      if (left <= 0) break;
      if (take[p]! < lags[p]!) {
        take[p]! += 1;
        left -= 1;
      }
    }
    this.plannedEnd = this.consumed.map((c, p) => c + take[p]!);
    return this.cap - left;
  }

  commit(): void {
    for (let p = 0; p < this.consumed.length; p++) {
      this.consumedTotal += this.plannedEnd[p]! - this.consumed[p]!;
      this.consumed[p] = this.plannedEnd[p]!;
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

  private offsets(values: number[]): Record<string, Record<string, number>> {
    const partitions: Record<string, number> = {};
    values.forEach((v, p) => (partitions[String(p)] = v));
    return { [this.topic]: partitions };
  }

  render(ctx: SourceRenderContext): Record<string, unknown> {
    const latest = ctx.latestAfterBatch ? this.latest : this.latestAtPlan;
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
