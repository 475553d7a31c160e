/**
 * `jobs/runs/list` `limit`: the reference says it "must be greater than 0 and less than 25" (default
 * 20, 0 for the maximum). The stand-in refuses the rest as the API does (400 INVALID_PARAMETER_VALUE),
 * and the client never asks for more than 24.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabricksClient } from '../../src/databricks/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';

const PAT = 'dapi-local-test-token-000000000024';
const START = Date.UTC(2026, 8, 14, 10, 0, 0);
const JOB = 4242;
let local: LocalDatabricks;

beforeAll(async () => {
  local = await startLocalDatabricks({ tokens: [PAT], startMs: START, speed: 0, jobs: [{ jobId: JOB, name: 'orders-stream', continuous: true }] });
  for (let i = 0; i < 30; i += 1) {
    const runId = local.startRun(JOB);
    local.clock.advance(60_000);
    local.endRun(runId, 'SUCCESS', '');
  }
});
afterAll(async () => local.close());

async function list(query: string) {
  const response = await fetch(`${local.url}/api/2.2/jobs/runs/list?job_id=${JOB}&${query}`, { headers: { Authorization: `Bearer ${PAT}` } });
  return { status: response.status, json: (await response.json()) as { runs?: unknown[]; error_code?: string; message?: string } };
}

describe('jobs/runs/list limit', () => {
  it('refuses a limit of 25 or more, or below 0, with INVALID_PARAMETER_VALUE', async () => {
    for (const limit of [25, 26, -1]) {
      const response = await list(`limit=${limit}`);
      expect(response.status).toBe(400);
      expect(response.json).toEqual({ error_code: 'INVALID_PARAMETER_VALUE', message: `Invalid limit ${limit}: limit must be greater than 0 and less than 25.` });
    }
  });

  it('serves 1 to 24 runs a page, 20 by default and 24 for limit=0', async () => {
    expect((await list('limit=1')).json.runs).toHaveLength(1);
    expect((await list('limit=24')).json.runs).toHaveLength(24);
    expect((await list('')).json.runs).toHaveLength(20);
    expect((await list('limit=0')).json.runs).toHaveLength(24);
  });

  it('the client asks for 24 runs a page, even when a caller asks for 25', async () => {
    const client = createDatabricksClient({ host: local.url, credentials: { kind: 'pat', token: PAT }, retry: { maxAttempts: 1 }, sleep: async () => undefined });
    expect((await client.jobs.listRuns({ jobId: JOB })).runs).toHaveLength(24);
    expect((await client.jobs.listRuns({ jobId: JOB, completedOnly: true, limit: 25 })).runs).toHaveLength(24);
    expect(await client.jobs.listAllRuns({ jobId: JOB, completedOnly: true, limit: 25 })).toHaveLength(30);
  });
});
