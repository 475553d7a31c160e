/**
 * Facts the sources report that are not progress (job runs, pipeline updates, flow backlog), and the
 * pure mapping from one of them to the `failed` incident of the job or pipeline that hosts streams.
 * One incident per job or pipeline at a time: its host id is `job-<id>` / `pipeline-<id>`; a new
 * failure while one is open updates it, and a run (job) or update (pipeline) that started after it
 * resolves it (the app applies that to the store). A watched job whose runs cannot be read gets a
 * `source_unreadable` incident on the same host entry, resolved once it reads again.
 */
import type { Incident, IncidentKind } from './types.js';

/** Facts that are not progress: liveness of jobs, backlog of pipeline flows, pipeline failures and recoveries, jobs that cannot be read. */
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
  | {
      /** A run of the job is RUNNING (a QUEUED or PENDING one is no recovery yet). */
      type: 'job_running';
      jobId: number;
      jobName?: string;
      runId: number;
      runPageUrl: string | null;
      startedAtMs: number;
    }
  | {
      type: 'flow_backlog';
      pipelineId: string;
      flowName: string;
      backlogBytes: number | null;
      backlogFiles: number | null;
      atMs: number;
    }
  | { type: 'pipeline_failed'; pipelineId: string; /** `origin.pipeline_name` of the event. */ pipelineName?: string; updateId: string | null; message: string; atMs: number }
  | {
      /** An update of the pipeline reached RUNNING (or COMPLETED: a triggered update): resolves an earlier failure. */
      type: 'pipeline_running';
      pipelineId: string;
      pipelineName?: string;
      updateId: string | null;
      state: string;
      /** The update's earliest event the source read (its start as far as known; ≤ the RUNNING event). */
      startedAtMs: number;
      atMs: number;
    }
  | {
      /**
       * The job's runs cannot be listed (403 without CAN VIEW, 404 / 400 for a deleted job, or a transient
       * error that has lasted): its failures and liveness are unknown meanwhile.
       */
      type: 'job_unreadable';
      jobId: number;
      jobName?: string;
      /** Databricks `error_code` (`PERMISSION_DENIED`, …) and HTTP status (0: no answer). */
      errorCode: string;
      httpStatus: number;
      /** Databricks' message at the streak's start, credentials scrubbed (stable while the code is). */
      message: string;
      /** Start of the streak: the incident's opening, so re-polls commit the same incident. */
      sinceMs: number;
      /** Refused for this job (403, 404, 400 "does not exist") rather than failing transiently. */
      permanent: boolean;
    }
  | { /** A job that could not be read is read again. */ type: 'job_readable'; jobId: number; jobName?: string; atMs: number }
  | {
      /** A job or pipeline taken out of the watch file: nothing will resolve its open incidents any more. */
      type: 'host_unwatched';
      host: { jobId: number } | { pipelineId: string };
      /** Its name as last known; absent when none was. */
      name?: string;
      atMs: number;
    };

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

/** What a signal asks of its host's incident (`failed`, or `source_unreadable` for a job that cannot be read). */
export interface SignalOutcome {
  host: SignalHost;
  /**
   * Open the incident (or update the open one of its kind) with this content, or resolve the open ones
   * of `kinds` (default `failed`) that opened at or before `resolveAtMs`; `note` ends their summary.
   */
  action: { open: Incident } | { resolveAtMs: number; kinds?: IncidentKind[]; note?: string };
}

/** What people are told to do about each kind of host failure. */
export const HOST_FAILURE_ADVICE = {
  jobRunFailed: 'Open the run page for the error and the failing task; the stream resumes from its checkpoint when the job runs again.',
  jobNotRunning: 'Start the job again (or check why the continuous trigger stopped it); its streams process nothing meanwhile.',
  pipelineFailed: 'Open the pipeline event log for the failing flow; fix it and start a new update.',
  jobPermissionDenied: 'Grant StreamDoctor’s principal CAN VIEW on the job (job permissions), or remove the job from the watch file.',
  jobNotFound: 'Check the job id in the watch file: Databricks does not know it (deleted or mistyped). Correct it or remove it.',
  jobReadFailing: 'Databricks keeps failing to list this job’s runs; check the workspace status and the worker log. Reads resume by themselves.',
} as const;

/** The summary of an incident resolved with a note (which run or update recovered), within the 500-character bound. */
export function withResolveNote(summary: string, note: string): string {
  const tail = ` ${note}`.slice(0, 200);
  return `${summary.slice(0, 500 - tail.length)}${tail}`;
}

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

function pipelineHost(signal: { pipelineId: string; pipelineName?: unknown }): SignalHost {
  const name = typeof signal.pipelineName === 'string' && signal.pipelineName.trim() ? signal.pipelineName.trim().slice(0, 200) : `pipeline ${signal.pipelineId}`;
  return { hostId: `pipeline-${signal.pipelineId}`, name, pipelineId: signal.pipelineId };
}

/**
 * What one signal means for its host's incident; null for signals that open nothing
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
        host: pipelineHost(s),
        action: { open: failedIncident(`Pipeline update ${s.updateId ?? ''} failed: ${s.message}`.replace('  ', ' '), s.atMs, HOST_FAILURE_ADVICE.pipelineFailed) },
      };
    }
    case 'pipeline_running': {
      // As a job's new run does: only an update that started after the failure resolves it (the
      // app compares with the incident's opening), and the summary says which one recovered.
      const s = signal as Extract<SourceSignal, { type: 'pipeline_running' }>;
      const update = s.updateId ? `update ${s.updateId}` : 'a new update';
      return { host: pipelineHost(s), action: { resolveAtMs: s.startedAtMs, note: `Recovered: ${update} reached ${s.state} at ${new Date(s.atMs).toISOString()}.` } };
    }
    case 'job_unreadable': {
      // StreamDoctor's blindness, not the job's failure: its own kind, so liveness does not read it as down.
      const s = signal as Extract<SourceSignal, { type: 'job_unreadable' }>;
      const refused = s.httpStatus === 403 || s.errorCode === 'PERMISSION_DENIED';
      const advice = refused ? HOST_FAILURE_ADVICE.jobPermissionDenied : s.permanent ? HOST_FAILURE_ADVICE.jobNotFound : HOST_FAILURE_ADVICE.jobReadFailing;
      const answer = s.httpStatus > 0 ? `${s.httpStatus} ${s.errorCode}` : s.errorCode;
      const summary = `StreamDoctor cannot read the runs of job ${s.jobId}: Databricks answered ${answer}${s.message ? ` (${s.message})` : ''}. Its failed runs and liveness are not reported meanwhile.`;
      return {
        host: { hostId: `job-${s.jobId}`, name: jobName(s), jobId: String(s.jobId) },
        action: { open: { ...failedIncident(summary, s.sinceMs, advice), kind: 'source_unreadable', severity: 'warning' } },
      };
    }
    case 'job_readable': {
      const s = signal as Extract<SourceSignal, { type: 'job_readable' }>;
      return { host: { hostId: `job-${s.jobId}`, name: jobName(s), jobId: String(s.jobId) }, action: { resolveAtMs: s.atMs, kinds: ['source_unreadable'] } };
    }
    case 'host_unwatched': {
      // Nothing watches it now, so no run or update would ever resolve what it has open.
      const s = signal as Extract<SourceSignal, { type: 'host_unwatched' }>;
      const host: SignalHost =
        'jobId' in s.host ? { hostId: `job-${s.host.jobId}`, name: jobName({ jobId: s.host.jobId, jobName: s.name }), jobId: String(s.host.jobId) } : pipelineHost({ pipelineId: s.host.pipelineId, pipelineName: s.name });
      const note = `Closed unconfirmed: taken out of the watch file at ${new Date(s.atMs).toISOString()}, so StreamDoctor no longer reads it.`;
      return { host, action: { resolveAtMs: s.atMs, kinds: ['failed', 'source_unreadable'], note } };
    }
    default:
      return null;
  }
}
