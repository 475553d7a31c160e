/**
 * `POST /api/2.0/sql/statements` bodies the real API refuses with 400 INVALID_PARAMETER_VALUE are
 * refused by the stand-in too: a statement over 16 MiB, `on_wait_timeout` other than CONTINUE |
 * CANCEL, `format` / `disposition` outside their values, `parameters` that are not a list of
 * `{ name, value: string | null, type }` or that name a complex type, more than 20 `query_tags`.
 * The bot's own request (the progress-table poll) still runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabricksClient } from '../../src/databricks/index.js';
import { PROGRESS_TABLE_STATEMENT, progressPageParameters, progressPageRequest } from '../../src/sources/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';

const PAT = 'dapi-local-statement-rules-0000000001';
const WAREHOUSE = '0c7d5e2f9a1b3c46';
let local: LocalDatabricks;

beforeAll(async () => {
  local = await startLocalDatabricks({ tokens: [PAT], startMs: Date.UTC(2026, 8, 14, 10), speed: 0 });
});
afterAll(async () => local.close());

async function submit(body: Record<string, unknown>) {
  const response = await fetch(`${local.url}/api/2.0/sql/statements`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${PAT}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ statement: 'SELECT 1', warehouse_id: WAREHOUSE, ...body }),
  });
  return { status: response.status, json: (await response.json()) as { error_code?: string; message?: string; status?: { state: string } } };
}

function expectRefused(response: Awaited<ReturnType<typeof submit>>, text: RegExp) {
  expect(response.status).toBe(400);
  expect(response.json.error_code).toBe('INVALID_PARAMETER_VALUE');
  expect(response.json.message).toMatch(text);
}

describe('POST /api/2.0/sql/statements: what the API refuses', () => {
  it('a statement of more than 16 MiB', async () => {
    const padding = 16 * 1024 * 1024 - 'SELECT 1 --'.length;
    expect((await submit({ statement: `SELECT 1 --${'x'.repeat(padding)}` })).json.status?.state).toBe('SUCCEEDED');
    expectRefused(await submit({ statement: `SELECT 1 --${'x'.repeat(padding + 1)}` }), /16 MiB/);
  });

  it('on_wait_timeout other than CONTINUE or CANCEL', async () => {
    for (const value of ['CONTINUE', 'CANCEL']) expect((await submit({ on_wait_timeout: value })).status).toBe(200);
    for (const value of ['ABORT', 'cancel', 1]) expectRefused(await submit({ on_wait_timeout: value }), /on_wait_timeout must be one of CONTINUE, CANCEL/);
  });

  it('format and disposition outside their values', async () => {
    expectRefused(await submit({ format: 'PARQUET' }), /format must be one of JSON_ARRAY, ARROW_STREAM, CSV/);
    expectRefused(await submit({ disposition: 'STREAM' }), /disposition must be one of INLINE, EXTERNAL_LINKS/);
  });

  it('parameters that are not a list of { name, value: string | null }', async () => {
    expectRefused(await submit({ parameters: { table: 'main.streamdoctor.streaming_progress' } }), /parameters must be a list/);
    expectRefused(await submit({ parameters: [{ value: 'x' }] }), /parameters\[0\] needs a string name/);
    // A number where the API takes a string: the old stand-in crashed on it (500).
    const params = progressPageParameters({ table: 'main.streamdoctor.streaming_progress', queryIds: ['q'], queryNames: [], afterUs: 0, afterKey: '' });
    const numeric = params.map((param) => (param.name === 'after_us' ? { ...param, value: 0 } : param));
    expectRefused(await submit({ statement: PROGRESS_TABLE_STATEMENT, parameters: numeric }), /after_us\): value must be a string/);
    expect((await submit({ parameters: [{ name: 'x', value: null }, { name: 'y' }] })).status).toBe(200);
  });

  it('a parameter of a complex type', async () => {
    for (const type of ['ARRAY<STRING>', 'STRUCT<a: INT>', 'map<string,int>']) {
      expectRefused(await submit({ parameters: [{ name: 'ids', value: '["a"]', type }] }), /complex type/);
    }
    expect((await submit({ parameters: [{ name: 'n', value: '5', type: 'DECIMAL(10,2)' }] })).status).toBe(200);
  });

  it('more than 20 query_tags', async () => {
    const tags = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: 'v' }));
    expect((await submit({ query_tags: tags(20) })).status).toBe(200);
    expectRefused(await submit({ query_tags: tags(21) }), /at most 20/);
    expectRefused(await submit({ query_tags: 'team=streaming' }), /query_tags must be a list/);
  });

  it("still runs the bot's own progress-table request", async () => {
    const client = createDatabricksClient({ host: local.url, credentials: { kind: 'pat', token: PAT }, retry: { maxAttempts: 1 } });
    const result = await client.statements.query(
      progressPageRequest({
        warehouseId: WAREHOUSE,
        parameters: progressPageParameters({ table: 'main.streamdoctor.streaming_progress', queryIds: ['q'], queryNames: [], afterUs: 0, afterKey: '' }),
      }),
    );
    expect(result.columns).toEqual(['query_id', 'run_id', 'batch_id', 'event_ms', 'ingested_us', 'progress_json']);
  });
});
