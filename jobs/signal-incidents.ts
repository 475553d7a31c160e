/**
 * Turns source signals about jobs and pipelines into `failed` incidents: a failed run of a watched
 * job, a continuous job with no active run, a failed pipeline update. One incident per job or
 * pipeline at a time (its stream entry is `job-<id>` / `pipeline-<id>`, routed by job or pipeline
 * id); a new failure while one is open updates it, and a new run resolves it.
 */
import type { Incident, IncidentChange } from '../src/diagnosis/types.js';
import type { RedisStore } from '../src/store/index.js';
import type { SourceSignal } from '../src/sources/source.js';
import type { StreamInfo } from '../src/store/types.js';

/** Signals as the sources emit them; they reach here through job data, so unknown types may too. */
export type Signal = SourceSignal | { type: string; [key: string]: unknown };

interface Target {
  stream: StreamInfo;
  /** Open the incident (or update the open one) with this content, or resolve the open one. */
  action: { open: Incident } | { resolveAtMs: number };
}

function failed(summary: string, atMs: number, advice: string): Incident {
  return {
    kind: 'failed',
    severity: 'critical',
    openedAtBatchId: null,
    openedAt: new Date(atMs).toISOString(),
    resolvedAtBatchId: null,
    resolvedAt: null,
    summary: summary.slice(0, 500),
    causes: [],
    advice: [{ text: advice }],
    metrics: {},
  };
}

/** The job as people know it (its name from the watch file or its runs), else by id. */
function jobStreamName(signal: { jobId: number; jobName?: unknown }): string {
  return typeof signal.jobName === 'string' && signal.jobName.trim() ? signal.jobName.trim().slice(0, 200) : `job ${signal.jobId}`;
}

function targetOf(signal: Signal, sourceId: string): Target | null {
  switch (signal.type) {
    case 'job_run_failed': {
      const s = signal as Extract<Signal, { type: 'job_run_failed' }>;
      return {
        stream: { queryId: `job-${s.jobId}`, name: jobStreamName(s), jobId: String(s.jobId), source: sourceId, ...(s.runPageUrl ? { runPageUrl: s.runPageUrl } : {}) },
        action: { open: failed(`Run ${s.runId} of job ${s.jobId} ended ${s.resultState}: ${s.stateMessage || 'no message'}`, s.endedAtMs, 'Open the run page for the error and the failing task; the stream resumes from its checkpoint when the job runs again.') },
      };
    }
    case 'job_not_running': {
      const s = signal as Extract<Signal, { type: 'job_not_running' }>;
      const last = s.lastRun;
      const detail = last ? `last run ${last.runId} ended ${last.resultState ?? 'without a result'}${last.stateMessage ? `: ${last.stateMessage}` : ''}` : 'no run found';
      return {
        stream: { queryId: `job-${s.jobId}`, name: jobStreamName(s), jobId: String(s.jobId), source: sourceId, ...(last?.runPageUrl ? { runPageUrl: last.runPageUrl } : {}) },
        action: { open: failed(`Continuous job ${s.jobId} has no active run (${detail})`, last?.endedAtMs || Date.now(), 'Start the job again (or check why the continuous trigger stopped it); its streams process nothing meanwhile.') },
      };
    }
    case 'job_running': {
      const s = signal as Extract<Signal, { type: 'job_running' }>;
      return { stream: { queryId: `job-${s.jobId}`, name: jobStreamName(s), jobId: String(s.jobId), source: sourceId }, action: { resolveAtMs: s.startedAtMs } };
    }
    case 'pipeline_failed': {
      const s = signal as Extract<Signal, { type: 'pipeline_failed' }>;
      return {
        stream: { queryId: `pipeline-${s.pipelineId}`, name: typeof s.pipelineName === 'string' && s.pipelineName.trim() ? s.pipelineName.trim().slice(0, 200) : `pipeline ${s.pipelineId}`, pipelineId: s.pipelineId, source: sourceId },
        action: { open: failed(`Pipeline update ${s.updateId ?? ''} failed: ${s.message}`.replace('  ', ' '), s.atMs, 'Open the pipeline event log for the failing flow; fix it and start a new update.') },
      };
    }
    default:
      return null;
  }
}

/** Stream entries that stand for a job, a pipeline or a source (its health) rather than a streaming query. */
export function isSignalStream(queryId: string): boolean {
  return /^(job|pipeline|source)-/.test(queryId);
}

/** How fresh a job-runs answer must be to count (a few missed polls). */
const LIVENESS_MAX_AGE_MS = 5 * 60_000;

/**
 * Whether the job or pipeline hosting a stream is known to be down: its `failed` incident is open,
 * or the last job-runs poll (at most 5 minutes ago) saw no active run of its job; or the source
 * that reports it cannot be read now (its last poll failed). Such a stream's
 * silence is explained; the detect step does not judge it `stalled`. Unknown means "not down".
 */
export async function hostIsDown(store: RedisStore, stream: { jobId?: string; pipelineId?: string; source?: string } | null | undefined, wallNowMs: number = Date.now()): Promise<boolean> {
  // A source the bot cannot read explains its streams' silence too (its own source-health incident).
  if (stream?.source && (await store.sources.isFailing(stream.source))) return true;
  if (stream?.jobId && (await store.jobs.isKnownStopped(stream.jobId, wallNowMs, LIVENESS_MAX_AGE_MS))) return true;
  const hosts = [stream?.jobId ? `job-${stream.jobId}` : null, stream?.pipelineId ? `pipeline-${stream.pipelineId}` : null].filter((h): h is string => h !== null);
  for (const host of hosts) {
    if ((await store.incidents.listForQuery(host)).some((r) => r.kind === 'failed' && r.state === 'open')) return true;
  }
  return false;
}

/**
 * Applies signals; returns the queries whose outbox got intents (the caller drains them).
 * The open `failed` incident of each job or pipeline is found among its stream's incident records.
 */
export async function applySignals(store: RedisStore, signals: unknown[], sourceId: string, nowMs: number): Promise<string[]> {
  const touched = new Set<string>();
  for (const raw of signals) {
    if (!raw || typeof raw !== 'object' || typeof (raw as { type?: unknown }).type !== 'string') continue;
    const target = targetOf(raw as Signal, sourceId);
    if (!target) continue;
    const queryId = target.stream.queryId;
    const open = (await store.incidents.listForQuery(queryId)).find((r) => r.kind === 'failed' && r.state === 'open');
    const changes: IncidentChange[] = [];
    if ('open' in target.action) {
      const incoming = target.action.open;
      if (!open) {
        await store.streams.upsert(target.stream, nowMs);
        changes.push({ type: 'opened', queryId, queryName: target.stream.name, incident: incoming });
      } else if (open.incident.summary !== incoming.summary) {
        // A later failed run: "Open in Databricks" should lead to that run's page.
        if (target.stream.runPageUrl) await store.streams.upsert(target.stream, nowMs);
        changes.push({ type: 'updated', queryId, queryName: target.stream.name, incident: { ...incoming, openedAt: open.incident.openedAt } });
      }
    } else if (open && target.action.resolveAtMs >= open.openedAt) {
      const resolvedAt = new Date(target.action.resolveAtMs).toISOString();
      changes.push({ type: 'resolved', queryId, queryName: target.stream.name, incident: { ...open.incident, resolvedAt } });
    }
    if (changes.length > 0) {
      await store.queries.commitChanges(queryId, changes, nowMs);
      touched.add(queryId);
    }
  }
  return [...touched];
}
