import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createDatabricksClient,
  DatabricksUnavailableError,
  NotFoundError,
  RateLimitedError,
  StatementFailedError,
  UnauthenticatedError,
  type ClientEvent,
} from '../../src/databricks/index.js';
import { createLogger } from '../../src/observability/logger.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';

const PAT = 'dapi0123456789abcdef0123456789abcdef';
const CLIENT = { clientId: 'sp-streamdoctor', clientSecret: 'dose-very-secret-value-123' };

let local: LocalDatabricks;
let logText = '';
const logSink = new Writable({
  write(chunk, _encoding, done) {
    logText += String(chunk);
    done();
  },
});

function client(extra: { maxAttempts?: number; timeoutMs?: number; oauth?: boolean; token?: string } = {}) {
  const events: ClientEvent[] = [];
  const sleeps: number[] = [];
  const databricks = createDatabricksClient({
    host: local.url,
    credentials: extra.oauth ? { kind: 'oauth-m2m', ...CLIENT } : { kind: 'pat', token: extra.token ?? PAT },
    retry: { maxAttempts: extra.maxAttempts ?? 5, baseDelayMs: 5, maxDelayMs: 20, budgetMs: 30_000 },
    timeoutMs: extra.timeoutMs ?? 5_000,
    logger: createLogger({ name: 'databricks-test', level: 'debug', destination: logSink }),
    onEvent: (event) => events.push(event),
    // Record the waits the client asks for, but do not spend them.
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  return { databricks, events, sleeps };
}

const SELECT_ONE = { statement: 'SELECT 1', warehouse_id: '0c7d5e2f9a1b3c46', wait_timeout: '5s' };

beforeAll(async () => {
  local = await startLocalDatabricks({ tokens: [PAT], oauthClients: [CLIENT], statements: { chunkRows: 3 } });
});
afterAll(async () => {
  await local.close();
  expect(logText).not.toContain(PAT);
  expect(logText).not.toContain(CLIENT.clientSecret);
});
beforeEach(() => {
  local.faults.clear();
  logText = '';
});

describe('Databricks client against the local Databricks', () => {
  it('honours Retry-After on 429 and succeeds, counting and logging the retries', async () => {
    local.faults.inject({ kind: 'rate_limit', times: 2, retryAfterSec: 3 });
    const { databricks, sleeps } = client();
    const result = await databricks.statements.query(SELECT_ONE);
    expect(result.rows).toEqual([['1']]);
    expect(sleeps).toEqual([3_000, 3_000]);
    expect(databricks.stats().retries.rate_limited).toBe(2);
    expect(databricks.stats().requests).toBe(3);
    expect(logText).toMatch(/"reason":"rate_limited".*retrying in 3000ms/);
  });

  it('retries 503, 500, a reset connection and a malformed body, and keeps going', async () => {
    const { databricks, sleeps, events } = client();
    // A status poll: a submission is sent again only when it cannot have been processed (statement-submission.test.ts).
    const { statement_id: id } = await databricks.statements.execute(SELECT_ONE);
    local.faults.inject({ kind: 'unavailable', retryAfterSec: 2 });
    local.faults.inject({ kind: 'server_error' });
    local.faults.inject({ kind: 'reset' });
    local.faults.inject({ kind: 'malformed' });
    const result = await databricks.statements.get(id);
    expect(result.status.state).toBe('SUCCEEDED');
    expect(databricks.stats().retries).toMatchObject({ unavailable: 1, server_error: 1, network: 1, malformed: 1 });
    expect(sleeps[0]).toBe(2_000);
    expect(events.filter((event) => event.type === 'retry').map((event) => (event as { reason: string }).reason)).toEqual([
      'unavailable',
      'server_error',
      'network',
      'malformed',
    ]);
  });

  it('times out a slow answer and retries it', async () => {
    const { databricks } = client({ timeoutMs: 300 });
    const { statement_id: id } = await databricks.statements.execute(SELECT_ONE);
    local.faults.inject({ kind: 'slow', delayMs: 1_500 });
    const result = await databricks.statements.get(id);
    expect(result.status.state).toBe('SUCCEEDED');
    expect(databricks.stats().retries.timeout).toBe(1);
  });

  it('gives up after its budget with a typed RateLimitedError carrying Retry-After', async () => {
    local.faults.inject({ kind: 'rate_limit', times: 10, retryAfterSec: 1 });
    const { databricks } = client({ maxAttempts: 3 });
    const error = await databricks.statements.query(SELECT_ONE).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ code: 'streamdoctor_databricks_rate_limited', httpStatus: 429, errorCode: 'REQUEST_LIMIT_EXCEEDED', retryAfterMs: 1_000 });
    expect(databricks.stats().errors.rate_limited).toBe(1);
    expect(logText).toContain('gave up after 3 attempt(s)');
    local.faults.clear();
    // The same client keeps working afterwards.
    expect((await databricks.statements.query(SELECT_ONE)).rows).toEqual([['1']]);
  });

  it('gives up on persistent 503s with DatabricksUnavailableError', async () => {
    local.faults.inject({ kind: 'unavailable', times: 10 });
    const { databricks } = client({ maxAttempts: 2 });
    await expect(databricks.statements.query(SELECT_ONE)).rejects.toBeInstanceOf(DatabricksUnavailableError);
  });

  it('rejects a bad PAT with UnauthenticatedError, without retrying or echoing the token', async () => {
    const wrong = 'dapi99999999999999999999999999999999';
    const { databricks } = client({ token: wrong });
    const error = (await databricks.statements.query(SELECT_ONE).catch((caught: unknown) => caught)) as UnauthenticatedError;
    expect(error).toBeInstanceOf(UnauthenticatedError);
    expect(error.code).toBe('streamdoctor_databricks_unauthenticated');
    expect(error.message).not.toContain(wrong);
    expect(databricks.stats().requests).toBe(1);
    expect(logText).not.toContain(wrong);
  });

  it('uses OAuth M2M: one token for many calls, a new one after the server expires it', async () => {
    const { databricks, events } = client({ oauth: true });
    for (let i = 0; i < 3; i += 1) await databricks.statements.query(SELECT_ONE);
    expect(databricks.stats().tokenRefreshes).toBe(1);
    expect(local.expireTokens()).toBeGreaterThanOrEqual(1);
    expect((await databricks.statements.query(SELECT_ONE)).rows).toEqual([['1']]);
    expect(databricks.stats().retries.token_expired).toBe(1);
    expect(events.filter((event) => event.type === 'token_refresh').map((event) => (event as { reason: string }).reason)).toEqual([
      'initial',
      'rejected',
      'initial',
    ]);
  });

  it('fetches a new OAuth token shortly before the old one expires, without waiting for a 401', async () => {
    let now = Date.now();
    const databricks = createDatabricksClient({
      host: local.url,
      credentials: { kind: 'oauth-m2m', ...CLIENT },
      now: () => now,
      sleep: async () => undefined,
    });
    await databricks.statements.query(SELECT_ONE);
    now += 3_000_000; // 50 of the token's 60 minutes: still valid
    await databricks.statements.query(SELECT_ONE);
    expect(databricks.stats().tokenRefreshes).toBe(1);
    now += 500_000; // inside the refresh margin before expiry
    await databricks.statements.query(SELECT_ONE);
    expect(databricks.stats().tokenRefreshes).toBe(2);
    expect(databricks.stats().retries.token_expired).toBeUndefined();
  });

  it('rejects bad client credentials at the token endpoint', async () => {
    const databricks = createDatabricksClient({
      host: local.url,
      credentials: { kind: 'oauth-m2m', clientId: CLIENT.clientId, clientSecret: 'wrong-secret-value' },
      retry: { maxAttempts: 2, baseDelayMs: 1 },
    });
    const error = (await databricks.statements.query(SELECT_ONE).catch((caught: unknown) => caught)) as UnauthenticatedError;
    expect(error).toBeInstanceOf(UnauthenticatedError);
    expect(error.message).toContain('invalid_client');
    expect(error.message).not.toContain('wrong-secret-value');
  });

  it('follows PENDING/RUNNING to SUCCEEDED when wait_timeout is 0s', async () => {
    local.setStatementLatency(400);
    try {
      const { databricks } = client();
      const first = await databricks.statements.execute({ ...SELECT_ONE, wait_timeout: '0s' });
      expect(first.status.state).toBe('PENDING');
      const result = await databricks.statements.query({ ...SELECT_ONE, wait_timeout: '0s' }, { pollIntervalMs: 50 });
      expect(result.rows).toEqual([['1']]);
      expect(result.requests).toBeGreaterThan(1);
    } finally {
      local.setStatementLatency(0);
    }
  });

  it('turns an HTTP-200 FAILED statement into StatementFailedError with its SQLSTATE', async () => {
    const { databricks } = client();
    const error = (await databricks.statements
      .query({ statement: 'SELECT * FROM main.sales.orders', warehouse_id: '0c7d5e2f9a1b3c46' })
      .catch((caught: unknown) => caught)) as StatementFailedError;
    expect(error).toBeInstanceOf(StatementFailedError);
    expect(error.sqlState).toBe('0A000');

    local.faults.inject({ kind: 'statement_failed', message: 'Executor lost' });
    const injected = (await databricks.statements.query(SELECT_ONE).catch((caught: unknown) => caught)) as StatementFailedError;
    expect(injected).toBeInstanceOf(StatementFailedError);
    expect(injected.message).toContain('Executor lost');
    expect(injected.state).toBe('FAILED');
  });

  it('maps 404 RESOURCE_DOES_NOT_EXIST to NotFoundError', async () => {
    const { databricks } = client();
    const error = await databricks.jobs.getRun(424242).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ errorCode: 'RESOURCE_DOES_NOT_EXIST', httpStatus: 404 });
    const warehouse = await databricks.statements.query({ ...SELECT_ONE, warehouse_id: 'nope' }).catch((caught: unknown) => caught);
    expect(warehouse).toBeInstanceOf(NotFoundError);
  });
});
