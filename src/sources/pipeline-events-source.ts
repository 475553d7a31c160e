/**
 * Lakeflow pipelines through their event log (`GET /api/2.0/pipelines/{id}/events`): `stream_progress`
 * events carry the StreamingQueryProgress of each flow; `flow_progress` events carry the backlog
 * (bytes, files); a FAILED `update_progress` is a pipeline failure. Reads oldest first from a lower
 * bound that trails the newest event by `overlapMs`, skipping event ids already read; later pages
 * send `page_token` alone (with `max_results`), as the API demands.
 */
import { z } from 'zod';
import type { DatabricksClient } from '../databricks/databricks-client.js';
import type { PipelineEvent } from '../databricks/wire-types.js';
import { parseProgress } from '../progress/parse-progress.js';
import { byTriggerTime, type PollResult, type ProgressSource, type SourceSignal, type SourcedProgress } from './source.js';

export interface PipelineCursorEntry {
  /** Newest event timestamp read, epoch ms. */
  newestMs: number;
  /** Ids of events read whose timestamp is within the overlap window. */
  seen: [string, number][];
}

export interface PipelineEventsCursor {
  v: 1;
  pipelines: Record<string, PipelineCursorEntry>;
}

export interface PipelineEventsSourceOptions {
  client: DatabricksClient;
  /** Pipelines to read, read at every poll. */
  pipelineIds: string[] | (() => string[]);
  /** @defaultValue 120_000 */
  overlapMs?: number;
  /** First poll reads events this old. @defaultValue 900_000 */
  initialLookbackMs?: number;
  /** Events per page (≤ 1000). @defaultValue 250 */
  pageSize?: number;
  /** Pages per pipeline per poll. @defaultValue 8 */
  maxPagesPerPipeline?: number;
  /** @defaultValue Date.now */
  now?: () => number;
}

const cursorSchema = z.object({
  v: z.literal(1),
  pipelines: z.record(z.string(), z.object({ newestMs: z.number().finite(), seen: z.array(z.tuple([z.string(), z.number()])) })),
});

const MAX_SEEN = 10_000;

function numberOrNull(value: unknown): number | null {
  const number = typeof value === 'string' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : null;
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

  constructor(private readonly options: PipelineEventsSourceOptions) {}

  async poll(stored: PipelineEventsCursor | null): Promise<PollResult<PipelineEventsCursor>> {
    const warnings: string[] = [];
    const parsed = stored === null ? null : cursorSchema.safeParse(stored);
    if (parsed && !parsed.success) warnings.push('stored pipeline event-log cursor is not valid; reading from the initial lookback');
    const previous: PipelineEventsCursor = parsed?.success ? (parsed.data as PipelineEventsCursor) : { v: 1, pipelines: {} };
    const ids = typeof this.options.pipelineIds === 'function' ? this.options.pipelineIds() : this.options.pipelineIds;
    const now = (this.options.now ?? Date.now)();
    const results = await Promise.all(ids.map((id) => this.pollPipeline(id, previous.pipelines[id] ?? null, now)));
    const cursor: PipelineEventsCursor = { v: 1, pipelines: {} };
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
    progress.sort(byTriggerTime);
    return { progress, signals, cursor, warnings, more };
  }

  private async pollPipeline(pipelineId: string, entry: PipelineCursorEntry | null, now: number) {
    const overlap = this.options.overlapMs ?? 120_000;
    const newest0 = entry?.newestMs ?? now - (this.options.initialLookbackMs ?? 900_000);
    const seen = new Map(entry?.seen ?? []);
    const fromMs = entry ? newest0 - overlap : newest0;
    let newestMs = newest0;
    const progress: SourcedProgress[] = [];
    const signals: SourceSignal[] = [];
    const warnings: string[] = [];
    let pageToken: string | undefined;
    let more = false;
    const maxPages = this.options.maxPagesPerPipeline ?? 8;
    for (let page = 0; page < maxPages; page += 1) {
      const response = await this.options.client.pipelines.listEvents(
        pipelineId,
        pageToken
          ? { pageToken, maxResults: this.options.pageSize ?? 250 }
          : { maxResults: this.options.pageSize ?? 250, orderBy: ['timestamp asc'], filter: `timestamp >= '${new Date(fromMs).toISOString()}'` },
      );
      for (const event of response.events ?? []) {
        const atMs = Date.parse(event.timestamp ?? '');
        const id = event.id ?? `${event.timestamp}/${event.event_type}/${event.origin?.flow_name ?? ''}`;
        if (!Number.isFinite(atMs)) {
          warnings.push(`pipeline ${pipelineId} event ${id} has no valid timestamp; skipped`);
          continue;
        }
        if (seen.has(id)) continue;
        seen.set(id, atMs);
        newestMs = Math.max(newestMs, atMs);
        this.readEvent(pipelineId, id, atMs, event, progress, signals, warnings);
      }
      pageToken = response.next_page_token || undefined;
      if (!pageToken) break;
      more = page === maxPages - 1;
    }
    const cutoff = newestMs - overlap;
    const kept = [...seen].filter(([, atMs]) => atMs >= cutoff).slice(-MAX_SEEN);
    return { entry: { newestMs, seen: kept } as PipelineCursorEntry, progress, signals, warnings, more };
  }

  private readEvent(
    pipelineId: string,
    id: string,
    atMs: number,
    event: PipelineEvent,
    progress: SourcedProgress[],
    signals: SourceSignal[],
    warnings: string[],
  ): void {
    const ref = `pipeline ${pipelineId} event ${id}`;
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
      if (update.state === 'FAILED') {
        const exception = event.error?.exceptions?.[0];
        signals.push({
          type: 'pipeline_failed',
          pipelineId,
          ...(event.origin?.pipeline_name?.trim() ? { pipelineName: event.origin.pipeline_name.trim() } : {}),
          updateId: event.origin?.update_id ?? null,
          message: exception?.message ?? event.message ?? 'pipeline update failed',
          atMs,
        });
      }
    }
  }
}
