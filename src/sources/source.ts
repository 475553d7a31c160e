/**
 * One interface for every place progress comes from: "new progress since my cursor". The cursor is a
 * JSON value the worker stores (Redis) between polls and hands back; `null` means "first poll".
 */
import type { SourceSignal } from '../diagnosis/host-signals.js';
import type { Progress } from '../progress/types.js';
import type { StreamInfo } from '../store/types.js';

export type SourceName = 'progress_table' | 'pipeline_event_log' | 'job_runs';

export interface SourcedProgress {
  progress: Progress;
  /** Where the record came from, for messages that point at it. */
  origin: { source: SourceName; ref: string };
  /** Parser warnings for this record. */
  warnings: string[];
}

export type { SourceSignal } from '../diagnosis/host-signals.js';

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

/** Whether a watched job had an active run, as a source saw it at its last poll. */
export interface WatchedJobState {
  jobId: string;
  running: boolean;
  /** Start of the active run, epoch ms (a restarted query is silent from it, not from its last report). @defaultValue null: unknown */
  runStartedAtMs?: number | null;
}

export interface ProgressSource<C = unknown> {
  readonly name: SourceName;
  /** Reads what is new since `cursor`. Throws typed Databricks errors; the cursor is then unchanged. */
  poll(cursor: C | null): Promise<PollResult<C>>;
  /**
   * Which of the jobs this source watches had an active run at its last poll (the poll step records
   * it: detect judges a silent query stalled only while its job runs, and answers of jobs no longer
   * listed are dropped). `null` for a source that watches no jobs: the recorded answers stay as they are.
   */
  liveness(): WatchedJobState[] | null;
}

/** A configured source: the source itself plus what the config knows about its streams. */
export interface SourceEntry {
  /** Stable id, used in scheduler ids and as the cursor key. */
  id: string;
  source: ProgressSource;
  /** Workspace name (watch file), for the source-health message. @defaultValue none: the id alone */
  workspace?: string;
  /** Job id, pipeline id, run page URL … for a query, from the watch config or the source. */
  describe?: (progress: Progress) => Partial<StreamInfo>;
}

/** Sources by id. */
export type SourceRegistry = ReadonlyMap<string, SourceEntry>;

/** Orders progress by trigger time (stable), so late rows reach the engine in order within a poll. */
export function byTriggerTime(a: SourcedProgress, b: SourcedProgress): number {
  return a.progress.timestampMs - b.progress.timestampMs || (a.progress.batchId ?? -1) - (b.progress.batchId ?? -1);
}
