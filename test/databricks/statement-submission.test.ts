/**
 * A statement submission (`POST /api/2.0/sql/statements`) takes no idempotency key: one sent again
 * after it may have been processed runs the statement twice on the warehouse. It is sent again only
 * when it cannot have been processed (429, 503 with Retry-After, a connection never made); otherwise
 * the read fails and the next poll reads again. And a statement the read gives up on after its id is
 * known is cancelled (stopping polling does not cancel it), best effort, never hiding the error that
 * stopped the read.
 */
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createDatabricksClient,
  DatabricksApiError,
  DatabricksUnavailableError,
  StatementFailedError,
  type ClientEvent,
} from '../../src/databricks/index.js';
import { createLogger } from '../../src/observability/logger.js';
import { progressPageParameters, progressPageRequest } from '../../src/sources/progress-table-sql.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';
import type { FaultRule } from '../../src/standins/databricks/faults.js';
import { simulatedBatches } from '../sources/simulated-progress.js';

const PAT = 'dapi0123456789abcdef0123456789abcdef';
const WAREHOUSE = '0c7d5e2f9a1b3c46';
const SUBMIT = 'POST /api/2.0/sql/statements';
const CANCEL = 'POST /api/2.0/sql/statements/{id}/cancel';
const SELECT_ONE = { statement: 'SELECT 1', warehouse_id: WAREHOUSE, wait_timeout: '5s' };
const START = Date.UTC(2026, 8, 14, 10, 0, 0);

let local: LocalDatabricks;
let logText = '';
const logSink = new Writable({
  write(chunk, _encoding, done) {
    logText += String(chunk);
    done();
  },
});
const logger = createLogger({ name: 'statements-test', level: 'debug', destination: logSink });

function client(extra: { host?: string; maxAttempts?: number; timeoutMs?: number } = {}) {
  const events: ClientEvent[] = [];
  const databricks = createDatabricksClient({
    host: extra.host ?? local.url,
    credentials: { kind: 'pat', token: PAT },
    retry: { maxAttempts: extra.maxAttempts ?? 5, baseDelayMs: 5, maxDelayMs: 20, budgetMs: 30_000 },
    timeoutMs: extra.timeoutMs ?? 5_000,
    logger,
    onEvent: (event) => events.push(event),
    sleep: async () => undefined,
  });
  return { databricks, events };
}

const sent = (route: string) => local.requests().byRoute[route] ?? 0;

beforeAll(async () => {
  local = await startLocalDatabricks({ tokens: [PAT], startMs: START, speed: 0, statements: { chunkRows: 2 } });
  for (const batch of simulatedBatches('orders_agg', 6, START)) local.insertProgress(batch.json, { ingestedAtMs: batch.endMs });
  local.clock.advance(5 * 60_000);
});
afterAll(async () => {
  await local.close();
  expect(logText).not.toContain(PAT);
});
beforeEach(() => {
  local.faults.clear();
  local.setStatementLatency(0);
  local.resetRequestCounts();
  logText = '';
});

describe('submitting a statement', () => {
  it('is not sent again after a timeout: the statement it may have started runs once, and the read fails', async () => {
    local.faults.inject({ kind: 'slow', delayMs: 800, pathPrefix: '/api/2.0/sql/statements', method: 'POST' });
    const { databricks } = client({ timeoutMs: 200 });
    const error = await databricks.statements.query(SELECT_ONE).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DatabricksUnavailableError);
    expect(error).toMatchObject({ errorCode: 'TIMEOUT' });
    // The slow answer reaches the route once its delay is over.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(sent(SUBMIT)).toBe(1);
    expect(databricks.stats().requests).toBe(1);
    expect(databricks.stats().retries).toEqual({});
  });

  it.each<[string, FaultRule]>([
    ['a 500', { kind: 'server_error' }],
    ['a 503 that does not say when to come back', { kind: 'unavailable' }],
    ['a connection reset before the answer', { kind: 'reset' }],
    ['a 200 whose body is not JSON', { kind: 'malformed' }],
  ])('is not sent again after %s (it may have been processed)', async (_what, fault) => {
    local.faults.inject({ ...fault, times: 5, pathPrefix: '/api/2.0/sql/statements', method: 'POST' });
    const { databricks } = client();
    await expect(databricks.statements.query(SELECT_ONE)).rejects.toBeInstanceOf(DatabricksApiError);
    expect(databricks.stats().requests).toBe(1);
    expect(databricks.stats().retries).toEqual({});
    expect(local.faults.pending()).toEqual([expect.objectContaining({ times: 4 })]);
  });

  it('is sent again after a 429 and a 503 with Retry-After: both refuse it before any work', async () => {
    local.faults.inject({ kind: 'rate_limit', retryAfterSec: 1, pathPrefix: '/api/2.0/sql/statements', method: 'POST' });
    local.faults.inject({ kind: 'unavailable', retryAfterSec: 2, pathPrefix: '/api/2.0/sql/statements', method: 'POST' });
    const { databricks } = client();
    const result = await databricks.statements.query(SELECT_ONE);
    expect(result.rows).toEqual([['1']]);
    expect(databricks.stats().retries).toEqual({ rate_limited: 1, unavailable: 1 });
    // The refused attempts never reached the statement route: one statement.
    expect(sent(SUBMIT)).toBe(1);
  });

  it('is sent again when no connection could be made (nothing was sent)', async () => {
    const port = await closedPort();
    const { databricks, events } = client({ host: `http://127.0.0.1:${port}`, maxAttempts: 3 });
    const error = await databricks.statements.query(SELECT_ONE).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ errorCode: 'ECONNREFUSED' });
    expect(databricks.stats().requests).toBe(3);
    expect(events.filter((event) => event.type === 'retry').map((event) => (event as { reason: string }).reason)).toEqual(['network', 'network']);
  });

  it('status polls and chunk reads (GET) are still retried on 5xx, timeouts, resets and malformed bodies', async () => {
    const { databricks } = client({ timeoutMs: 300 });
    const { statement_id: id } = await databricks.statements.execute(SELECT_ONE);
    for (const fault of [{ kind: 'server_error' }, { kind: 'reset' }, { kind: 'malformed' }, { kind: 'slow', delayMs: 1_000 }] as FaultRule[]) {
      local.faults.inject({ ...fault, method: 'GET' });
    }
    const answer = await databricks.statements.get(id);
    expect(answer.status.state).toBe('SUCCEEDED');
    expect(databricks.stats().retries).toEqual({ server_error: 1, network: 1, malformed: 1, timeout: 1 });
  });
});

describe('a statement the read gives up on', () => {
  const pageRequest = () =>
    progressPageRequest({
      warehouseId: WAREHOUSE,
      parameters: progressPageParameters({ table: 'main.streamdoctor.streaming_progress', queryIds: [simulatedBatches('orders_agg', 1, START)[0]!.id], queryNames: [], afterUs: 0, afterKey: '' }),
    });

  it('is cancelled when its status polls fail for good, and the poll error is what the read throws', async () => {
    local.setStatementLatency(60_000);
    local.faults.inject({ kind: 'unavailable', times: 10, pathPrefix: '/api/2.0/sql/statements/', method: 'GET' });
    const { databricks, events } = client({ maxAttempts: 2 });
    const error = await databricks.statements.query({ ...SELECT_ONE, wait_timeout: '0s' }, { pollIntervalMs: 5 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DatabricksUnavailableError);
    expect((error as Error).message).toMatch(/GET \/api\/2\.0\/sql\/statements\/.* answered 503/);
    expect(sent(CANCEL)).toBe(1);
    local.faults.clear();
    const poll = events.find((event): event is Extract<ClientEvent, { type: 'request' }> => event.type === 'request' && event.method === 'GET')!;
    const id = /statements\/([^/]+)$/.exec(poll.path)![1]!;
    expect((await databricks.statements.get(id)).status.state).toBe('CANCELED');
  });

  it('is cancelled when a result chunk cannot be read', async () => {
    local.faults.inject({ kind: 'server_error', times: 10, pathPrefix: '/api/2.0/sql/statements/', method: 'GET' });
    const { databricks } = client({ maxAttempts: 2 });
    const error = await databricks.statements.query(pageRequest()).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ httpStatus: 500, endpoint: expect.stringContaining('/result/chunks/1') });
    expect(sent(CANCEL)).toBe(1);
  });

  it('is cancelled at the deadline, as before', async () => {
    local.setStatementLatency(60_000);
    const { databricks } = client();
    const error = await databricks.statements.query({ ...SELECT_ONE, wait_timeout: '0s' }, { pollIntervalMs: 5, timeoutMs: 50 }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ errorCode: 'DEADLINE_EXCEEDED' });
    expect(sent(CANCEL)).toBe(1);
  });

  it('a cancel that fails too is logged, and the error that stopped the read is still the one thrown', async () => {
    local.setStatementLatency(60_000);
    local.faults.inject({ kind: 'unavailable', times: 10, pathPrefix: '/api/2.0/sql/statements/', method: 'GET' });
    local.faults.inject({ kind: 'server_error', times: 10, pathPrefix: '/api/2.0/sql/statements/', method: 'POST' });
    const { databricks } = client({ maxAttempts: 2 });
    const error = await databricks.statements.query({ ...SELECT_ONE, wait_timeout: '0s' }, { pollIntervalMs: 5, logger }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ httpStatus: 503, endpoint: expect.stringMatching(/^GET /) });
    expect(logText).toMatch(/could not cancel abandoned statement [0-9a-f-]+: Databricks POST .*\/cancel answered 500/);
  });

  it('is not cancelled once it ended FAILED: there is nothing left to stop', async () => {
    local.faults.inject({ kind: 'statement_failed', message: 'Executor lost' });
    const { databricks } = client();
    await expect(databricks.statements.query(SELECT_ONE)).rejects.toBeInstanceOf(StatementFailedError);
    expect(sent(CANCEL)).toBe(0);
  });
});

/** A loopback port nothing listens on (connections to it are refused). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
