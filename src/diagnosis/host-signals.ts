/**
 * Facts the sources report that are not progress (job runs, pipeline updates, flow backlog), and the
 * pure mapping from one of them to the `failed` incident of the job or pipeline that hosts streams.
 * One incident per job or pipeline at a time: its host id is `job-<id>` / `pipeline-<id>`; a new
 * failure while one is open updates it, and a new run resolves it (the app applies that to the store).
 */
import type { Incident } from './types.js';

/** Facts that are not progress: liveness of jobs, backlog of pipeline flows, pipeline failures. */
export type SourceSignal =
  | {
      type: 'job_run_failed';
      jobId: number;
      /** The job's name (watch file, else the run's `run_name`); absent when neither says. */
      jobName?: string;
      runId: number;
      /** `result_state` (FAILED, TIMEDOUT, …) or the life-cycle state (INTERNAL_ERROR). */
      resultState: string;
      stateMessage: string;
      runPageUrl: string | null;
      endedAtMs: number;
    }
  | {
      /** A continuous job with no active run. */
      type: 'job_not_running';
      jobId: number;
      jobName?: string;
      lastRun: { runId: number; resultState: string | null; stateMessage: string; runPageUrl: string | null; endedAtMs: number } | null;
    }
  | { type: 'job_running'; jobId: number; jobName?: string; runId: number; runPageUrl: string | null; startedAtMs: number }
  | {
      type: 'flow_backlog';
      pipelineId: string;
      flowName: string;
      backlogBytes: number | null;
      backlogFiles: number | null;
      atMs: number;
    }
  | { type: 'pipeline_failed'; pipelineId: string; /** `origin.pipeline_name` of the event. */ pipelineName?: string; updateId: string | null; message: string; atMs: number };

/** Signals as the sources emit them; they reach the app through job data, so unknown types may too. */
export type Signal = SourceSignal | { type: string; [key: string]: unknown };

/** The job or pipeline a signal is about, as a stream entry of its own. */
export interface SignalHost {
  /** `job-<id>` or `pipeline-<id>`: the stream entry (and incident owner) of the host. */
  hostId: string;
  name: string;
  jobId?: string;
  pipelineId?: string;
  runPageUrl?: string;
}

/** What a signal asks of its host's `failed` incident. */
export interface SignalOutcome {
  host: SignalHost;
  /** Open the incident (or update the open one) with this content, or resolve the open one. */
  action: { open: Incident } | { resolveAtMs: number };
}

/** What people are told to do about each kind of host failure. */
export const HOST_FAILURE_ADVICE = {
  jobRunFailed: 'Open the run page for the error and the failing task; the stream resumes from its checkpoint when the job runs again.',
  jobNotRunning: 'Start the job again (or check why the continuous trigger stopped it); its streams process nothing meanwhile.',
  pipelineFailed: 'Open the pipeline event log for the failing flow; fix it and start a new update.',
} as const;

/** Stream entries that stand for a job, a pipeline or a source (its health) rather than a streaming query. */
export function isSignalStream(queryId: string): boolean {
  return /^(job|pipeline|source)-/.test(queryId);
}

export function failedIncident(summary: string, atMs: number, advice: string): Incident {
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
function jobName(signal: { jobId: number; jobName?: unknown }): string {
  return typeof signal.jobName === 'string' && signal.jobName.trim() ? signal.jobName.trim().slice(0, 200) : `job ${signal.jobId}`;
}

/**
 * What one signal means for its host's `failed` incident; null for signals that open nothing
 * (flow backlog, unknown types). `nowMs` stands in for a continuous job that never ran.
 */
export function signalOutcome(signal: Signal, nowMs: number): SignalOutcome | null {
  switch (signal.type) {
    case 'job_run_failed': {
      const s = signal as Extract<SourceSignal, { type: 'job_run_failed' }>;
      return {
        host: { hostId: `job-${s.jobId}`, name: jobName(s), jobId: String(s.jobId), ...(s.runPageUrl ? { runPageUrl: s.runPageUrl } : {}) },
        action: { open: failedIncident(`Run ${s.runId} of job ${s.jobId} ended ${s.resultState}: ${s.stateMessage || 'no message'}`, s.endedAtMs, HOST_FAILURE_ADVICE.jobRunFailed) },
      };
    }
    case 'job_not_running': {
      const s = signal as Extract<SourceSignal, { type: 'job_not_running' }>;
      const last = s.lastRun;
      const detail = last ? `last run ${last.runId} ended ${last.resultState ?? 'without a result'}${last.stateMessage ? `: ${last.stateMessage}` : ''}` : 'no run found';
      return {
        host: { hostId: `job-${s.jobId}`, name: jobName(s), jobId: String(s.jobId), ...(last?.runPageUrl ? { runPageUrl: last.runPageUrl } : {}) },
        action: { open: failedIncident(`Continuous job ${s.jobId} has no active run (${detail})`, last?.endedAtMs || nowMs, HOST_FAILURE_ADVICE.jobNotRunning) },
      };
    }
    case 'job_running': {
      const s = signal as Extract<SourceSignal, { type: 'job_running' }>;
      return { host: { hostId: `job-${s.jobId}`, name: jobName(s), jobId: String(s.jobId) }, action: { resolveAtMs: s.startedAtMs } };
    }
    case 'pipeline_failed': {
      const s = signal as Extract<SourceSignal, { type: 'pipeline_failed' }>;
      return {
        host: { hostId: `pipeline-${s.pipelineId}`, name: typeof s.pipelineName === 'string' && s.pipelineName.trim() ? s.pipelineName.trim().slice(0, 200) : `pipeline ${s.pipelineId}`, pipelineId: s.pipelineId },
        action: { open: failedIncident(`Pipeline update ${s.updateId ?? ''} failed: ${s.message}`.replace('  ', ' '), s.atMs, HOST_FAILURE_ADVICE.pipelineFailed) },
      };
    }
    default:
      return null;
  }
}
