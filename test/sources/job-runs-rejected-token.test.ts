/**
 * A revoked or expired token is refused with 403 "Invalid access token." on every job's listing. That
 * is the workspace's credentials, not each job's permissions: the job-runs poll fails as a whole (one
 * source-health incident saying to re-issue the token), never N `job_unreadable` refusals beside a
 * poll that looks successful. An expired OAuth token is replaced and the poll goes on.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { classifyReadFailure } from '../../jobs/source-health.js';
import { createDatabricksClient, UnauthenticatedError } from '../../src/databricks/index.js';
import { JobRunsSource } from '../../src/sources/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';

const PAT = 'dapi-local-test-token-000000000052';
const CLIENT = { clientId: 'sp-streamdoctor', clientSecret: 'dose-very-secret-value-789' };
const START = Date.UTC(2026, 8, 14, 10, 0, 0);
const JOBS = [
  { jobId: 11, name: 'orders-stream-prd', continuous: true },
  { jobId: 12, name: 'payments-stream-prd', continuous: true },
  { jobId: 13, name: 'clicks-stream-prd', continuous: true },
];

let local: LocalDatabricks;

beforeEach(async () => {
  local = await startLocalDatabricks({ tokens: [PAT], oauthClients: [CLIENT], startMs: START, speed: 0, jobs: JOBS });
  for (const job of JOBS) local.startRun(job.jobId, START - 600_000);
});
afterEach(async () => {
  await local.close();
});

describe('JobRunsSource with a refused token', () => {
  it('fails the whole poll for a revoked PAT, classified as refused credentials', async () => {
    const client = createDatabricksClient({ host: local.url, credentials: { kind: 'pat', token: PAT }, retry: { baseDelayMs: 1 }, sleep: async () => undefined });
    const source = new JobRunsSource({ client, jobs: JOBS, now: () => local.clock.now() });
    const before = await source.poll(null);
    expect(before.signals.map((s) => s.type)).toEqual(['job_running', 'job_running', 'job_running']);

    local.revokeToken(PAT);
    const error = await source.poll(before.cursor).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnauthenticatedError);
    expect(error).toMatchObject({ httpStatus: 403, credentialsRejected: true });
    const failure = classifyReadFailure(error);
    expect(failure.code).toBe('auth_refused');
    expect(failure.action).toMatch(/re-issue the token/);
    expect(`${failure.reason} ${failure.action}`).not.toContain(PAT);
    expect(`${failure.reason} ${failure.action}`).not.toMatch(/CAN USE|CAN VIEW/);
  });

  it('replaces an expired OAuth token (403 from the workspace) and reads every job', async () => {
    const client = createDatabricksClient({ host: local.url, credentials: { kind: 'oauth-m2m', ...CLIENT }, retry: { baseDelayMs: 1 }, sleep: async () => undefined });
    const source = new JobRunsSource({ client, jobs: JOBS, now: () => local.clock.now() });
    const first = await source.poll(null);
    expect(local.expireTokens()).toBeGreaterThanOrEqual(1);
    const second = await source.poll(first.cursor);
    expect(second.signals.map((s) => s.type)).toEqual(['job_running', 'job_running', 'job_running']);
    expect(second.warnings).toEqual([]);
    expect(client.stats().retries.token_expired).toBeGreaterThanOrEqual(1);
  });
});
