/**
 * The lag signal as the lag detector reads it (detectors/lag.ts): which kinds there are, the
 * smallest rise that counts in each one's unit, and whether it is time (seconds of data) or a count.
 */
import type { BatchFeatures } from '../batch-features.js';
import type { Analysis, LagSignalKind } from '../query-analysis.js';

/** The smallest rise that counts, in each signal's unit (seconds of data, files, bytes). */
export const MIN_ABS: Record<string, number> = { kafka: 2, kinesis: 2, duration: 2, files: 2, bytes: 1 << 20 };
/** Lag signals by the number a memo stores them as (memos hold numbers only); append only. */
export const LAG_SIGNALS: readonly LagSignalKind[] = ['kafka', 'kinesis', 'files', 'bytes', 'duration'];

/** Whether the lag signal is seconds of data (not files or bytes waiting). */
export function isTimeSignal(signal: LagSignalKind): boolean {
  return signal !== 'files' && signal !== 'bytes';
}

/**
 * The backlog lives inside the batches: the signal is their duration (no backlog figure), or Kafka
 * offsets behind that read 0 (the source takes everything it sees at each plan).
 */
export function backlogInBatches(analysis: Pick<Analysis, 'signal'>, latest: BatchFeatures): boolean {
  return analysis.signal === 'duration' || (analysis.signal === 'kafka' && latest.kafkaBehind === 0);
}

/**
 * The highest reading still back to normal for a signal whose level before an episode was `base`
 * and whose noise reached `band` then: a quarter over the level, the smallest rise that counts, or a
 * tenth over the band, whichever is most.
 */
export function normalCeiling(base: number, band: number, signal: LagSignalKind): number {
  return Math.max(base * 1.25, base + MIN_ABS[signal]!, band * 1.1);
}
