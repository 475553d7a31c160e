/**
 * Lakeflow pipelines through their event log (`GET /api/2.0/pipelines/{id}/events`): `stream_progress`
 * events carry the StreamingQueryProgress of each flow; `flow_progress` events carry the backlog
 * (bytes, files); a FAILED `update_progress` is a pipeline failure, and a later update that reaches
 * RUNNING (or COMPLETED: a triggered pipeline) is its recovery (`pipeline_running`, which resolves it).
 *
 * Each poll reads oldest first (`timestamp >= …`, inclusive) from `lateWindowMs` behind the newest
 * event read (never past the poller's own clock, so an event stamped ahead by a fast clock hides none
 * stamped later) and skips the ids already read: events come from the control plane and from each
 * cluster's driver, so one flow's event can become visible after a later-stamped one. Later pages
 * send `page_token` alone (with `max_results`), as the API demands (reference §2c). It pages until
 * caught up or until its page budget is spent; then it returns `more` and the next poll continues
 * where it stopped without reading the window again, so the cursor advances under any event rate
 * (`pipeline-events-cursor.ts`). What it relies on: the API orders by timestamp, and an event becomes
 * visible within `lateWindowMs` of its timestamp (one later than that is never read); page tokens are
 * used within one poll only, never stored.
 */
import type { DatabricksClient } from '../databricks/databricks-client.js';
import type { PipelineEvent } from '../databricks/wire-types.js';
import { parseProgress } from '../progress/parse-progress.js';
import { isRecord, stringOrUndefined as text } from '../progress/values.js';
import { listingStartMs, nextEntry, readPipelineEventsCursor, SeenEvents, type PipelineCursorEntry, type PipelineEventsCursor } from './pipeline-events-cursor.js';
import { byTriggerTime, type PollResult, type ProgressSource, type SourceSignal, type SourcedProgress } from './source.js';

export type { PipelineCursorEntry, PipelineEventsCursor } from './pipeline-events-cursor.js';

export interface PipelineEventsSourceOptions {
  client: DatabricksClient;
  /** Pipelines to read, read at every poll. */
  pipelineIds: string[] | (() => string[]);
  /** First poll reads events this old. @defaultValue 900_000 */
  initialLookbackMs?: number;
  /**
   * How far behind the newest event read an event may become visible and still be read, once: a poll
   * that follows one that caught up lists this window again and skips the ids read in it. Re-reading
   * costs the events of this window at such polls (at most `MAX_SEEN`).
   * @defaultValue 20_000
   */
  lateWindowMs?: number;
  /** Events per page (the API takes ≤ 1000 and may return fewer). @defaultValue 250 */
  pageSize?: number;
  /** Pages per pipeline per poll; past it the poll returns `more` and the next one continues. @defaultValue 8 */
  maxPagesPerPipeline?: number;
  /** @defaultValue Date.now */
  now?: () => number;
}

/** What one poll of a pipeline has read of its updates. */
interface UpdatesSeen {
  /** Earliest event timestamp read per update id. */
  firstMs: Map<string, number>;
  /** Updates that ended FAILED. */
  failed: Set<string>;
}

function numberOrNull(value: unknown): number | null {
  const number = typeof value === 'string' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : null;
}

/**
 * The fields of an event this source reads, each of the type the API documents (a value of another
 * type is dropped, a numeric id kept as text: the cursor stores ids as text); null when `raw` is no
 * event at all. One odd event must not fail the poll of every pipeline, at every poll.
 */
function eventOf(raw: unknown): PipelineEvent | null {
  if (!isRecord(raw)) return null;
  const origin = isRecord(raw.origin) ? raw.origin : {};
  const error = isRecord(raw.error) ? raw.error : {};
  const exceptions = Array.isArray(error.exceptions) ? error.exceptions.filter(isRecord).map((e) => ({ class_name: text(e.class_name), message: text(e.message) })) : [];
  return {
    id: typeof raw.id === 'number' && Number.isFinite(raw.id) ? String(raw.id) : text(raw.id),
    timestamp: text(raw.timestamp),
    event_type: text(raw.event_type),
    message: text(raw.message),
    origin: {
      pipeline_name: text(origin.pipeline_name),
      update_id: text(origin.update_id),
      flow_name: text(origin.flow_name),
      dataset_name: text(origin.dataset_name),
    },
    error: { exceptions },
    ...(raw.details !== undefined ? { details: raw.details as Record<string, unknown> } : {}),
  };
}

function detailsOf(event: PipelineEvent): Record<string, unknown> {
  let details: unknown = event.details;
  if (typeof details === 'string') {
    try {
      details = JSON.parse(details);
    } catch {
      return {};
    }
  }
  return details && typeof details === 'object' ? (details as Record<string, unknown>) : {};
}

export class PipelineEventsSource implements ProgressSource<PipelineEventsCursor> {
  readonly name = 'pipeline_event_log' as const;

  /** Watches no jobs. */
  liveness(): null {
    return null;
  }

  constructor(private readonly options: PipelineEventsSourceOptions) {}

  /** Takes a cursor of any version this source ever wrote (versions 1 and 2 are lifted) and returns version 3. */
  async poll(stored: PipelineEventsCursor | null): Promise<PollResult<PipelineEventsCursor>> {
    const { cursor: previous, warnings } = readPipelineEventsCursor(stored);
    const ids = typeof this.options.pipelineIds === 'function' ? this.options.pipelineIds() : this.options.pipelineIds;
    const now = (this.options.now ?? Date.now)();
    const results = await Promise.all(ids.map((id) => this.pollPipeline(id, previous.pipelines[id] ?? null, now)));
    const cursor: PipelineEventsCursor = { v: 3, pipelines: {} };
    const progress: SourcedProgress[] = [];
    const signals: SourceSignal[] = [];
    let more = false;
    ids.forEach((id, index) => {
      const result = results[index]!;
      cursor.pipelines[id] = result.entry;
      progress.push(...result.progress);
      signals.push(...result.signals);
      warnings.push(...result.warnings);
      more ||= result.more;
    });
    // A pipeline taken out of the watch file: what it has open would otherwise stay open for good.
    const watched = new Set(ids);
    for (const pipelineId of Object.keys(previous.pipelines)) {
      if (!watched.has(pipelineId)) signals.push({ type: 'host_unwatched', host: { pipelineId }, atMs: now });
    }
    progress.sort(byTriggerTime);
    return { progress, signals, cursor, warnings, more };
  }

  private async pollPipeline(pipelineId: string, entry: PipelineCursorEntry | null, now: number) {
    const lateWindowMs = Math.max(0, this.options.lateWindowMs ?? 20_000);
    const fromMs = entry ? listingStartMs(entry, lateWindowMs) : now - (this.options.initialLookbackMs ?? 900_000);
    // Ids read by earlier polls (skipped when listed again) and by this one, with their timestamps.
    const seen = new SeenEvents(entry?.seen);
    const previousNewestMs = entry?.newestMs ?? fromMs;
    let newestMs = previousNewestMs;
    // The newest timestamp listed, read or skipped: where a listing cut by the page budget goes on.
    let listedToMs = fromMs;
    const progress: SourcedProgress[] = [];
    const signals: SourceSignal[] = [];
    const warnings: string[] = [];
    const maxResults = this.options.pageSize ?? 250;
    const maxPages = this.options.maxPagesPerPipeline ?? 8;
    // Per update: its earliest event this poll read (its start as far as the poll knows), and the
    // updates that failed, so a recovery is only claimed by an update that began after a failure.
    const updates: UpdatesSeen = { firstMs: new Map(), failed: new Set() };
    let pageToken: string | undefined;
    for (let page = 0; page < maxPages; page += 1) {
      const response = await this.options.client.pipelines.listEvents(
        pipelineId,
        pageToken ? { pageToken, maxResults } : { maxResults, orderBy: ['timestamp asc'], filter: `timestamp >= '${new Date(fromMs).toISOString()}'` },
      );
      const listed: unknown = response?.events;
      if (listed !== undefined && !Array.isArray(listed)) warnings.push(`pipeline ${pipelineId}: Databricks answered an event list that is not a list; read nothing from it`);
      const events: unknown[] = Array.isArray(listed) ? listed : [];
      for (const raw of events) {
        const event = eventOf(raw);
        if (event === null) {
          warnings.push(`pipeline ${pipelineId}: an event that is not an object (${JSON.stringify(raw)?.slice(0, 40)}); skipped`);
          continue;
        }
        const atMs = Date.parse(event.timestamp ?? '');
        const id = event.id ?? `${event.timestamp}/${event.event_type}/${event.origin?.flow_name ?? ''}`;
        if (!Number.isFinite(atMs)) {
          warnings.push(`pipeline ${pipelineId} event ${id} has no valid timestamp; skipped`);
          continue;
        }
        // Before the listing's start (the filter's, should the API answer one): no kept id reaches there.
        if (atMs < fromMs) continue;
        listedToMs = Math.max(listedToMs, atMs);
        const readBefore = seen.has(id);
        seen.set(id, atMs);
        if (readBefore) continue;
        newestMs = Math.max(newestMs, atMs);
        this.readEvent(pipelineId, id, atMs, event, progress, signals, warnings, updates);
      }
      // An empty page ends the listing even if a token came with it.
      pageToken = events.length > 0 ? text(response.next_page_token) || undefined : undefined;
      if (!pageToken) break;
    }
    const more = pageToken !== undefined;
    // The bound never passes our own clock: an event stamped ahead of it (a fast clock) would hide
    // every event stamped later by the clocks that are right, a pipeline's failure among them.
    // Events from the bound on are listed again until our clock passes them, skipped by id meanwhile.
    const bound = Math.max(previousNewestMs, Math.min(newestMs, now));
    const next = nextEntry(seen, { coveredFromMs: entry?.seenFromMs ?? fromMs, bound, lateWindowMs, ...(more ? { resumeMs: listedToMs } : {}) });
    return { entry: next, progress, signals, warnings, more };
  }

  private readEvent(
    pipelineId: string,
    id: string,
    atMs: number,
    event: PipelineEvent,
    progress: SourcedProgress[],
    signals: SourceSignal[],
    warnings: string[],
    updates: UpdatesSeen,
  ): void {
    const ref = `pipeline ${pipelineId} event ${id}`;
    const updateId = event.origin?.update_id ?? null;
    if (updateId && !updates.firstMs.has(updateId)) updates.firstMs.set(updateId, atMs);
    if (event.event_type === 'stream_progress') {
      const parsed = parseProgress(event);
      if (parsed.ok) progress.push({ progress: parsed.progress, origin: { source: 'pipeline_event_log', ref }, warnings: parsed.warnings });
      else warnings.push(`${ref}: ${parsed.error}`);
      return;
    }
    const details = detailsOf(event);
    if (event.event_type === 'flow_progress') {
      const flow = (details.flow_progress ?? {}) as { metrics?: Record<string, unknown> };
      const metrics = flow.metrics ?? {};
      const backlogBytes = numberOrNull(metrics.backlog_bytes);
      const backlogFiles = numberOrNull(metrics.backlog_files);
      if (backlogBytes !== null || backlogFiles !== null) {
        signals.push({
          type: 'flow_backlog',
          pipelineId,
          flowName: String(event.origin?.flow_name ?? event.origin?.dataset_name ?? 'unknown flow'),
          backlogBytes,
          backlogFiles,
          atMs,
        });
      }
      return;
    }
    if (event.event_type === 'update_progress') {
      const update = (details.update_progress ?? {}) as { state?: unknown };
      const nameField = event.origin?.pipeline_name?.trim() ? { pipelineName: event.origin.pipeline_name.trim() } : {};
      if (update.state === 'FAILED') {
        if (updateId) updates.failed.add(updateId);
        const exception = event.error?.exceptions?.[0];
        signals.push({
          type: 'pipeline_failed',
          pipelineId,
          ...nameField,
          updateId,
          message: exception?.message ?? event.message ?? 'pipeline update failed',
          atMs,
        });
      } else if ((update.state === 'RUNNING' || update.state === 'COMPLETED') && !(updateId && updates.failed.has(updateId))) {
        // Without a failure open this resolves nothing; the app checks the update began after it.
        // A pipeline runs one update at a time, so an update whose first events an earlier poll read
        // (start unknown here) and that runs after a failure began after it.
        signals.push({
          type: 'pipeline_running',
          pipelineId,
          ...nameField,
          updateId,
          state: update.state,
          startedAtMs: (updateId ? updates.firstMs.get(updateId) : undefined) ?? atMs,
          atMs,
        });
      }
    }
  }
}
