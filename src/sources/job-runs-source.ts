/**
 * Liveness of the jobs that host watched streams (`GET /api/2.2/jobs/runs/list`). Each poll says, per
 * job, whether a run is active (`job_running`, which resolves the job's `failed` incident); reports
 * every run that ended badly since the last poll (`job_run_failed`, with the state message and run
 * page); and flags a continuous job with no active run (`job_not_running`). A stall (a query silent
 * while data waits) is judged by the engine from the query's own cadence, not from these signals.
 */
import { z } from 'zod';
import type { DatabricksClient } from '../databricks/databricks-client.js';
import type { Run } from '../databricks/wire-types.js';
import type { WatchedJobState, PollResult, ProgressSource, SourceSignal } from './source.js';

export interface WatchedJob {
  jobId: number;
  /** The job's name as people know it. @defaultValue the `run_name` of its latest run */
  name?: string;
  /** Continuous job: no active run is an incident. @defaultValue inferred from the trigger of its runs */
  continuous?: boolean;
}

export interface JobRunsCursor {
  v: 1;
  jobs: Record<string, { endedAfterMs: number; reported: number[] }>;
}

export interface JobRunsSourceOptions {
  client: DatabricksClient;
  jobs: WatchedJob[] | (() => WatchedJob[]);
  /** First poll reports runs that ended this recently. @defaultValue 900_000 */
  initialLookbackMs?: number;
  /** Pages of completed runs read per job per poll (25 runs each). @defaultValue 2 */
  maxPages?: number;
  /** @defaultValue Date.now */
  now?: () => number;
}

const BAD_RESULTS = new Set(['FAILED', 'TIMEDOUT', 'MAXIMUM_CONCURRENT_RUNS_REACHED', 'UPSTREAM_FAILED', 'INTERNAL_ERROR']);

const cursorSchema = z.object({
  v: z.literal(1),
  jobs: z.record(z.string(), z.object({ endedAfterMs: z.number().finite(), reported: z.array(z.number()) })),
});

function resultOf(run: Run): string | null {
  if (run.state?.result_state) return run.state.result_state;
  if (run.state?.life_cycle_state === 'INTERNAL_ERROR') return 'INTERNAL_ERROR';
  return null;
}

function messageOf(run: Run): string {
  return run.state?.state_message || run.status?.termination_details?.message || '';
}

export class JobRunsSource implements ProgressSource<JobRunsCursor> {
  readonly name = 'job_runs' as const;
  /** Latest answer per job: the start of its active run (epoch ms, 0 when Databricks gave none), or null when none runs. */
  private readonly running = new Map<number, number | null>();
  /** The jobs of the last poll and whether each ran. */
  private lastLiveness: WatchedJobState[] = [];

  constructor(private readonly options: JobRunsSourceOptions) {}

  /** Every job of the last poll, running or not (empty before the first poll). */
  liveness(): WatchedJobState[] {
    return this.lastLiveness;
  }

  async poll(stored: JobRunsCursor | null): Promise<PollResult<JobRunsCursor>> {
    const warnings: string[] = [];
    const parsed = stored === null ? null : cursorSchema.safeParse(stored);
    if (parsed && !parsed.success) warnings.push('stored job-runs cursor is not valid; reading from the initial lookback');
    const previous: JobRunsCursor = parsed?.success ? parsed.data : { v: 1, jobs: {} };
    const jobs = typeof this.options.jobs === 'function' ? this.options.jobs() : this.options.jobs;
    const now = (this.options.now ?? Date.now)();
    const cursor: JobRunsCursor = { v: 1, jobs: {} };
    const signals: SourceSignal[] = [];
    const results = await Promise.all(jobs.map((job) => this.pollJob(job, previous.jobs[String(job.jobId)] ?? null, now)));
    jobs.forEach((job, index) => {
      const result = results[index]!;
      cursor.jobs[String(job.jobId)] = result.entry;
      signals.push(...result.signals);
    });
    this.lastLiveness = Object.keys(cursor.jobs).map((jobId) => {
      const startedAtMs = this.running.get(Number(jobId)) ?? null;
      return { jobId, running: startedAtMs !== null, runStartedAtMs: startedAtMs !== null && startedAtMs > 0 ? startedAtMs : null };
    });
    return { progress: [], signals, cursor, warnings, more: false };
  }

  private async pollJob(job: WatchedJob, entry: JobRunsCursor['jobs'][string] | null, now: number) {
    const { jobs } = this.options.client;
    const active = await jobs.listAllRuns({ jobId: job.jobId, activeOnly: true, limit: 25 }, 4);
    const completed = await jobs.listAllRuns({ jobId: job.jobId, completedOnly: true, limit: 25 }, this.options.maxPages ?? 2);
    const endedAfterMs = entry?.endedAfterMs ?? now - (this.options.initialLookbackMs ?? 900_000);
    const reported = new Set(entry?.reported ?? []);
    const signals: SourceSignal[] = [];
    let newestEnd = endedAfterMs;

    // People know jobs by name: the watch file's, else the name the runs carry.
    const named = [...active, ...completed].sort((a, b) => (b.start_time ?? 0) - (a.start_time ?? 0)).find((run) => run.run_name?.trim());
    const jobName = job.name?.trim() || named?.run_name?.trim() || undefined;
    const nameField = jobName ? { jobName } : {};

    const ended = completed
      .filter((run) => (run.end_time ?? 0) > 0)
      .sort((a, b) => (a.end_time ?? 0) - (b.end_time ?? 0));
    for (const run of ended) {
      const endedAt = run.end_time!;
      if (endedAt < endedAfterMs || reported.has(run.run_id)) continue;
      newestEnd = Math.max(newestEnd, endedAt);
      const result = resultOf(run);
      if (result && BAD_RESULTS.has(result)) {
        reported.add(run.run_id);
        signals.push({
          type: 'job_run_failed',
          jobId: job.jobId,
          ...nameField,
          runId: run.run_id,
          resultState: result,
          stateMessage: messageOf(run),
          runPageUrl: run.run_page_url ?? null,
          endedAtMs: endedAt,
        });
      }
    }

    const current = active.sort((a, b) => (b.start_time ?? 0) - (a.start_time ?? 0))[0];
    this.running.set(job.jobId, current ? (current.start_time ?? 0) : null);
    const latest = current ?? ended.at(-1);
    const continuous = job.continuous ?? (latest?.trigger === 'CONTINUOUS' || latest?.trigger === 'CONTINUOUS_RESTART');
    if (current) {
      signals.push({ type: 'job_running', jobId: job.jobId, ...nameField, runId: current.run_id, runPageUrl: current.run_page_url ?? null, startedAtMs: current.start_time ?? 0 });
    } else if (continuous) {
      const last = ended.at(-1);
      signals.push({
        type: 'job_not_running',
        jobId: job.jobId,
        ...nameField,
        lastRun: last
          ? { runId: last.run_id, resultState: resultOf(last), stateMessage: messageOf(last), runPageUrl: last.run_page_url ?? null, endedAtMs: last.end_time ?? 0 }
          : null,
      });
    }
    // Runs reported stay remembered only while they could still show up as "ended after" the bound.
    const keep = [...reported].filter((runId) => ended.some((run) => run.run_id === runId && run.end_time! >= newestEnd - 86_400_000));
    return { entry: { endedAfterMs: newestEnd, reported: keep }, signals };
  }
}
