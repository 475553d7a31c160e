/**
 * Liveness of the jobs that host watched streams (`GET /api/2.2/jobs/runs/list`). Each poll says, per
 * job, whether a run is RUNNING (`job_running`, which resolves the job's `failed` incident; a QUEUED or
 * PENDING run, also listed as active, is on its way, not a recovery: the job is not running yet);
 * reports every run that ended badly since the last poll (`job_run_failed`, with the state message and
 * run page); and flags a continuous job with no active run at all (`job_not_running`). A stall (a query
 * silent while data waits) is judged by the engine from the query's own cadence, not from these signals.
 *
 * Each job is read on its own: one job that cannot be read (403 without CAN VIEW, a deleted job) is
 * skipped with a warning naming it and Databricks' error code, and is left out of `liveness()` (unknown),
 * while the other jobs' signals and liveness go out. A refusal for the job (403/404/400) raises
 * `job_unreadable` at once (its `source_unreadable` incident on `job-<id>`); a transient error
 * (429, 5xx, network) only once it has lasted `unreadableAfterMs`. Its cursor entry is kept, so runs
 * that failed meanwhile are reported when it reads again (`job_readable` resolves the incident).
 * Workspace-wide failures still fail the whole poll, for source health: credentials refused (401, or a
 * 403 / 400 saying the token is invalid or expired), or no job read at all for a reason that is not a
 * per-job refusal.
 */
import { z } from 'zod';
import { DEFAULTS } from '../config/defaults.js';
import type { DatabricksClient } from '../databricks/databricks-client.js';
import { DatabricksApiError, UnauthenticatedError } from '../databricks/errors.js';
import type { Run } from '../databricks/wire-types.js';
import { redactSecrets } from '../observability/logger.js';
import { isRecord, stringOrUndefined as text } from '../progress/values.js';
import type { WatchedJobState, PollResult, ProgressSource, SourceSignal } from './source.js';

export interface WatchedJob {
  jobId: number;
  /** The job's name as people know it. @defaultValue the `run_name` of its latest run */
  name?: string;
  /** Continuous job: no active run is an incident. @defaultValue inferred from the trigger of its runs */
  continuous?: boolean;
}

/** A job's failure streak: what Databricks answered at its start, and whether it was a refusal. */
export interface JobReadFailure {
  sinceMs: number;
  errorCode: string;
  httpStatus: number;
  message: string;
  permanent: boolean;
}

export interface JobRunsCursor {
  v: 1;
  jobs: Record<string, { endedAfterMs: number; reported: number[]; /** Set while the job cannot be read. */ unreadable?: JobReadFailure }>;
}

export interface JobRunsSourceOptions {
  client: DatabricksClient;
  jobs: WatchedJob[] | (() => WatchedJob[]);
  /** First poll reports runs that ended this recently. @defaultValue 900_000 */
  initialLookbackMs?: number;
  /** Pages of completed runs read per job per poll (25 runs each). @defaultValue 2 */
  maxPages?: number;
  /**
   * A job failing transiently (429, 5xx, network) this long is reported unreadable; a refusal
   * (403/404/400) at once. @defaultValue 300000 (the source-health threshold's default)
   */
  unreadableAfterMs?: number;
  /** @defaultValue Date.now */
  now?: () => number;
}

const BAD_RESULTS = new Set(['FAILED', 'TIMEDOUT', 'MAXIMUM_CONCURRENT_RUNS_REACHED', 'UPSTREAM_FAILED', 'INTERNAL_ERROR']);

const failureSchema = z.object({
  sinceMs: z.number().finite(),
  errorCode: z.string(),
  httpStatus: z.number(),
  message: z.string(),
  permanent: z.boolean(),
});

const cursorSchema = z.object({
  v: z.literal(1),
  jobs: z.record(z.string(), z.object({ endedAfterMs: z.number().finite(), reported: z.array(z.number()), unreadable: failureSchema.optional() })),
});

/** Databricks' own words from an error (the text after "answered <status> <code>: "), credentials scrubbed, bounded. */
function saidBy(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  // The client's own prefix repeats the status and code the caller names already.
  const match = /answered \d+ [A-Z_]+(?:: (.*))?$/s.exec(text);
  const words = match ? (match[1] ?? '') : text;
  return redactSecrets(words).replace(/\s+/g, ' ').trim().slice(0, 240);
}

/** How a failed read of one job counts: refused for this job, the workspace's credentials, or transient. */
function readFailureOf(err: unknown): { errorCode: string; httpStatus: number; kind: 'job' | 'credentials' | 'transient' } {
  if (!(err instanceof DatabricksApiError)) return { errorCode: err instanceof Error ? err.name : 'UNKNOWN', httpStatus: 0, kind: 'transient' };
  const { errorCode, httpStatus } = err;
  // A revoked or expired token answers 403 "Invalid access token." for every job alike.
  if (err instanceof UnauthenticatedError && err.credentialsRejected) return { errorCode, httpStatus, kind: 'credentials' };
  // 403: no CAN VIEW on this job; 404, or 400 "Job … does not exist.": a deleted or mistyped job id.
  // Another 400 is the request's fault, the same for every job: not a refusal of this one.
  if (httpStatus === 403 || httpStatus === 404 || (httpStatus === 400 && /does not exist/i.test(err.message))) return { errorCode, httpStatus, kind: 'job' };
  return { errorCode, httpStatus, kind: 'transient' };
}

/**
 * The fields of a listed run this source reads, each of the type the API documents (a value of
 * another type is dropped; a run id printed as digits is read as the number it is); null when `raw`
 * has no run id. One odd run must not hide the job's real failures, nor break the stored cursor.
 */
function runOf(raw: unknown): Run | null {
  if (!isRecord(raw)) return null;
  const runId = typeof raw.run_id === 'string' && /^\d+$/.test(raw.run_id) ? Number(raw.run_id) : raw.run_id;
  if (typeof runId !== 'number' || !Number.isSafeInteger(runId) || runId < 0) return null;
  const time = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
  const state = isRecord(raw.state) ? raw.state : {};
  const status = isRecord(raw.status) ? raw.status : {};
  const termination = isRecord(status.termination_details) ? status.termination_details : {};
  return {
    run_id: runId,
    run_name: text(raw.run_name),
    run_page_url: text(raw.run_page_url),
    trigger: text(raw.trigger),
    start_time: time(raw.start_time),
    end_time: time(raw.end_time),
    state: { life_cycle_state: text(state.life_cycle_state), result_state: text(state.result_state), state_message: text(state.state_message) },
    status: { state: text(status.state), termination_details: { message: text(termination.message) } },
  };
}

/** The runs of `raw` that are runs (`runOf`), and how many were not. */
function readRuns(raw: readonly unknown[]): { runs: Run[]; dropped: number } {
  const runs: Run[] = [];
  for (const item of raw) {
    const run = runOf(item);
    if (run) runs.push(run);
  }
  return { runs, dropped: raw.length - runs.length };
}

function resultOf(run: Run): string | null {
  if (run.state?.result_state) return run.state.result_state;
  if (run.state?.life_cycle_state === 'INTERNAL_ERROR') return 'INTERNAL_ERROR';
  return null;
}

/** The run is executing: `status.state` (preferred), else the deprecated `state.life_cycle_state`. */
function isRunning(run: Run): boolean {
  return (run.status?.state ?? run.state?.life_cycle_state) === 'RUNNING';
}

function messageOf(run: Run): string {
  return run.state?.state_message || run.status?.termination_details?.message || '';
}

export class JobRunsSource implements ProgressSource<JobRunsCursor> {
  readonly name = 'job_runs' as const;
  /** Latest answer per job: the start of its RUNNING run (epoch ms, 0 when Databricks gave none), or null when none runs. */
  private readonly running = new Map<number, number | null>();
  /** The jobs of the last poll and whether each ran. */
  private lastLiveness: WatchedJobState[] = [];
  /** Names jobs' runs gave, so an unreadable job is still called by its name. */
  private readonly names = new Map<number, string>();

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
    // Each job on its own: one job that cannot be read must not hide the others' failures.
    const results = await Promise.allSettled(jobs.map((job) => this.pollJob(job, previous.jobs[String(job.jobId)] ?? null, now)));
    const read: string[] = [];
    const failures: unknown[] = [];
    let refusedForJob = false;
    jobs.forEach((job, index) => {
      const key = String(job.jobId);
      const entry = previous.jobs[key] ?? null;
      const result = results[index]!;
      if (result.status === 'fulfilled') {
        cursor.jobs[key] = result.value.entry;
        signals.push(...result.value.signals);
        warnings.push(...result.value.warnings);
        read.push(key);
        if (entry?.unreadable) signals.push({ type: 'job_readable', jobId: job.jobId, ...this.nameField(job), atMs: now });
        return;
      }
      const err = result.reason;
      failures.push(err);
      const failure = readFailureOf(err);
      refusedForJob ||= failure.kind === 'job';
      // The streak keeps its start and first message while the code stays the same, so the
      // incident it raises is committed once, not re-worded by each request id Databricks adds.
      const same = entry?.unreadable && entry.unreadable.errorCode === failure.errorCode && entry.unreadable.httpStatus === failure.httpStatus;
      const unreadable: JobReadFailure = same
        ? entry.unreadable!
        : { sinceMs: entry?.unreadable?.sinceMs ?? now, errorCode: failure.errorCode, httpStatus: failure.httpStatus, message: saidBy(err), permanent: failure.kind === 'job' };
      // Kept as it was (or from the initial lookback), so what failed meanwhile is reported later.
      cursor.jobs[key] = { endedAfterMs: entry?.endedAfterMs ?? now - (this.options.initialLookbackMs ?? 900_000), reported: entry?.reported ?? [], unreadable };
      this.running.delete(job.jobId);
      const named = this.nameField(job);
      const answer = failure.httpStatus ? `Databricks answered ${failure.httpStatus} ${failure.errorCode}` : `no answer from Databricks (${failure.errorCode})`;
      warnings.push(`job ${job.jobId}${named.jobName ? ` (${named.jobName})` : ''} cannot be read: ${answer}; skipped this poll`);
      if (unreadable.permanent || now - unreadable.sinceMs >= (this.options.unreadableAfterMs ?? DEFAULTS.sourceFailingSeconds * 1000)) {
        signals.push({ type: 'job_unreadable', jobId: job.jobId, ...named, ...unreadable });
      }
    });
    // A job taken out of the watch file: what it has open would otherwise stay open for good.
    const watched = new Set(jobs.map((job) => String(job.jobId)));
    for (const key of Object.keys(previous.jobs)) {
      if (watched.has(key) || !/^\d+$/.test(key)) continue;
      const jobId = Number(key);
      const name = this.names.get(jobId);
      signals.push({ type: 'host_unwatched', host: { jobId }, ...(name ? { name } : {}), atMs: now });
    }
    // The workspace, not a job: refused credentials, or nothing read and not for a per-job refusal.
    // Fail the poll so source health records the streak (its own incident past the threshold).
    const credentials = failures.find((err) => readFailureOf(err).kind === 'credentials');
    if (credentials !== undefined) throw credentials;
    if (jobs.length > 0 && read.length === 0 && !refusedForJob) throw failures[0];
    // Unread jobs are left out: their liveness is unknown (detect judges their streams as usual).
    this.lastLiveness = read.map((jobId) => {
      const startedAtMs = this.running.get(Number(jobId)) ?? null;
      return { jobId, running: startedAtMs !== null, runStartedAtMs: startedAtMs !== null && startedAtMs > 0 ? startedAtMs : null };
    });
    return { progress: [], signals, cursor, warnings, more: false };
  }

  /** The job's name from the watch file, else from its runs (remembered while it cannot be read). */
  private nameField(job: WatchedJob): { jobName?: string } {
    const name = job.name?.trim() || this.names.get(job.jobId);
    return name ? { jobName: name } : {};
  }

  private async pollJob(job: WatchedJob, entry: JobRunsCursor['jobs'][string] | null, now: number) {
    const { jobs } = this.options.client;
    const activeRead = readRuns(await jobs.listAllRuns({ jobId: job.jobId, activeOnly: true }, 4));
    const completedRead = readRuns(await jobs.listAllRuns({ jobId: job.jobId, completedOnly: true }, this.options.maxPages ?? 2));
    const active = activeRead.runs;
    const completed = completedRead.runs;
    const dropped = activeRead.dropped + completedRead.dropped;
    const warnings = dropped > 0 ? [`job ${job.jobId}: ${dropped} of the runs Databricks listed ${dropped === 1 ? 'has' : 'have'} no run id; skipped`] : [];
    const endedAfterMs = entry?.endedAfterMs ?? now - (this.options.initialLookbackMs ?? 900_000);
    const reported = new Set(entry?.reported ?? []);
    const signals: SourceSignal[] = [];
    let newestEnd = endedAfterMs;

    // People know jobs by name: the watch file's, else the name the runs carry.
    const named = [...active, ...completed].sort((a, b) => (b.start_time ?? 0) - (a.start_time ?? 0)).find((run) => run.run_name?.trim());
    const jobName = job.name?.trim() || named?.run_name?.trim() || undefined;
    if (named?.run_name?.trim()) this.names.set(job.jobId, named.run_name.trim());
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

    const newestFirst = active.sort((a, b) => (b.start_time ?? 0) - (a.start_time ?? 0));
    const current = newestFirst.find(isRunning);
    this.running.set(job.jobId, current ? (current.start_time ?? 0) : null);
    const latest = newestFirst[0] ?? ended.at(-1);
    const continuous = job.continuous ?? (latest?.trigger === 'CONTINUOUS' || latest?.trigger === 'CONTINUOUS_RESTART');
    if (current) {
      signals.push({ type: 'job_running', jobId: job.jobId, ...nameField, runId: current.run_id, runPageUrl: current.run_page_url ?? null, startedAtMs: current.start_time ?? 0 });
    } else if (continuous && newestFirst.length === 0) {
      // No active run at all: a queued, pending or terminating one leaves the job down but on its way.
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
    // Never past our own clock: a run stamped as ending hours ahead would hide the runs that end
    // before that (they are read again until the clock passes it; `reported` keeps them once).
    const bound = Math.max(endedAfterMs, Math.min(newestEnd, now));
    const keep = [...reported].filter((runId) => ended.some((run) => run.run_id === runId && run.end_time! >= bound - 86_400_000));
    return { entry: { endedAfterMs: bound, reported: keep }, signals, warnings };
  }
}
