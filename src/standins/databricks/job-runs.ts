/** Jobs and their runs, listed the way `GET /api/2.2/jobs/runs/list` lists them (newest first, paged). */

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
  state: { life_cycle_state: string; result_state?: string; state_message: string; user_cancelled_or_timedout: boolean };
  status: { state: string; termination_details?: { code: string; type: string; message: string } };
}

export interface JobInfo {
  jobId: number;
  name: string;
  continuous: boolean;
}

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

  /** Starts a run (RUNNING). */
  startRun(jobId: number, nowMs: number): StandinRun {
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
      setup_duration: 91_000,
      execution_duration: 0,
      cleanup_duration: 0,
      state: { life_cycle_state: 'RUNNING', state_message: 'In run', user_cancelled_or_timedout: false },
      status: { state: 'RUNNING' },
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

  list(query: { jobId?: number; activeOnly: boolean; completedOnly: boolean; startTimeFrom?: number; startTimeTo?: number }): StandinRun[] {
    return this.runs
      .filter((run) => query.jobId === undefined || run.job_id === query.jobId)
      .filter((run) => !query.activeOnly || run.end_time === 0)
      .filter((run) => !query.completedOnly || run.end_time !== 0)
      .filter((run) => query.startTimeFrom === undefined || run.start_time >= query.startTimeFrom)
      .filter((run) => query.startTimeTo === undefined || run.start_time <= query.startTimeTo)
      .sort((a, b) => b.start_time - a.start_time || b.run_id - a.run_id);
  }
}
