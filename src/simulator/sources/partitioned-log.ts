/**
 * The arrival and consumption bookkeeping of a partitioned log (Kafka partitions, Kinesis shards):
 * arrivals spread over partitions by fixed weights with fractional carry, per-partition positions,
 * and the totals the truth needs. The sources keep what differs (offset formats, caps, metrics).
 */

export class PartitionedLog {
  /** Position of the newest record per partition. */
  readonly latest: number[];
  /** Position up to which each partition has been read (committed). */
  readonly consumed: number[];
  private readonly carry: number[];
  private arrived = 0;
  private consumedTotal = 0;

  /** `weights` sum to 1; `start` is each partition's first position. */
  constructor(
    private readonly weights: readonly number[],
    start: readonly number[],
  ) {
    this.latest = [...start];
    this.consumed = [...start];
    this.carry = new Array<number>(weights.length).fill(0);
  }

  get partitions(): number {
    return this.weights.length;
  }

  receive(rows: number): void {
    if (rows <= 0) return;
    for (let p = 0; p < this.weights.length; p++) {
      const share = rows * this.weights[p]! + this.carry[p]!;
      const whole = Math.floor(share);
      this.carry[p] = share - whole;
      this.latest[p]! += whole;
      this.arrived += whole;
    }
  }

  /** Records waiting per partition. */
  lags(): number[] {
    return this.latest.map((latest, p) => latest - this.consumed[p]!);
  }

  /** Marks everything up to `end` (per partition) as read. */
  commit(end: readonly number[]): void {
    for (let p = 0; p < this.consumed.length; p++) {
      this.consumedTotal += end[p]! - this.consumed[p]!;
      this.consumed[p] = end[p]!;
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
}
