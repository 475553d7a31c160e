/**
 * What a read at a Kafka admission cap (`maxOffsetsPerTrigger`) looks like in the row counts. Spark
 * prorates the cap over the partitions by their backlog, floors each share and rounds a share below
 * one offset up to one, so a capped batch reads within P − 1 offsets of the cap either way, and two
 * capped batches within 2 (P − 1) of each other: exactly the cap on one partition.
 */

/** How far apart two reads at the same cap can be; without a partition count, 0.02 % (2 rows or more). */
export function capTolerance(cap: number, partitions: number): number {
  return partitions > 0 ? 2 * (partitions - 1) : Math.max(2, cap * 0.0002);
}

/** Whether `rows` reads like the cap `cap` (a typical capped count, e.g. the median of recent reads). */
export function readsAtCap(rows: number, cap: number, partitions: number): boolean {
  return Math.abs(rows - cap) <= capTolerance(cap, partitions);
}

/**
 * Whether a batch of the run read more than any batch at the cap `cap` can: proof there is no such
 * cap (a drain, a burst). `runMaxRows` leaves out each run's first batch, which may replay a batch
 * planned under an earlier cap.
 */
export function capExceededInRun(runMaxRows: number, cap: number, partitions: number): boolean {
  return runMaxRows > cap + capTolerance(cap, partitions);
}

/**
 * The cap behind capped reads whose highest is `high`: floored shares read up to P − 1 below it,
 * and people set round numbers, so the roundest number in [high, high + P − 1] (80000 for reads
 * topping out at 79,997 over 8 partitions; `high` itself on one partition or without a partition
 * count). Reads top the cap only when shares below one offset are rounded up, a cap within a few
 * offsets per partition, where the reads say little about the cap either way.
 */
export function capFromReads(high: number, partitions: number): number {
  const top = high + Math.max(0, partitions - 1);
  for (let step = 10 ** Math.floor(Math.log10(Math.max(top, 1))); step >= 1; step /= 10) {
    const round = Math.ceil(high / step) * step;
    if (round <= top) return round;
  }
  return high;
}
