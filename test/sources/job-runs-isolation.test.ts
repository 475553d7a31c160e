/**
 * One watched job that cannot be read (no CAN VIEW, deleted, failing) never hides the others: each job
 * is read on its own, the unreadable one is skipped with one warning and reported as `job_unreadable`
 * (at once when Databricks refuses it, after a while when it fails transiently), and `job_readable`
 * once it reads again. Failures of the whole workspace still fail the poll (source health).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabricksClient, type DatabricksClient } from '../../src/databricks/index.js';
import { errorFromResponse } from '../../src/databricks/error-body.js';
import { JobRunsSource, type JobRunsCursor } from '../../src/sources/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';

const PAT = 'dapi-local-test-token-000000000031';
const START = Date.UTC(2026, 8, 14, 10, 0, 0);
const ORDERS = 1;
const HIDDEN = 2;

let local: LocalDatabricks;
let real: DatabricksClient;

beforeEach(async () => {
  local = await startLocalDatabricks({
    tokens: [PAT],
    startMs: START,
    speed: 0,
    jobs: [
      { jobId: ORDERS, name: 'orders-stream-prd', continuous: true },
      { jobId: HIDDEN, name: 'payments-stream-prd', continuous: true },
    ],
  });
  real = createDatabricksClient({ host: local.url, credentials: { kind: 'pat', token: PAT }, retry: { baseDelayMs: 1 }, sleep: async () => undefined });
});
afterEach(async () => {
  await local.close();
});

/** What the client throws for this answer (its own mapping from status and body). */
function answered(status: number, body: Record<string, unknown>) {
  return errorFromResponse({ status, headers: {}, body: JSON.stringify(body), endpoint: 'GET /api/2.2/jobs/runs/list' }, START);
}

const DENIED = () => answered(403, { error_code: 'PERMISSION_DENIED', message: 'User does not have CAN VIEW on job 2. Bearer dapi0123456789abcdef0123456789abcdef' });
const DELETED = () => answered(400, { error_code: 'INVALID_PARAMETER_VALUE', message: 'Job 2 does not exist.' });
const UNAVAILABLE = () => answered(503, { error_code: 'TEMPORARILY_UNAVAILABLE', message: 'The service is temporarily unavailable.' });
const REVOKED = () => answered(401, { error_code: 'UNAUTHENTICATED', message: 'Invalid access token.' });

/** The real client against the local Databricks, except that one job's listing fails with `fail()` while it is set. */
function clientWith(failing: { jobId: number; fail: (() => Error) | null }): DatabricksClient {
  return {
    ...real,
    jobs: {
      ...real.jobs,
      listAllRuns: (request: Parameters<DatabricksClient['jobs']['listAllRuns']>[0], pages?: number) =>
        request.jobId === failing.jobId && failing.fail ? Promise.reject(failing.fail()) : real.jobs.listAllRuns(request, pages),
    },
  } as DatabricksClient;
}

/** A run of the job that started a while ago and has just failed. */
function failRun(jobId: number, message: string): number {
  const runId = local.startRun(jobId, local.clock.now() - 600_000);
  local.endRun(runId, 'FAILED', message);
  return runId;
}

describe('JobRunsSource with a job it cannot read', () => {
  it('reports the readable job\'s failure and liveness, skips the refused one with one warning, and reports it unreadable', async () => {
    failRun(ORDERS, 'Kafka topic orders was deleted');
    const failing = { jobId: HIDDEN, fail: DENIED as (() => Error) | null };
    const source = new JobRunsSource({ client: clientWith(failing), jobs: [{ jobId: ORDERS }, { jobId: HIDDEN, name: 'payments-stream-prd' }], now: () => local.clock.now() });

    const first = await source.poll(null);
    expect(first.signals.filter((s) => 'jobId' in s && s.jobId === ORDERS).map((s) => s.type)).toEqual(['job_run_failed', 'job_not_running']);
    expect(first.signals.find((s) => s.type === 'job_run_failed')).toMatchObject({ stateMessage: 'Kafka topic orders was deleted' });
    // Job 2's liveness is unknown, not "not running": only job 1 is in it.
    expect(source.liveness()).toEqual([{ jobId: String(ORDERS), running: false, runStartedAtMs: null }]);
    expect(first.warnings).toEqual(['job 2 (payments-stream-prd) cannot be read: Databricks answered 403 PERMISSION_DENIED; skipped this poll']);
    const unreadable = first.signals.find((s) => s.type === 'job_unreadable');
    expect(unreadable).toEqual({
      type: 'job_unreadable',
      jobId: HIDDEN,
      jobName: 'payments-stream-prd',
      errorCode: 'PERMISSION_DENIED',
      httpStatus: 403,
      message: 'User does not have CAN VIEW on job 2. Bearer [REDACTED]',
      sinceMs: START,
      permanent: true,
    });
    expect(JSON.stringify(first)).not.toMatch(/dapi[0-9a-f]{16}/);

    // Still refused a minute later: the same signal (same streak start and words), so nothing is re-worded.
    local.clock.advance(60_000);
    const second = await source.poll(first.cursor);
    expect(second.signals.find((s) => s.type === 'job_unreadable')).toEqual(unreadable);
    expect(second.warnings).toHaveLength(1);

    // Access granted: a run that failed while it could not be read is reported, and the job reads again.
    failRun(HIDDEN, 'Payments sink refused the write');
    failing.fail = null;
    local.clock.advance(60_000);
    const third = await source.poll(second.cursor);
    expect(third.warnings).toEqual([]);
    expect(third.signals.filter((s) => 'jobId' in s && s.jobId === HIDDEN).map((s) => s.type)).toEqual(['job_run_failed', 'job_not_running', 'job_readable']);
    expect(third.signals.find((s) => s.type === 'job_run_failed')).toMatchObject({ jobId: HIDDEN, stateMessage: 'Payments sink refused the write' });
    expect(third.cursor.jobs[String(HIDDEN)]!.unreadable).toBeUndefined();
    expect(source.liveness().map((job) => job.jobId)).toEqual([String(ORDERS), String(HIDDEN)]);

    // Readable from then on: no second job_readable.
    const fourth = await source.poll(third.cursor);
    expect(fourth.signals.map((s) => s.type)).toEqual(['job_not_running', 'job_not_running']);
  });

  it('reports a deleted job at once, even when it is the only one watched', async () => {
    const source = new JobRunsSource({ client: clientWith({ jobId: HIDDEN, fail: DELETED }), jobs: [{ jobId: HIDDEN }], now: () => local.clock.now() });
    const result = await source.poll(null);
    expect(result.signals).toEqual([
      { type: 'job_unreadable', jobId: HIDDEN, errorCode: 'INVALID_PARAMETER_VALUE', httpStatus: 400, message: 'Job 2 does not exist.', sinceMs: START, permanent: true },
    ]);
    expect(source.liveness()).toEqual([]);
  });

  it('does not treat one job\'s transient errors as permanent: warnings only, reported once they have lasted', async () => {
    const failing = { jobId: HIDDEN, fail: UNAVAILABLE as (() => Error) | null };
    const source = new JobRunsSource({ client: clientWith(failing), jobs: [{ jobId: ORDERS }, { jobId: HIDDEN }], now: () => local.clock.now(), unreadableAfterMs: 300_000 });
    let cursor: JobRunsCursor | null = null;
    for (let minute = 0; minute < 5; minute += 1) {
      const result = await source.poll(cursor);
      expect(result.signals.some((s) => s.type === 'job_unreadable')).toBe(false);
      expect(result.warnings).toEqual(['job 2 cannot be read: Databricks answered 503 TEMPORARILY_UNAVAILABLE; skipped this poll']);
      cursor = result.cursor;
      local.clock.advance(60_000);
    }
    // Five minutes of it: reported, from the streak's start, as not a refusal.
    const lasting = await source.poll(cursor);
    expect(lasting.signals.find((s) => s.type === 'job_unreadable')).toMatchObject({ jobId: HIDDEN, httpStatus: 503, sinceMs: START, permanent: false });

    // A blip that clears before then raises nothing and leaves no streak behind.
    failing.fail = null;
    const back = await source.poll(lasting.cursor);
    failing.fail = UNAVAILABLE;
    const blip = await source.poll(back.cursor);
    expect(blip.signals.some((s) => s.type === 'job_unreadable')).toBe(false);
    expect(blip.cursor.jobs[String(HIDDEN)]!.unreadable).toMatchObject({ sinceMs: local.clock.now(), permanent: false });
  });

  it('fails the whole poll for the workspace\'s own failures, so source health records them', async () => {
    const revoked = new JobRunsSource({ client: clientWith({ jobId: HIDDEN, fail: REVOKED }), jobs: [{ jobId: ORDERS }, { jobId: HIDDEN }], now: () => local.clock.now() });
    await expect(revoked.poll(null)).rejects.toMatchObject({ httpStatus: 401, errorCode: 'UNAUTHENTICATED' });
    const down = new JobRunsSource({ client: clientWith({ jobId: HIDDEN, fail: UNAVAILABLE }), jobs: [{ jobId: HIDDEN }], now: () => local.clock.now() });
    await expect(down.poll(null)).rejects.toMatchObject({ httpStatus: 503 });
    // A 400 that is not "does not exist" is the request's fault, not a refusal of the job.
    const badRequest = () => answered(400, { error_code: 'INVALID_PARAMETER_VALUE', message: 'Invalid limit 25: limit must be greater than 0 and less than 25.' });
    const refused = new JobRunsSource({ client: clientWith({ jobId: HIDDEN, fail: badRequest }), jobs: [{ jobId: HIDDEN }], now: () => local.clock.now() });
    await expect(refused.poll(null)).rejects.toMatchObject({ httpStatus: 400 });
  });
});
