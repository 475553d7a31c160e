/**
 * The pipeline event-log cursor, version 3: per pipeline, the newest event timestamp read (never past
 * the poller's clock), the ids of the events read with their timestamps, kept from `seenFromMs` on,
 * and where a listing cut by the page budget continues (`resumeMs`).
 *
 * Events come from the control plane and from each cluster's driver, so one can become visible after
 * events stamped later. A poll that caught up is followed by one that lists again from `lateWindowMs`
 * behind `newestMs` and skips the ids seen there; a poll cut by its page budget is followed by one that
 * continues where it stopped, reading nothing twice, so the cursor advances under any event rate. The
 * ids are kept while a next listing can return them (by time), at most `MAX_SEEN` (by count).
 *
 * Versions 1 and 2 are read by `pipeline-events-cursor-legacy.ts` and lifted here: their newest
 * timestamp and the ids read at it, from which the next poll lists as before.
 */
import { z } from 'zod';
import { readLegacyPipelineCursor } from './pipeline-events-cursor-legacy.js';

/**
 * Ids a cursor keeps at most. Past it the oldest go, and the window starts after them (a late event
 * there is no longer read); only when more than this many are stamped ahead of the poller's clock may
 * an event be read again (the engine skips a batch it has seen).
 */
export const MAX_SEEN = 5_000;

export interface PipelineCursorEntry {
  /** Newest event timestamp read, epoch ms, at most the poller's clock. */
  newestMs: number;
  /** Every event read stamped from here on has its id in `seen`; a listing never starts before it. */
  seenFromMs: number;
  /** Ids of the events read and their timestamps (epoch ms), oldest first. */
  seen: [string, number][];
  /** Where a listing cut by the page budget goes on (inclusive); absent when the poll caught up. */
  resumeMs?: number;
}

export interface PipelineEventsCursor {
  v: 3;
  pipelines: Record<string, PipelineCursorEntry>;
}

const v3Schema = z.object({
  v: z.literal(3),
  pipelines: z.record(
    z.string(),
    z.object({
      newestMs: z.number().finite(),
      seenFromMs: z.number().finite(),
      seen: z.array(z.tuple([z.string(), z.number().finite()])),
      resumeMs: z.number().finite().optional(),
    }),
  ),
});

/** Reads a stored cursor of any version; `null` (first poll) or an unreadable one gives an empty cursor. */
export function readPipelineEventsCursor(stored: unknown): { cursor: PipelineEventsCursor; warnings: string[] } {
  const v3 = v3Schema.safeParse(stored);
  if (v3.success) return { cursor: v3.data as PipelineEventsCursor, warnings: [] };
  const { cursor: older, warnings } = readLegacyPipelineCursor(stored);
  const pipelines: Record<string, PipelineCursorEntry> = {};
  for (const [id, { newestMs, idsAtNewest }] of Object.entries(older.pipelines)) {
    // Their timestamps are not known, only that they are at least `newestMs`; the next listing,
    // which starts there, says them again.
    pipelines[id] = { newestMs, seenFromMs: newestMs, seen: idsAtNewest.map((eventId) => [eventId, newestMs]) };
  }
  return { cursor: { v: 3, pipelines }, warnings };
}

/** Where a poll lists from: where the last one stopped, or the late window behind the newest event. */
export function listingStartMs(entry: PipelineCursorEntry, lateWindowMs: number): number {
  return entry.resumeMs ?? Math.max(entry.seenFromMs, entry.newestMs - lateWindowMs);
}

/**
 * The cursor entry after a poll. Its ids reach back to where the next listings may start: the late
 * window behind the bound, or where a cut listing goes on (`resumeMs`), never before the ids an
 * earlier poll let go (`coveredFromMs`).
 */
export function nextEntry(seen: SeenEvents, at: { coveredFromMs: number; bound: number; lateWindowMs: number; resumeMs?: number }): PipelineCursorEntry {
  const lateFromMs = at.bound - at.lateWindowMs;
  const keepFromMs = Math.max(at.coveredFromMs, Math.min(at.resumeMs ?? lateFromMs, lateFromMs));
  const { seenFromMs, seen: kept } = seen.keep(keepFromMs, at.resumeMs ?? at.bound);
  return { newestMs: at.bound, seenFromMs, seen: kept, ...(at.resumeMs !== undefined ? { resumeMs: at.resumeMs } : {}) };
}

/** The ids of the events read, with their timestamps, while a next listing can return them. */
export class SeenEvents {
  private readonly atMsById: Map<string, number>;

  constructor(entries: [string, number][] = []) {
    this.atMsById = new Map(entries);
  }

  has(id: string): boolean {
    return this.atMsById.has(id);
  }

  /** Records an event as listed now (a listing's timestamp replaces a lifted cursor's guess). */
  set(id: string, atMs: number): void {
    this.atMsById.set(id, atMs);
  }

  /**
   * The ids stamped from `fromMs` on, oldest first, at most `MAX_SEEN`. When the count binds, the
   * window starts after the ids let go (never past `limitMs`, where the next listing may start at
   * the latest), so they are not read again.
   */
  keep(fromMs: number, limitMs: number): { seenFromMs: number; seen: [string, number][] } {
    let seen = [...this.atMsById].filter(([, atMs]) => atMs >= fromMs).sort((a, b) => a[1] - b[1]);
    let seenFromMs = fromMs;
    if (seen.length > MAX_SEEN) {
      const lastDroppedMs = seen[seen.length - MAX_SEEN - 1]![1];
      seenFromMs = Math.max(fromMs, Math.min(lastDroppedMs + 1, limitMs));
      seen = seen.filter(([, atMs]) => atMs >= seenFromMs).slice(-MAX_SEEN);
    }
    return { seenFromMs, seen };
  }
}
