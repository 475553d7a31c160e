/**
 * A cause with the advice that addresses it. Causes are ranked by confidence; advice follows the
 * order of the causes it belongs to, so the most likely fix comes first.
 */
import type { Advice, Cause } from '../types.js';

export interface Explained {
  cause: Cause;
  advice: Advice[];
}

/** Causes that explain a shortage of throughput; `insufficient_capacity` is then the symptom. */
const STRUCTURAL = new Set([
  'kafka_partition_bound',
  'too_few_shuffle_partitions',
  'state_store_memory',
  'slow_state_commit',
  'slow_sink',
  'oversized_batches',
]);

export function rank(items: (Explained | null)[]): { causes: Cause[]; advice: Advice[] } {
  const present = items.filter((item): item is Explained => item !== null);
  const structural = Math.max(
    0,
    ...present.filter((item) => STRUCTURAL.has(item.cause.code)).map((item) => item.cause.confidence),
  );
  if (structural >= 0.5) {
    // Name the reason before the symptom: the structural cause outranks plain capacity.
    for (const item of present) {
      if (item.cause.code === 'insufficient_capacity' && item.cause.confidence >= structural) {
        item.cause = { ...item.cause, confidence: Math.max(0.3, structural - 0.05) };
      }
    }
  }
  present.sort((a, b) => b.cause.confidence - a.cause.confidence);
  const seen = new Set<string>();
  const causes: Cause[] = [];
  const advice: Advice[] = [];
  for (const item of present) {
    if (seen.has(item.cause.code)) continue;
    seen.add(item.cause.code);
    causes.push({ ...item.cause, confidence: Math.round(clamp(item.cause.confidence) * 100) / 100 });
    for (const entry of item.advice) {
      if (!advice.some((existing) => existing.text === entry.text)) advice.push(entry);
    }
  }
  return { causes, advice };
}

export function clamp(value: number, low = 0, high = 1): number {
  return Math.min(high, Math.max(low, value));
}
