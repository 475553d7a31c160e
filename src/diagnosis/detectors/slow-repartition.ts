/**
 * `slow_repartition`: a state repartition (`controlBatch.REPARTITION`, Databricks on-demand state
 * repartitioning) longer than the threshold, or far longer than the state size predicts. It is a
 * one-off pause, so it resolves with the next normal batch.
 */
import { expectedRepartitionMs } from '../causes/shared-causes.js';
import { TUNING } from '../engine-options.js';
import * as fmt from '../format.js';
import { CLEAR, type DetectorContext, type Finding } from './detector.js';

export function detectSlowRepartition(ctx: DetectorContext): Finding {
  const { latest, features } = ctx;
  if (ctx.memo) return latest.repartitionMs === null ? CLEAR : evaluate(ctx) ?? CLEAR;
  if (latest.repartitionMs === null) return CLEAR;
  return evaluate(ctx) ?? CLEAR;

  function evaluate(context: DetectorContext): Finding | null {
    const repartitionMs = context.latest.repartitionMs!;
    // The state it moved: the size reported before the repartition, else now.
    const previous = features.length >= 2 ? features[features.length - 2]!.stateBytes : null;
    const stateBytes = previous ?? latest.stateBytes ?? 0;
    const predicted = expectedRepartitionMs(stateBytes, features.slice(0, -1));
    const threshold = context.options.repartitionThresholdMs;
    const overThreshold = repartitionMs > threshold;
    const farAbove = repartitionMs > TUNING.repartitionSlowFactor * predicted && repartitionMs > 60_000;
    if (!overThreshold && !farAbove) return null;
    const gb = stateBytes / 1024 ** 3;
    const large = gb >= 10;
    const reason = overThreshold
      ? `above the ${fmt.ms(threshold)} threshold`
      : `${fmt.factor(repartitionMs / predicted)} what ${fmt.bytes(stateBytes)} of state predicts (${fmt.ms(predicted)})`;
    return {
      verdict: 'fire',
      severity: repartitionMs > 3 * threshold ? 'critical' : 'warning',
      summary: `State repartition took ${fmt.ms(repartitionMs)}, ${reason}; no batches ran meanwhile`,
      metrics: {
        repartitionMs,
        stateBytes,
        ...(latest.stateRows !== null ? { stateRows: latest.stateRows } : {}),
        batchDurationMs: latest.d,
      },
      causes: [
        {
          code: 'large_state_repartition',
          confidence: large || overThreshold ? 0.8 : 0.5,
          evidence: `the repartition moved ${fmt.bytes(stateBytes)} of state${latest.stateRows !== null ? ` (${fmt.count(latest.stateRows)} rows)` : ''} in ${fmt.ms(repartitionMs)}, ${fmt.bytes(stateBytes / Math.max(1, repartitionMs / 1000))}/s; the usual cost is about ${fmt.ms(predicted)}.`,
        },
      ],
      advice: [
        {
          text: `Plan the next change of spark.sql.streaming.stateStore.partitions in a maintenance window: at this speed a repartition of ${fmt.bytes(stateBytes)} pauses the query for about ${fmt.ms(repartitionMs)}. Shrinking the state first (a tighter watermark) shortens it.`,
        },
        ...(farAbove && !large
          ? [
              {
                text: 'The repartition was far slower than the state size explains: check the checkpoint storage throughput and the RocksDB file sizes (many small SST files) in the driver logs of that run.',
              },
            ]
          : []),
      ],
    };
  }
}
