/**
 * Source health: each read failure maps to a reason and what to do; the failure streak lives in the
 * store (one key per source, on the slot of its stream entry); past the threshold one incident opens,
 * a new reason updates it, a success resolves it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { classifyReadFailure, recordReadFailure, recordReadSuccess } from '../../jobs/source-health.js';
import { hostLiveness } from '../../jobs/signal-incidents.js';
import { isSignalStream } from '../../src/diagnosis/host-signals.js';
import {
  DatabricksApiError,
  DatabricksUnavailableError,
  NotFoundError,
  RateLimitedError,
  StatementFailedError,
  UnauthenticatedError,
} from '../../src/databricks/errors.js';
import { RedisStore, sourceStreamId } from '../../src/store/index.js';
import { scanKeys, testRedis } from '../helpers/redis.js';

const redis = testRedis();
let store: RedisStore;
const T = Date.parse('2026-11-29T08:00:00.000Z');
const SOURCE = 'prod.progress';
const target = { sourceId: SOURCE, workspace: 'prod', failingAfterMs: 300_000 };

beforeEach(() => {
  store = new RedisStore({ redis, prefix: `sdtest-srchealth-${randomUUID().slice(0, 8)}` });
});
afterEach(async () => {
  await store.deleteEverything();
});
afterAll(() => redis.disconnect());

const unauthenticated = (status: number) =>
  new UnauthenticatedError('Databricks POST /api/2.0/sql/statements answered 401 UNAUTHENTICATED: Invalid access token.', { errorCode: 'UNAUTHENTICATED', httpStatus: status, endpoint: 'POST /api/2.0/sql/statements' });
const denied = () =>
  new UnauthenticatedError('Databricks POST /api/2.0/sql/statements answered 403 PERMISSION_DENIED: User does not have CAN USE on warehouse abc.', { errorCode: 'PERMISSION_DENIED', httpStatus: 403, endpoint: 'POST /api/2.0/sql/statements' }, false);

describe('read failures, classified', () => {
  it('says what went wrong and what to do for each code, with no secret in it', () => {
    const cases: [unknown, string, RegExp][] = [
      [unauthenticated(401), 'auth_refused', /re-issue the token/],
      [denied(), 'permission_denied', /CAN USE on the SQL warehouse/],
      [new NotFoundError('SQL warehouse abc does not exist.', { errorCode: 'RESOURCE_DOES_NOT_EXIST', httpStatus: 404, endpoint: 'POST /api/2.0/sql/statements' }), 'warehouse_gone', /warehouse_id/],
      [new NotFoundError('Pipeline p does not exist.', { errorCode: 'RESOURCE_DOES_NOT_EXIST', httpStatus: 404, endpoint: 'GET /api/2.0/pipelines/p/events' }), 'not_found', /pipeline id/],
      [new StatementFailedError('SQL statement FAILED: [TABLE_OR_VIEW_NOT_FOUND] The table or view `main`.`x`.`y` cannot be found. SQLSTATE: 42P01', { errorCode: 'BAD_REQUEST', httpStatus: 200, sqlState: '42P01', statementId: 's1', state: 'FAILED' }), 'table_missing', /check the table name/],
      [new StatementFailedError('SQL statement FAILED: [INSUFFICIENT_PERMISSIONS] User does not have SELECT on Table. SQLSTATE: 42501', { errorCode: 'PERMISSION_DENIED', httpStatus: 200, sqlState: '42501', statementId: 's2', state: 'FAILED' }), 'permission_denied', /grant SELECT/],
      [new StatementFailedError('SQL statement FAILED: the SQL warehouse is STOPPED and auto-start is off', { errorCode: 'BAD_REQUEST', httpStatus: 200, statementId: 's3', state: 'FAILED' }), 'warehouse_stopped', /start the SQL warehouse/],
      [new DatabricksApiError('statement s4 did not finish within 300000ms; canceled', { errorCode: 'DEADLINE_EXCEEDED', httpStatus: 200 }), 'timeout', /start the SQL warehouse/],
      [new DatabricksUnavailableError('Databricks POST /api/2.0/sql/statements did not answer in time', { errorCode: 'TIMEOUT', httpStatus: 0 }), 'timeout', /network path/],
      [new DatabricksUnavailableError('answered 503', { errorCode: 'TEMPORARILY_UNAVAILABLE', httpStatus: 503 }), 'unavailable', /status page/],
      [new RateLimitedError('answered 429', { errorCode: 'REQUEST_LIMIT_EXCEEDED', httpStatus: 429 }), 'rate_limited', /STREAMDOCTOR_POLL_SECONDS/],
      [new Error('something odd with Bearer dapi0123456789abcdef0123 inside'), 'error', /worker log/],
    ];
    for (const [err, code, action] of cases) {
      const failure = classifyReadFailure(err);
      expect(failure.code, String(err)).toBe(code);
      expect(failure.action).toMatch(action);
      expect(failure.reason).not.toContain('dapi0123456789abcdef0123');
    }
  });
});

describe('the failure streak and its incident', () => {
  it('opens past the threshold only, updates on a new reason, resolves on success', async () => {
    expect(await recordReadFailure(store, target, unauthenticated(401), T)).toBeNull();
    expect(await recordReadFailure(store, target, unauthenticated(401), T + 299_000)).toBeNull();
    expect(await store.incidents.listForQuery(sourceStreamId(SOURCE))).toEqual([]);

    expect(await recordReadFailure(store, target, unauthenticated(401), T + 300_000)).toBe(sourceStreamId(SOURCE));
    const [opened] = await store.incidents.listForQuery(sourceStreamId(SOURCE));
    // Opened at the streak's start: the alert says since when the source is unreadable.
    expect(opened).toMatchObject({ kind: 'source_unreadable', state: 'open', openedAt: T, version: 1, queryName: 'prod.progress' });
    expect(opened!.incident.summary).toMatch(/^StreamDoctor cannot read prod\.progress: Databricks refused the credentials \(.*401 UNAUTHENTICATED/);
    // A time, not a duration frozen at the opening ("Failing for 5m" read the same hours later).
    expect(opened!.incident.summary).toContain(`Failing since ${new Date(T).toISOString().slice(0, 16).replace('T', ' ')} UTC;`);
    expect(await store.streams.get(sourceStreamId(SOURCE))).toMatchObject({ source: SOURCE, workspace: 'prod' });
    expect(isSignalStream(sourceStreamId(SOURCE))).toBe(true);

    // Same reason again: nothing new. Another reason: the same incident, re-worded.
    expect(await recordReadFailure(store, target, unauthenticated(401), T + 310_000)).toBeNull();
    const gone = new NotFoundError('SQL warehouse w does not exist.', { errorCode: 'RESOURCE_DOES_NOT_EXIST', httpStatus: 404, endpoint: 'POST /api/2.0/sql/statements' });
    expect(await recordReadFailure(store, target, gone, T + 320_000)).toBe(sourceStreamId(SOURCE));
    const [updated] = await store.incidents.listForQuery(sourceStreamId(SOURCE));
    expect(updated).toMatchObject({ id: opened!.id, version: 2, state: 'open' });
    expect(updated!.incident.summary).toContain('the SQL warehouse does not exist');

    expect(await recordReadSuccess(store, SOURCE, T + 400_000)).toBe(sourceStreamId(SOURCE));
    const [resolved] = await store.incidents.listForQuery(sourceStreamId(SOURCE));
    expect(resolved).toMatchObject({ id: opened!.id, state: 'resolved', resolvedAt: T + 400_000 });
    expect((await store.outbox.read(sourceStreamId(SOURCE))).map((e) => e.change)).toEqual(['opened', 'updated', 'resolved']);
    expect(await store.sources.get(SOURCE)).toMatchObject({ lastSuccessAt: T + 400_000, failingSince: null, incidentId: null, failures: 0 });
    expect(await recordReadSuccess(store, SOURCE, T + 410_000)).toBeNull();

    // A new streak is a new incident (a new opening time).
    await recordReadFailure(store, target, gone, T + 500_000);
    await recordReadFailure(store, target, gone, T + 800_000);
    const list = await store.incidents.listForQuery(sourceStreamId(SOURCE));
    expect(list.map((r) => r.state)).toEqual(['open', 'resolved']);
    expect(list[0]!.openedAt).toBe(T + 500_000);
  });

  it('a short blip that recovers before the threshold says nothing', async () => {
    await recordReadFailure(store, target, unauthenticated(401), T);
    expect(await store.sources.isFailing(SOURCE)).toBe(true);
    // Its streams' silence is explained while it fails: detect does not judge them stalled.
    expect((await hostLiveness(store, { source: SOURCE })).down).toBe(true);
    expect((await hostLiveness(store, { source: 'other.progress' })).down).toBe(false);
    expect(await recordReadSuccess(store, SOURCE, T + 10_000)).toBeNull();
    expect(await store.sources.isFailing(SOURCE)).toBe(false);
    expect((await hostLiveness(store, { source: SOURCE })).down).toBe(false);
    expect(await store.incidents.listForQuery(sourceStreamId(SOURCE))).toEqual([]);
  });

  it('keeps its key on the slot of the source’s stream entry', async () => {
    await recordReadFailure(store, target, unauthenticated(401), T);
    const keys = await scanKeys(redis, `${store.keys.prefix}:*health*`);
    expect(keys).toEqual([`${store.keys.queryTag(sourceStreamId(SOURCE))}:health`]);
  });
});
