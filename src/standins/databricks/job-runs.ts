/**
 * Jobs and their runs, listed the way `GET /api/2.2/jobs/runs/list` lists them (newest first, paged),
 * and each job's settings as `GET /api/2.1/jobs/get` returns them (tasks and job cluster specs). Active
 * runs are RUNNING, or QUEUED (a concurrency limit) / PENDING (its cluster starting) until they begin.
 */

export interface StandinRun {
  job_id: number;
  run_id: number;
  number_in_job: number;
  original_attempt_run_id: number;
  run_name: string;
  run_page_url: string;
  run_type: 'JOB_RUN';
  trigger: string;
  creator_user_name: string;
  start_time: number;
  end_time: number;
  setup_duration: number;
  execution_duration: number;
  cleanup_duration: number;
  /** Time spent queued, ms; set once a queued run begins. */
  queue_duration?: number;
  state: { life_cycle_state: string; result_state?: string; state_message: string; user_cancelled_or_timedout: boolean; queue_reason?: string };
  status: {
    state: string;
    termination_details?: { code: string; type: string; message: string };
    queue_details?: { code: string; message: string };
  };
}

/** Why a run waits in the queue, as `status.queue_details` says it. */
const QUEUED_FOR = { code: 'MAX_CONCURRENT_RUNS_REACHED', message: 'The run was queued due to reaching the per-job limit of concurrent job runs.' };

/** `state` (deprecated, still sent) and `status` of a run that has not ended. */
function activeState(state: 'RUNNING' | 'QUEUED' | 'PENDING'): Pick<StandinRun, 'state' | 'status'> {
  if (state === 'QUEUED') {
    return {
      state: { life_cycle_state: 'QUEUED', state_message: QUEUED_FOR.message, user_cancelled_or_timedout: false, queue_reason: QUEUED_FOR.message },
      status: { state: 'QUEUED', queue_details: { ...QUEUED_FOR } },
    };
  }
  if (state === 'PENDING') return { state: { life_cycle_state: 'PENDING', state_message: 'Waiting for cluster', user_cancelled_or_timedout: false }, status: { state: 'PENDING' } };
  return { state: { life_cycle_state: 'RUNNING', state_message: 'In run', user_cancelled_or_timedout: false }, status: { state: 'RUNNING' } };
}

/** A cluster spec as `jobs/get` returns it (wire shape). */
export interface StandinClusterSpec {
  spark_version?: string;
  node_type_id?: string;
  driver_node_type_id?: string;
  instance_pool_id?: string;
  num_workers?: number;
  autoscale?: { min_workers: number; max_workers: number };
}

export interface StandinTask {
  task_key: string;
  job_cluster_key?: string;
  new_cluster?: StandinClusterSpec;
  existing_cluster_id?: string;
  environment_key?: string;
}

export interface JobInfo {
  jobId: number;
  name: string;
  continuous: boolean;
  /**
   * Where the job's tasks run, as `jobs/get` says it. @defaultValue one task on job cluster `main`,
   * 2 × `i3.xlarge` workers
   */
  compute?: { job_clusters?: { job_cluster_key: string; new_cluster: StandinClusterSpec }[]; tasks: StandinTask[] };
}

const DEFAULT_COMPUTE: NonNullable<JobInfo['compute']> = {
  job_clusters: [{ job_cluster_key: 'main', new_cluster: { spark_version: '15.4.x-scala2.12', node_type_id: 'i3.xlarge', num_workers: 2 } }],
  tasks: [{ task_key: 'stream', job_cluster_key: 'main' }],
};

export class JobRuns {
  private readonly jobs = new Map<number, JobInfo>();
  private readonly runs: StandinRun[] = [];
  private nextRunId = 21_072_094;

  constructor(private readonly host: string) {}

  addJob(info: JobInfo): void {
    this.jobs.set(info.jobId, info);
  }

  hasJob(jobId: number): boolean {
    return this.jobs.has(jobId);
  }

  /** The job as `GET /api/2.1/jobs/get` returns it, or undefined when there is no such job. */
  getJob(jobId: number): Record<string, unknown> | undefined {
    const job = this.jobs.get(jobId);
    if (!job) return undefined;
    const compute = job.compute ?? DEFAULT_COMPUTE;
    return {
      job_id: job.jobId,
      creator_user_name: 'svc-streaming@acme.com',
      run_as_user_name: 'svc-streaming@acme.com',
      run_as_owner: true,
      created_time: 1_735_689_600_000,
      settings: {
        name: job.name,
        email_notifications: {},
        webhook_notifications: {},
        timeout_seconds: 0,
        max_concurrent_runs: 1,
        ...(job.continuous ? { continuous: { pause_status: 'UNPAUSED' } } : {}),
        tasks: compute.tasks.map((task) => ({
          ...task,
          notebook_task: { notebook_path: `/Repos/streaming/${job.name}/${task.task_key}`, source: 'WORKSPACE' },
          run_if: 'ALL_SUCCESS',
          timeout_seconds: 0,
          email_notifications: {},
        })),
        ...(compute.job_clusters?.length ? { job_clusters: compute.job_clusters } : {}),
        format: 'MULTI_TASK',
        queue: { enabled: true },
      },
    };
  }

  /** Starts a run (RUNNING). */
  startRun(jobId: number, nowMs: number): StandinRun {
    return this.addRun(jobId, nowMs, 'RUNNING');
  }

  /**
   * Adds an active run that does not execute yet: QUEUED (the job's concurrency limit reached) or
   * PENDING (its cluster starting), until `beginRun`.
   */
  queueRun(jobId: number, nowMs: number, state: 'QUEUED' | 'PENDING' = 'QUEUED'): StandinRun {
    return this.addRun(jobId, nowMs, state);
  }

  /** A QUEUED or PENDING run begins executing (RUNNING). */
  beginRun(runId: number, nowMs: number): StandinRun {
    const run = this.runs.find((candidate) => candidate.run_id === runId);
    if (!run || run.end_time !== 0) throw new Error(`no waiting run ${runId}`);
    if (run.state.life_cycle_state === 'QUEUED') run.queue_duration = Math.max(0, Math.floor(nowMs) - run.start_time);
    Object.assign(run, activeState('RUNNING'));
    return run;
  }

  private addRun(jobId: number, nowMs: number, state: 'RUNNING' | 'QUEUED' | 'PENDING'): StandinRun {
    const job = this.jobs.get(jobId);
    if (!job) throw new Error(`unknown job ${jobId}`);
    const runId = this.nextRunId++;
    const run: StandinRun = {
      job_id: jobId,
      run_id: runId,
      number_in_job: runId,
      original_attempt_run_id: runId,
      run_name: job.name,
      run_page_url: `${this.host}/?o=1234567890123456#job/${jobId}/run/${runId}`,
      run_type: 'JOB_RUN',
      trigger: job.continuous ? 'CONTINUOUS' : 'PERIODIC',
      creator_user_name: 'svc-streaming@acme.com',
      start_time: Math.floor(nowMs),
      end_time: 0,
      setup_duration: state === 'RUNNING' ? 91_000 : 0,
      execution_duration: 0,
      cleanup_duration: 0,
      ...activeState(state),
    };
    this.runs.push(run);
    return run;
  }

  /** Ends a run: `result` SUCCESS, FAILED, CANCELED or TIMEDOUT. */
  endRun(runId: number, nowMs: number, result: 'SUCCESS' | 'FAILED' | 'CANCELED' | 'TIMEDOUT', message: string): StandinRun {
    const run = this.runs.find((candidate) => candidate.run_id === runId);
    if (!run) throw new Error(`unknown run ${runId}`);
    run.end_time = Math.floor(nowMs);
    run.execution_duration = Math.max(0, run.end_time - run.start_time - run.setup_duration);
    run.state = { life_cycle_state: 'TERMINATED', result_state: result, state_message: message, user_cancelled_or_timedout: result === 'CANCELED' };
    const code = result === 'SUCCESS' ? 'SUCCESS' : result === 'CANCELED' ? 'USER_CANCELED' : 'RUN_EXECUTION_ERROR';
    run.status = {
      state: 'TERMINATED',
      termination_details: { code, type: result === 'SUCCESS' || result === 'CANCELED' ? 'SUCCESS' : 'CLIENT_ERROR', message },
    };
    return run;
  }

  activeRun(jobId: number): StandinRun | undefined {
    return this.runs.find((run) => run.job_id === jobId && run.end_time === 0);
  }

  get(runId: number): StandinRun | undefined {
    return this.runs.find((run) => run.run_id === runId);
  }

  list(query: { jobId?: number; runType?: string; activeOnly: boolean; completedOnly: boolean; startTimeFrom?: number; startTimeTo?: number }): StandinRun[] {
    return this.runs
      .filter((run) => query.jobId === undefined || run.job_id === query.jobId)
      .filter((run) => query.runType === undefined || run.run_type === query.runType)
      .filter((run) => !query.activeOnly || run.end_time === 0)
      .filter((run) => !query.completedOnly || run.end_time !== 0)
      .filter((run) => query.startTimeFrom === undefined || run.start_time >= query.startTimeFrom)
      .filter((run) => query.startTimeTo === undefined || run.start_time <= query.startTimeTo)
      .sort((a, b) => b.start_time - a.start_time || b.run_id - a.run_id);
  }
}
