/**
 * Turns job and pipeline liveness signals into `failed` incidents for the streams they host: a run
 * that ended badly, a continuous job with no active run, a failed pipeline update. The incident
 * carries the state message and the run page link; it resolves when a run is active again (or, for a
 * pipeline, when its flows report again). Pure: signals and time in, incident changes out; the state
 * is a small JSON value the worker stores next to the source cursor.
 */
import type { Incident, IncidentChange } from '../diagnosis/types.js';
import type { SourceSignal } from './source.js';

export interface HostedStream {
  queryId: string;
  name: string | null;
}

export interface LivenessContext {
  /** Streams hosted by a job (from the watch file). Empty: the incident is filed under `job:<id>`. */
  streamsOfJob(jobId: number): HostedStream[];
  /** Streams of a pipeline. Empty: filed under `pipeline:<id>`. @defaultValue none */
  streamsOfPipeline?(pipelineId: string): HostedStream[];
  /** Display name of a job, when the watch file has one. */
  jobName?(jobId: number): string | null;
}

interface OpenLiveness {
  incident: Incident;
  streams: HostedStream[];
  /** Run that caused it (a later failure of another run updates it). */
  runId: number | null;
}

export interface LivenessState {
  v: 1;
  open: Record<string, OpenLiveness>;
}

const MAX_TEXT = 300;

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_TEXT ? `${flat.slice(0, MAX_TEXT - 1)}…` : flat;
}

export class LivenessTracker {
  private readonly open: Map<string, OpenLiveness>;

  private constructor(state: LivenessState | null) {
    this.open = new Map(Object.entries(state?.open ?? {}));
  }

  static create(): LivenessTracker {
    return new LivenessTracker(null);
  }

  /** Restores from a stored state; a malformed one starts empty. */
  static restore(state: unknown): LivenessTracker {
    const valid = state && typeof state === 'object' && (state as LivenessState).v === 1 && typeof (state as LivenessState).open === 'object';
    return new LivenessTracker(valid ? (state as LivenessState) : null);
  }

  toState(): LivenessState {
    return { v: 1, open: Object.fromEntries(this.open) };
  }

  observe(signals: SourceSignal[], context: LivenessContext, nowMs: number): IncidentChange[] {
    const changes: IncidentChange[] = [];
    for (const signal of signals) {
      if (signal.type === 'job_run_failed') {
        const name = context.jobName?.(signal.jobId) ?? `job ${signal.jobId}`;
        const message = signal.stateMessage || 'no state message';
        this.openOrUpdate(
          `job:${signal.jobId}`,
          context.streamsOfJob(signal.jobId),
          {
            summary: clip(`${name}: run ${signal.runId} ended ${signal.resultState}: ${message}`),
            evidence: clip(`run ${signal.runId} of ${name} ended ${signal.resultState} with "${message}"`),
            url: signal.runPageUrl,
            atMs: signal.endedAtMs || nowMs,
            runId: signal.runId,
          },
          changes,
        );
      } else if (signal.type === 'job_not_running') {
        const name = context.jobName?.(signal.jobId) ?? `job ${signal.jobId}`;
        const last = signal.lastRun;
        const key = `job:${signal.jobId}`;
        // A failed last run already opened the incident; "not running" only opens one when none is open.
        if (this.open.has(key)) continue;
        this.openOrUpdate(
          key,
          context.streamsOfJob(signal.jobId),
          {
            summary: clip(`${name} is a continuous job with no active run${last ? ` (last run ${last.runId} ended ${last.resultState ?? 'without a result'}${last.stateMessage ? `: ${last.stateMessage}` : ''})` : ''}`),
            evidence: clip(last ? `last run ${last.runId} ended at ${new Date(last.endedAtMs).toISOString()}` : 'no run found'),
            url: last?.runPageUrl ?? null,
            atMs: nowMs,
            runId: last?.runId ?? null,
          },
          changes,
        );
      } else if (signal.type === 'job_running') {
        this.resolve(`job:${signal.jobId}`, signal.startedAtMs || nowMs, changes);
      } else if (signal.type === 'pipeline_failed') {
        this.openOrUpdate(
          `pipeline:${signal.pipelineId}`,
          context.streamsOfPipeline?.(signal.pipelineId) ?? [],
          {
            summary: clip(`pipeline ${signal.pipelineId} update failed: ${signal.message}`),
            evidence: clip(`update ${signal.updateId ?? 'unknown'} failed with "${signal.message}"`),
            url: null,
            atMs: signal.atMs,
            runId: null,
          },
          changes,
        );
      } else if (signal.type === 'flow_backlog' && signal.atMs > this.openedAtMs(`pipeline:${signal.pipelineId}`)) {
        this.resolve(`pipeline:${signal.pipelineId}`, signal.atMs, changes);
      }
    }
    return changes;
  }

  private openedAtMs(key: string): number {
    const open = this.open.get(key);
    return open ? Date.parse(open.incident.openedAt) : Infinity;
  }

  private openOrUpdate(
    key: string,
    hosted: HostedStream[],
    facts: { summary: string; evidence: string; url: string | null; atMs: number; runId: number | null },
    changes: IncidentChange[],
  ): void {
    const streams = hosted.length ? hosted : [{ queryId: key, name: null }];
    const existing = this.open.get(key);
    const incident: Incident = {
      kind: 'failed',
      severity: 'critical',
      openedAtBatchId: null,
      openedAt: existing?.incident.openedAt ?? new Date(facts.atMs).toISOString(),
      resolvedAtBatchId: null,
      resolvedAt: null,
      summary: facts.summary,
      causes: [{ code: key.startsWith('job:') ? 'job_run_failed' : 'pipeline_update_failed', confidence: 1, evidence: facts.evidence }],
      advice: facts.url
        ? [{ text: `Open the run page for the error and the driver logs: ${facts.url}` }]
        : [{ text: 'Open the pipeline in Databricks for the failed update and its error.' }],
    };
    if (existing && existing.runId === facts.runId && existing.incident.summary === incident.summary) return;
    this.open.set(key, { incident, streams, runId: facts.runId });
    for (const stream of streams) {
      changes.push({ type: existing ? 'updated' : 'opened', queryId: stream.queryId, queryName: stream.name, incident });
    }
  }

  private resolve(key: string, atMs: number, changes: IncidentChange[]): void {
    const existing = this.open.get(key);
    if (!existing) return;
    this.open.delete(key);
    const incident: Incident = { ...existing.incident, resolvedAt: new Date(atMs).toISOString() };
    for (const stream of existing.streams) changes.push({ type: 'resolved', queryId: stream.queryId, queryName: stream.name, incident });
  }
}
