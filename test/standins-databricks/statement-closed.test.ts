/**
 * A statement's result is available for a limited time after it succeeds (an hour on Databricks);
 * then the statement is CLOSED: its status says so, it carries no manifest or result, and its chunks
 * cannot be fetched. The stand-in's hour is shortened here (`resultTtlMs`) to see it happen.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabricksClient, StatementFailedError } from '../../src/databricks/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';

const PAT = 'dapi-local-statement-closed-000000001';
const TTL_MS = 300;
let local: LocalDatabricks;

beforeAll(async () => {
  local = await startLocalDatabricks({ tokens: [PAT], speed: 0, statements: { resultTtlMs: TTL_MS } });
});
afterAll(async () => local.close());

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(local.url + path, {
    method,
    headers: { Authorization: `Bearer ${PAT}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, any> };
}

describe('statement results expire: SUCCEEDED, then CLOSED', () => {
  it('answers CLOSED without a result once the result is no longer available, and no chunk', async () => {
    const submitted = await call('POST', '/api/2.0/sql/statements', { statement: 'SELECT 1', warehouse_id: '0c7d5e2f9a1b3c46' });
    expect(submitted.json.status.state).toBe('SUCCEEDED');
    const id = submitted.json.statement_id as string;
    expect((await call('GET', `/api/2.0/sql/statements/${id}/result/chunks/0`)).json.data_array).toEqual([['1']]);
    await new Promise((resolve) => setTimeout(resolve, TTL_MS + 100));
    const closed = await call('GET', `/api/2.0/sql/statements/${id}`);
    expect(closed).toEqual({ status: 200, json: { statement_id: id, status: { state: 'CLOSED' } } });
    expect((await call('GET', `/api/2.0/sql/statements/${id}/result/chunks/0`)).status).toBe(404);
  });

  it('the client reports a CLOSED statement as failed, never as an empty result', async () => {
    local.setStatementLatency(TTL_MS + 600);
    try {
      const client = createDatabricksClient({ host: local.url, credentials: { kind: 'pat', token: PAT }, retry: { maxAttempts: 1 } });
      // Polled too rarely: the statement succeeds and closes between two polls.
      const error = await client.statements
        .query({ statement: 'SELECT 1', warehouse_id: '0c7d5e2f9a1b3c46', wait_timeout: '0s' }, { pollIntervalMs: 2_000, maxPollIntervalMs: 2_000 })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StatementFailedError);
      expect((error as StatementFailedError).errorCode).toBe('CLOSED');
    } finally {
      local.setStatementLatency(0);
    }
  });
});
