/** People-readable names for cause codes; unknown codes fall back to the code with spaces. */
export const CAUSE_LABEL: Record<string, string> = {
  insufficient_capacity: 'Not enough processing capacity',
  rate_limit_too_low: 'Rate limit too low for the arrival rate',
  oversized_batches: 'Batches too large for the trigger interval',
  kafka_partition_bound: 'Bounded by Kafka partitions',
  too_few_shuffle_partitions: 'Too few shuffle partitions',
  unbounded_state: 'State grows without bound (no watermark / TTL)',
  state_store_memory: 'State store memory pressure',
  slow_state_commit: 'Slow state commits',
  slow_sink: 'Slow sink',
  large_state_repartition: 'Large state being repartitioned',
  catching_up: 'Catching up after a stall or restart',
};

export function causeLabel(code: string): string {
  return CAUSE_LABEL[code] ?? code.replace(/_/g, ' ');
}
