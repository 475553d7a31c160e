/**
 * `jobs/runs/list` `run_type` takes JOB_RUN, WORKFLOW_RUN or SUBMIT_RUN: another value is refused
 * with 400 INVALID_PARAMETER_VALUE, and a valid one lists only runs of that type (the stand-in's
 * runs are all JOB_RUN, started by their job).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabricksClient } from '../../src/databricks/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';

const PAT = 'dapi-local-runs-run-type-00000000001';
const JOB = 5151;
let local: LocalDatabricks;

beforeAll(async () => {
  local = await startLocalDatabricks({ tokens: [PAT], speed: 0, jobs: [{ jobId: JOB, name: 'orders-stream', continuous: true }] });
  local.endRun(local.startRun(JOB), 'SUCCESS', '');
  local.startRun(JOB);
});
afterAll(async () => local.close());

async function list(query: string) {
  const response = await fetch(`${local.url}/api/2.2/jobs/runs/list?job_id=${JOB}&${query}`, { headers: { Authorization: `Bearer ${PAT}` } });
  return { status: response.status, json: (await response.json()) as { runs?: { run_type: string }[]; error_code?: string; message?: string } };
}

describe('jobs/runs/list run_type', () => {
  it('refuses a run_type outside JOB_RUN, WORKFLOW_RUN, SUBMIT_RUN', async () => {
    for (const runType of ['ONE_TIME', 'job_run', 'ALL']) {
      const response = await list(`run_type=${runType}`);
      expect(response.status).toBe(400);
      expect(response.json.error_code).toBe('INVALID_PARAMETER_VALUE');
      expect(response.json.message).toContain(`Invalid run_type '${runType}'`);
    }
  });

  it('lists only runs of the type asked for', async () => {
    expect((await list('run_type=JOB_RUN')).json.runs).toHaveLength(2);
    expect((await list('run_type=SUBMIT_RUN')).json).toEqual({ has_more: false });
    expect((await list('run_type=WORKFLOW_RUN')).json).toEqual({ has_more: false });
  });

  it("the bot's runs listing (no run_type) still reads every run", async () => {
    const client = createDatabricksClient({ host: local.url, credentials: { kind: 'pat', token: PAT }, retry: { maxAttempts: 1 } });
    expect(await client.jobs.listAllRuns({ jobId: JOB, activeOnly: true })).toHaveLength(1);
    expect(await client.jobs.listAllRuns({ jobId: JOB, completedOnly: true })).toHaveLength(1);
  });
});
