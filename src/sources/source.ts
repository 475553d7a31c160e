/**
 * One interface for every place progress comes from: "new progress since my cursor". The cursor is a
 * JSON value the worker stores (Redis) between polls and hands back; `null` means "first poll".
 */
import type { Progress } from '../progress/types.js';

export type SourceName = 'progress_table' | 'pipeline_event_log' | 'job_runs';

export interface SourcedProgress {
  progress: Progress;
  /** Where the record came from, for messages that point at it. */
  origin: { source: SourceName; ref: string };
  /** Parser warnings for this record. */
  warnings: string[];
}

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

export interface PollResult<C> {
  /** New progress, ordered by trigger time within each query. */
  progress: SourcedProgress[];
  signals: SourceSignal[];
  /** Persist this and pass it to the next poll. */
  cursor: C;
  /** Rows or events that could not be used, each saying which and why. */
  warnings: string[];
  /** True when the poll stopped at its size bound and more is waiting (poll again soon). */
  more: boolean;
}

export interface ProgressSource<C> {
  readonly name: SourceName;
  /** Reads what is new since `cursor`. Throws typed Databricks errors; the cursor is then unchanged. */
  poll(cursor: C | null): Promise<PollResult<C>>;
}

/** Orders progress by trigger time (stable), so late rows reach the engine in order within a poll. */
export function byTriggerTime(a: SourcedProgress, b: SourcedProgress): number {
  return a.progress.timestampMs - b.progress.timestampMs || (a.progress.batchId ?? -1) - (b.progress.batchId ?? -1);
}
