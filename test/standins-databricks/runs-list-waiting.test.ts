/**
 * Runs that wait to start, as `jobs/runs/list` shows them: QUEUED (the job's concurrency limit, with
 * `status.queue_details` and `state.queue_reason`) and PENDING (its cluster starting) are active
 * (`active_only`, `end_time` 0), not completed; once begun they are RUNNING, a queued one with the
 * time it spent queued.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJobRunsServer, type JobRunsServer } from '../helpers/job-runs-server.js';

const JOB = 6161;
const T = Date.UTC(2026, 8, 14, 10, 0, 0);
let server: JobRunsServer;

beforeAll(async () => {
  server = await startJobRunsServer([{ jobId: JOB, name: 'orders-stream', continuous: true }]);
});
afterAll(async () => server.close());

async function list(query: string) {
  const response = await fetch(`${server.url}/api/2.2/jobs/runs/list?job_id=${JOB}&${query}`);
  return (await response.json()) as { runs?: Record<string, any>[]; has_more: boolean };
}

describe('jobs/runs/list with queued and pending runs', () => {
  it('lists them as active runs in their state, then RUNNING once begun', async () => {
    const queued = server.runs.queueRun(JOB, T, 'QUEUED');
    const pending = server.runs.queueRun(JOB, T + 1_000, 'PENDING');
    const active = await list('active_only=true');
    expect(active.runs!.map((run) => [run.run_id, run.status.state, run.state.life_cycle_state, run.end_time])).toEqual([
      [pending.run_id, 'PENDING', 'PENDING', 0],
      [queued.run_id, 'QUEUED', 'QUEUED', 0],
    ]);
    expect(active.runs![1]).toMatchObject({
      start_time: T,
      state: { queue_reason: expect.stringContaining('concurrent'), user_cancelled_or_timedout: false },
      status: { queue_details: { code: 'MAX_CONCURRENT_RUNS_REACHED', message: expect.any(String) } },
    });
    expect(await list('completed_only=true')).toEqual({ has_more: false });

    server.runs.beginRun(queued.run_id, T + 90_000);
    const begun = (await list('active_only=true')).runs!.find((run) => run.run_id === queued.run_id)!;
    expect(begun).toMatchObject({ queue_duration: 90_000, state: { life_cycle_state: 'RUNNING', state_message: 'In run' }, status: { state: 'RUNNING' } });
    expect(begun.status.queue_details).toBeUndefined();
  });
});
