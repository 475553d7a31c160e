/**
 * The pipeline event-log cursor: per pipeline, the newest event timestamp read (never past the
 * poller's clock) and the ids of the events read at or after it. The next poll
 * reads `timestamp >= newestMs` oldest first and skips those ids, so it starts where the last one
 * stopped whatever the event rate, and memory holds one timestamp's ids per pipeline (more only while
 * a clock stamps events ahead of the poller's).
 *
 * Version 1 (before) kept every id of a 120 s overlap window and re-read that window at every poll;
 * it is migrated on read: its newest timestamp and the ids it held at that timestamp.
 */
import { z } from 'zod';

export interface PipelineCursorEntry {
  /** Newest event timestamp read, epoch ms, at most the poller's clock; the next poll reads from it, inclusive. */
  newestMs: number;
  /** Ids of the events read whose timestamp is `newestMs` or later (skipped when read again). */
  idsAtNewest: string[];
}

export interface PipelineEventsCursor {
  v: 2;
  pipelines: Record<string, PipelineCursorEntry>;
}

const v2Schema = z.object({
  v: z.literal(2),
  pipelines: z.record(z.string(), z.object({ newestMs: z.number().finite(), idsAtNewest: z.array(z.string()) })),
});

const v1Schema = z.object({
  v: z.literal(1),
  pipelines: z.record(z.string(), z.object({ newestMs: z.number().finite(), seen: z.array(z.tuple([z.string(), z.number()])) })),
});

/** Reads a stored cursor of any version; `null` (first poll) or an unreadable one gives an empty cursor. */
export function readPipelineEventsCursor(stored: unknown): { cursor: PipelineEventsCursor; warnings: string[] } {
  if (stored === null || stored === undefined) return { cursor: { v: 2, pipelines: {} }, warnings: [] };
  const v2 = v2Schema.safeParse(stored);
  if (v2.success) return { cursor: v2.data, warnings: [] };
  const v1 = v1Schema.safeParse(stored);
  if (v1.success) {
    const pipelines: Record<string, PipelineCursorEntry> = {};
    for (const [id, entry] of Object.entries(v1.data.pipelines)) {
      pipelines[id] = { newestMs: entry.newestMs, idsAtNewest: entry.seen.filter(([, atMs]) => atMs === entry.newestMs).map(([eventId]) => eventId) };
    }
    return { cursor: { v: 2, pipelines }, warnings: [] };
  }
  return { cursor: { v: 2, pipelines: {} }, warnings: ['stored pipeline event-log cursor is not valid; reading from the initial lookback'] };
}
