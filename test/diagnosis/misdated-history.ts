/**
 * The history the misdated-report tests move timestamps in: Kafka, 10 s trigger, falling behind
 * from minute 10 (lag opens), keeping up again from minute 40 (it resolves).
 */
import { parseProgress } from '../../src/progress/parse-progress.js';
import type { Progress } from '../../src/progress/types.js';
import { StreamSimulator, steppedRate } from '../../src/simulator/index.js';
import { MIN, START } from './run-stream.js';

export const DAY = 24 * 60 * MIN;

export const spec = {
  id: 'c0ffee00-0000-4000-8000-00000000000a',
  name: 'payments',
  arrival: steppedRate(12_000, [
    { atMs: START + 10 * MIN, rowsPerSec: 24_000 },
    { atMs: START + 40 * MIN, rowsPerSec: 6_000 },
  ]),
  processing: { rowsPerSecPerCore: 2_500, cores: 8, overheadMs: 1_200 },
  triggerMs: 10_000,
  source: { kind: 'kafka' as const, partitions: 16, maxOffsetsPerTrigger: 400_000 },
};

/** The first `count` reports of that history, parsed. */
export function history(count: number): Progress[] {
  return new StreamSimulator(spec, { startMs: START, seed: 7 }).take(count).map((batch) => {
    const parsed = parseProgress(JSON.parse(batch.json));
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.progress;
  });
}

/** `p` dated `byMs` later (earlier when negative). */
export const shifted = (p: Progress, byMs: number): Progress => ({ ...p, timestampMs: p.timestampMs + byMs, timestamp: new Date(p.timestampMs + byMs).toISOString() });
