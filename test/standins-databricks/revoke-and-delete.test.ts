/**
 * The local Databricks' access faults, programmatic and over `/__admin`: a revoked personal access
 * token answers 403 `{"error_code": 403, "message": "Invalid access token."}` until restored, as the
 * service does; a deleted SQL warehouse answers 404 RESOURCE_DOES_NOT_EXIST on
 * statements until created again; on a stopped warehouse that does not start, statements stay PENDING.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';

const PAT = 'dapi-local-standin-test-000000000009';
let local: LocalDatabricks;

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(local.url + path, {
    method,
    headers: { Authorization: `Bearer ${PAT}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

const statement = () => call('POST', '/api/2.0/sql/statements', { statement: 'SELECT 1', warehouse_id: 'wh-1', wait_timeout: '5s' });

beforeAll(async () => {
  local = await startLocalDatabricks({ tokens: [PAT], warehouses: ['wh-1'] });
});
afterAll(async () => {
  await local.close();
});

describe('local Databricks access faults', () => {
  it('revokes and restores a token', async () => {
    expect(local.revokeToken(PAT)).toBe(true);
    expect(await statement()).toMatchObject({ status: 403, json: { error_code: 403, message: 'Invalid access token.' } });
    local.restoreToken(PAT);
    expect((await statement()).status).toBe(200);
    expect(await call('DELETE', '/__admin/tokens', { token: PAT })).toMatchObject({ status: 200, json: { revoked: true } });
    expect((await statement()).status).toBe(403);
    expect((await call('POST', '/__admin/tokens', { token: PAT })).status).toBe(200);
    expect((await statement()).status).toBe(200);
  });

  it('deletes and re-creates a warehouse', async () => {
    expect(local.deleteWarehouse('wh-1')).toBe(true);
    expect(await statement()).toMatchObject({ status: 404, json: { error_code: 'RESOURCE_DOES_NOT_EXIST', message: 'SQL warehouse wh-1 does not exist.' } });
    local.createWarehouse('wh-1');
    expect((await statement()).status).toBe(200);
    expect(await call('DELETE', '/__admin/warehouses', { warehouse_id: 'wh-1' })).toMatchObject({ status: 200, json: { deleted: true } });
    expect((await statement()).status).toBe(404);
    expect((await call('POST', '/__admin/warehouses', { warehouse_id: 'wh-1' })).status).toBe(200);
    expect((await statement()).status).toBe(200);
    expect((await call('DELETE', '/__admin/warehouses', {})).status).toBe(400);
  });

  it('keeps statements PENDING on a stopped warehouse until it starts', async () => {
    local.stopWarehouse('wh-1');
    const pending = await call('POST', '/api/2.0/sql/statements', { statement: 'SELECT 1', warehouse_id: 'wh-1', wait_timeout: '0s' });
    expect(pending).toMatchObject({ status: 200, json: { status: { state: 'PENDING' } } });
    const id = pending.json.statement_id as string;
    expect(await call('GET', `/api/2.0/sql/statements/${id}`)).toMatchObject({ status: 200, json: { status: { state: 'PENDING' } } });
    local.startWarehouse('wh-1');
    expect(await statement()).toMatchObject({ status: 200, json: { status: { state: 'SUCCEEDED' } } });
    expect((await call('POST', '/__admin/warehouses/stop', { warehouse_id: 'wh-1' })).status).toBe(200);
    expect(await call('POST', '/api/2.0/sql/statements', { statement: 'SELECT 1', warehouse_id: 'wh-1', wait_timeout: '0s' })).toMatchObject({ json: { status: { state: 'PENDING' } } });
    expect((await call('POST', '/__admin/warehouses/start', { warehouse_id: 'wh-1' })).status).toBe(200);
    expect(await statement()).toMatchObject({ json: { status: { state: 'SUCCEEDED' } } });
  });
});
