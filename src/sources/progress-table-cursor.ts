/**
 * The progress-table cursor. Rows are read in (ingested_at, row key) order from a lower bound that
 * trails the newest ingestion seen by `overlapMs`, so a row that becomes visible late (a slow Delta
 * commit, a writer with a skewed clock) is still read if it is at most `overlapMs` older than the
 * newest row; rows read before are recognised by (query, run, batch) and skipped. When a poll stops at
 * its size bound, `resume` holds the exact keyset position, so the next poll continues there.
 */
import { z } from 'zod';
import type { SeenState } from './seen-batches.js';

export interface ProgressTableCursor {
  v: 1;
  /**
   * Newest `ingested_at` read so far, µs since epoch, but never past the bot's own clock (less the
   * skew allowance): a writer whose clock runs fast must not move every other writer's rows behind it.
   */
  watermarkUs: number;
  /** Where an interrupted read continues; null when the last poll read everything. */
  resume: { afterUs: number; afterKey: string } | null;
  seen: SeenState;
  /** When the whole overlap window was last read again (epoch ms); absent: at the next poll. */
  lateReadAtMs?: number;
  /** The last poll read the new rows first and left the full read to the next one (`more`). */
  lateNext?: boolean;
}

const cursorSchema = z.object({
  v: z.literal(1),
  watermarkUs: z.number().finite().nonnegative(),
  resume: z.object({ afterUs: z.number().finite(), afterKey: z.string() }).nullable(),
  lateReadAtMs: z.number().finite().optional(),
  lateNext: z.boolean().optional(),
  seen: z.record(
    z.string(),
    z.object({
      r: z.array(z.tuple([z.number(), z.number()])),
      f: z.object({ b: z.number(), t: z.array(z.number()) }).nullable(),
      n: z.array(z.number()).optional(),
      last: z.number(),
    }),
  ),
});

/** Validates a stored cursor; null (with the reason) when it is not one, so the caller can start over. */
export function readProgressTableCursor(value: unknown): { cursor: ProgressTableCursor | null; problem: string | null } {
  if (value === null || value === undefined) return { cursor: null, problem: null };
  const parsed = cursorSchema.safeParse(value);
  if (parsed.success) return { cursor: parsed.data as ProgressTableCursor, problem: null };
  return { cursor: null, problem: `stored progress-table cursor is not valid (${parsed.error.issues[0]?.message ?? 'unknown'}); reading from the initial lookback` };
}
