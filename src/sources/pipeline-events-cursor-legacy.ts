/**
 * Pipeline event-log cursors saved by earlier versions, read so an upgrade loses no place
 * (the current format: pipeline-events-cursor.ts). Version 2: per pipeline, the newest event
 * timestamp read and the ids read at it. Version 1 kept every id of a 120 s overlap window; it reads
 * as version 2: its newest timestamp and the ids it held at that timestamp.
 */
import { z } from 'zod';

export interface LegacyCursorEntry {
  /** Newest event timestamp read, epoch ms, at most the poller's clock; the next poll reads from it, inclusive. */
  newestMs: number;
  /** Ids of the events read whose timestamp is `newestMs` or later (skipped when read again). */
  idsAtNewest: string[];
}

export interface LegacyPipelineCursor {
  v: 2;
  pipelines: Record<string, LegacyCursorEntry>;
}

const v2Schema = z.object({
  v: z.literal(2),
  pipelines: z.record(z.string(), z.object({ newestMs: z.number().finite(), idsAtNewest: z.array(z.string()) })),
});

const v1Schema = z.object({
  v: z.literal(1),
  pipelines: z.record(z.string(), z.object({ newestMs: z.number().finite(), seen: z.array(z.tuple([z.string(), z.number()])) })),
});

/** Reads a stored version 1 or 2 cursor as version 2; `null` (first poll) or an unreadable one gives an empty cursor. */
export function readLegacyPipelineCursor(stored: unknown): { cursor: LegacyPipelineCursor; warnings: string[] } {
  if (stored === null || stored === undefined) return { cursor: { v: 2, pipelines: {} }, warnings: [] };
  const v2 = v2Schema.safeParse(stored);
  if (v2.success) return { cursor: v2.data, warnings: [] };
  const v1 = v1Schema.safeParse(stored);
  if (v1.success) {
    const pipelines: Record<string, LegacyCursorEntry> = {};
    for (const [id, entry] of Object.entries(v1.data.pipelines)) {
      pipelines[id] = { newestMs: entry.newestMs, idsAtNewest: entry.seen.filter(([, atMs]) => atMs === entry.newestMs).map(([eventId]) => eventId) };
    }
    return { cursor: { v: 2, pipelines }, warnings: [] };
  }
  return { cursor: { v: 2, pipelines: {} }, warnings: ['stored pipeline event-log cursor is not valid; reading from the initial lookback'] };
}
