/**
 * Per-pipeline event logs, paged the way `GET /api/2.0/pipelines/{id}/events` pages them (reference
 * §2c): `max_results` ≤ 1000 (checked by the router), default order newest first, the filter grammar
 * of `event-filter.ts`, and a `page_token` that carries its listing's filter and order (the router
 * refuses one sent with anything but `max_results`). "The system may return fewer than max_results
 * events in a response, even if there are more events available": a page holds at most
 * `SERVED_PER_PAGE_MAX` events whatever `max_results` asks, so a reader that takes a short page for
 * the end of the log is caught here rather than in production.
 *
 * Events come from the control plane and from each cluster's driver, so one can reach the log after
 * events stamped later (`appendLate`): a listing made before it arrives does not hold it, and later
 * ones hold it in its timestamp's place.
 */
import { randomUUID } from 'node:crypto';
import { parseEventFilter, type EventPredicate } from './event-filter.js';

export interface StoredEvent {
  id: string;
  timestampMs: number;
  level: string;
  seq: number;
  body: Record<string, unknown>;
}

export interface PipelineInfo {
  pipelineId: string;
  name: string;
}

/** Events one page holds at most, whatever `max_results` asks. */
export const SERVED_PER_PAGE_MAX = 250;

interface PageCursor {
  pipelineId: string;
  filter: string | null;
  asc: boolean;
  /** Keyset: (timestampMs, seq) of the last event served. */
  lastTs: number;
  lastSeq: number;
}

/** An event on its way to the log: stamped `timestampMs`, listed from `visibleAtMs` on. */
interface HeldEvent {
  pipelineId: string;
  event: Record<string, unknown>;
  timestampMs: number;
  visibleAtMs: number;
}

export class EventLog {
  private readonly pipelines = new Map<string, { info: PipelineInfo; events: StoredEvent[] }>();
  private held: HeldEvent[] = [];
  private seq = 0;

  /**
   * @param maxEventsPerPipeline events kept per pipeline at most; beyond it the oldest are dropped, so
   * a long run at real-time speed stays bounded. @defaultValue 40_000
   */
  constructor(private readonly maxEventsPerPipeline = 40_000) {
    if (!(maxEventsPerPipeline >= 1) || !Number.isInteger(maxEventsPerPipeline)) {
      throw new RangeError(`maxEventsPerPipeline must be a positive integer, got ${maxEventsPerPipeline}`);
    }
  }

  addPipeline(info: PipelineInfo): void {
    if (!this.pipelines.has(info.pipelineId)) this.pipelines.set(info.pipelineId, { info, events: [] });
  }

  has(pipelineId: string): boolean {
    return this.pipelines.has(pipelineId);
  }

  info(pipelineId: string): PipelineInfo | undefined {
    return this.pipelines.get(pipelineId)?.info;
  }

  /** Appends an event; `id`, `timestamp`, `origin.pipeline_*` and `sequence` are filled in when absent. */
  append(pipelineId: string, event: Record<string, unknown>, timestampMs: number): StoredEvent {
    const pipeline = this.pipelines.get(pipelineId);
    if (!pipeline) throw new Error(`unknown pipeline ${pipelineId}`);
    this.seq += 1;
    const id = typeof event.id === 'string' ? event.id : randomUUID();
    // Databricks stamps every event's origin with the pipeline; the given origin adds to it.
    const origin = {
      cloud: 'AWS',
      region: 'us-west-2',
      org_id: 1234567890123456,
      pipeline_id: pipelineId,
      pipeline_type: 'WORKSPACE',
      pipeline_name: pipeline.info.name,
      ...(event.origin as Record<string, unknown> | undefined),
    };
    const body: Record<string, unknown> = {
      id,
      sequence: { control_plane_seq_no: 1_700_000_000_000_000 + this.seq },
      timestamp: new Date(timestampMs).toISOString(),
      message: event.message ?? '',
      level: event.level ?? 'INFO',
      ...event,
    };
    body.origin = origin;
    body.id = id;
    body.timestamp = new Date(timestampMs).toISOString();
    const stored: StoredEvent = { id, timestampMs, level: String(body.level), seq: this.seq, body };
    pipeline.events.push(stored);
    if (pipeline.events.length > this.maxEventsPerPipeline) {
      // Drop a tenth more than needed at once, so appends stay O(1) amortized.
      const drop = pipeline.events.length - this.maxEventsPerPipeline + Math.floor(this.maxEventsPerPipeline / 10);
      const order = pipeline.events.slice().sort((a, b) => a.timestampMs - b.timestampMs || a.seq - b.seq);
      const dropped = new Set(order.slice(0, drop));
      pipeline.events = pipeline.events.filter((event) => !dropped.has(event));
    }
    return stored;
  }

  /**
   * Appends an event stamped `timestampMs` that reaches the log only at `visibleAtMs` (`reveal`), as
   * a driver's event does when events stamped after it are listed first.
   */
  appendLate(pipelineId: string, event: Record<string, unknown>, timestampMs: number, visibleAtMs: number): void {
    if (!this.pipelines.has(pipelineId)) throw new Error(`unknown pipeline ${pipelineId}`);
    this.held.push({ pipelineId, event, timestampMs, visibleAtMs });
  }

  /** Appends the held events that have reached the log by `nowMs`, in the order they reach it. Returns how many. */
  reveal(nowMs: number): number {
    const due = this.held.filter((held) => held.visibleAtMs <= nowMs).sort((a, b) => a.visibleAtMs - b.visibleAtMs);
    if (due.length === 0) return 0;
    this.held = this.held.filter((held) => held.visibleAtMs > nowMs);
    for (const held of due) this.append(held.pipelineId, held.event, held.timestampMs);
    return due.length;
  }

  /** Drops events older than `beforeMs` (the stand-in's retention). Returns how many. */
  prune(beforeMs: number): number {
    let dropped = 0;
    for (const pipeline of this.pipelines.values()) {
      if (!pipeline.events.some((event) => event.timestampMs < beforeMs)) continue;
      const before = pipeline.events.length;
      pipeline.events = pipeline.events.filter((event) => event.timestampMs >= beforeMs);
      dropped += before - pipeline.events.length;
    }
    return dropped;
  }

  pipelineIds(): string[] {
    return [...this.pipelines.keys()];
  }

  /** Events held for a pipeline (0 when unknown). */
  size(pipelineId: string): number {
    return this.pipelines.get(pipelineId)?.events.length ?? 0;
  }

  /**
   * One page. `pageToken` continues a previous listing (its filter and order travel inside the token).
   * Throws `Error` with a user-facing message on a bad token.
   */
  page(
    pipelineId: string,
    query: { filter: string | null; asc: boolean; maxResults: number; pageToken: string | null },
  ): { events: Record<string, unknown>[]; next_page_token?: string } {
    const pipeline = this.pipelines.get(pipelineId)!;
    let cursor: PageCursor | null = null;
    if (query.pageToken) cursor = decodeToken(query.pageToken, pipelineId);
    const filter = cursor ? cursor.filter : query.filter;
    const asc = cursor ? cursor.asc : query.asc;
    const predicate: EventPredicate = filter ? parseEventFilter(filter) : () => true;
    const ordered = pipeline.events.slice().sort((a, b) => (a.timestampMs - b.timestampMs || a.seq - b.seq) * (asc ? 1 : -1));
    const after = (event: StoredEvent) => {
      if (!cursor) return true;
      const cmp = event.timestampMs - cursor.lastTs || event.seq - cursor.lastSeq;
      return asc ? cmp > 0 : cmp < 0;
    };
    const matching = ordered.filter((event) => after(event) && predicate(event));
    const page = matching.slice(0, Math.min(query.maxResults, SERVED_PER_PAGE_MAX));
    const result: { events: Record<string, unknown>[]; next_page_token?: string } = { events: page.map((event) => event.body) };
    if (matching.length > page.length && page.length > 0) {
      const last = page.at(-1)!;
      result.next_page_token = encodeToken({ pipelineId, filter, asc, lastTs: last.timestampMs, lastSeq: last.seq });
    }
    return result;
  }
}

function encodeToken(cursor: PageCursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeToken(token: string, pipelineId: string): PageCursor {
  try {
    const cursor = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as PageCursor;
    if (cursor.pipelineId !== pipelineId || typeof cursor.lastTs !== 'number') throw new Error('mismatch');
    return cursor;
  } catch {
    throw new Error('Invalid page token.');
  }
}
