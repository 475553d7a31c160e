/**
 * What the poll job needs from a progress source. Structurally the same as
 * src/sources/source.ts `ProgressSource<C>` ("new progress since my cursor"), so the sources plug in
 * as they are; the cursor is any JSON value, stored between polls as JSON text.
 */
import type { Progress } from '../src/progress/types.js';
import type { StreamInfo } from '../src/store/types.js';

export interface PolledProgress {
  progress: Progress;
  origin?: { source: string; ref: string };
  warnings?: string[];
}

export interface SourcePollResult {
  progress: PolledProgress[];
  /** Job/pipeline liveness facts; counted and logged (incidents from them are issue 3's). */
  signals?: unknown[];
  cursor: unknown;
  warnings: string[];
  /** More is waiting: the poll job asks for another poll right away. */
  more?: boolean;
}

export interface PollableSource {
  poll(cursor: unknown): Promise<SourcePollResult>;
  /**
   * Job-runs sources (src/sources/job-runs-source.ts): whether a job had an active run at the last
   * poll; undefined when unknown. The jobs it answers for are the keys of its cursor's `jobs`.
   */
  isJobRunning?(jobId: number): boolean | undefined;
}

/** What a job-runs poll says about each job it watched (empty for other sources). */
export function jobLivenessOf(source: PollableSource, cursor: unknown): { jobId: string; running: boolean }[] {
  if (typeof source.isJobRunning !== 'function' || !cursor || typeof cursor !== 'object') return [];
  const jobs = (cursor as { jobs?: unknown }).jobs;
  if (!jobs || typeof jobs !== 'object') return [];
  const out: { jobId: string; running: boolean }[] = [];
  for (const key of Object.keys(jobs).slice(0, 10_000)) {
    const running = source.isJobRunning(Number(key));
    if (typeof running === 'boolean') out.push({ jobId: key, running });
  }
  return out;
}

/** A configured source: the source itself plus what the config knows about its streams. */
export interface SourceEntry {
  /** Stable id, used in scheduler ids and as the cursor key. */
  id: string;
  source: PollableSource;
  /** Workspace name (watch file), for the source-health message. @defaultValue none: the id alone */
  workspace?: string;
  /** Job id, pipeline id, run page URL … for a query, from the watch config or the source. */
  describe?: (progress: Progress) => Partial<StreamInfo>;
}

/** Sources by id. */
export type SourceRegistry = ReadonlyMap<string, SourceEntry>;
