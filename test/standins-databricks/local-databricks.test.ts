import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PROGRESS_TABLE_STATEMENT, progressPageParameters } from '../../src/sources/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';
import { simulator } from '../sources/simulated-progress.js';

const PAT = 'dapi-local-standin-test-000000000004';
const START = Date.UTC(2026, 8, 14, 10, 0, 0);
const PIPELINE = '0a1b2c3d-aaaa-bbbb-cccc-0123456789ab';
let local: LocalDatabricks;

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(local.url + path, {
    method,
    headers: { Authorization: `Bearer ${PAT}`, 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, json, headers: response.headers };
}

beforeAll(async () => {
  local = await startLocalDatabricks({
    tokens: [PAT],
    oauthClients: [{ clientId: 'sp-1', clientSecret: 'sp-secret' }],
    startMs: START,
    speed: 0,
    pipelines: [{ pipelineId: PIPELINE, name: 'orders-dlt' }],
    jobs: [{ jobId: 77, name: 'orders-stream', continuous: true }],
    statements: { chunkRows: 5 },
  });
});
afterAll(async () => {
  await local.close();
});
beforeEach(() => local.faults.clear());

describe('local Databricks: auth', () => {
  it('issues OAuth tokens for good client credentials and rejects bad ones with 401; an expired token is refused with 403', async () => {
    const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    const good = await fetch(`${local.url}/oidc/v1/token`, { method: 'POST', headers: { ...form, Authorization: basic('sp-1', 'sp-secret') }, body: 'grant_type=client_credentials&scope=all-apis' });
    expect(good.status).toBe(200);
    const token = (await good.json()) as { access_token: string; token_type: string; expires_in: number; scope: string };
    expect(token).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'all-apis' });
    expect((await call('GET', '/api/2.2/jobs/runs/list?job_id=77', undefined, { Authorization: `Bearer ${token.access_token}` })).status).toBe(200);
    const bad = await fetch(`${local.url}/oidc/v1/token`, { method: 'POST', headers: { ...form, Authorization: basic('sp-1', 'nope') }, body: 'grant_type=client_credentials&scope=all-apis' });
    expect(bad.status).toBe(401);
    local.expireTokens();
    const expired = await call('GET', '/api/2.2/jobs/runs/list', undefined, { Authorization: `Bearer ${token.access_token}` });
    expect(expired).toMatchObject({ status: 403, json: { error_code: 403, message: 'Invalid access token.' } });
    expect(expired.headers.get('x-databricks-reason-phrase')).toBe('Invalid access token.');
  });

  it('requires a bearer token on every API call (401), and refuses one it does not know (403)', async () => {
    const response = await call('GET', '/api/2.2/jobs/runs/list', undefined, { Authorization: '' });
    expect(response).toMatchObject({ status: 401, json: { error_code: 401, message: 'Credential was not sent or was of an unsupported type for this API.' } });
    const unknown = await call('GET', '/api/2.2/jobs/runs/list', undefined, { Authorization: 'Bearer dapi-not-a-token-of-this-workspace' });
    expect(unknown).toMatchObject({ status: 403, json: { error_code: 403, message: 'Invalid access token.' } });
  });
});

describe('local Databricks: SQL statements', () => {
  it('validates the request like the API does', async () => {
    expect((await call('POST', '/api/2.0/sql/statements', { statement: 'SELECT 1', warehouse_id: '0c7d5e2f9a1b3c46', wait_timeout: '3s' })).json.error_code).toBe('INVALID_PARAMETER_VALUE');
    expect((await call('POST', '/api/2.0/sql/statements', { statement: 'SELECT 1' })).status).toBe(400);
    expect((await call('POST', '/api/2.0/sql/statements', { statement: 'SELECT 1', warehouse_id: 'ghost' })).status).toBe(404);
  });

  it('evaluates the product statement with its named parameters, in chunks', async () => {
    const sim = simulator('orders_agg', START, 21);
    for (let i = 0; i < 12; i += 1) {
      const batch = sim.next();
      local.insertProgress(batch.json, { ingestedAtMs: batch.endMs });
    }
    local.clock.advance(600_000);
    const parameters = progressPageParameters({ table: 'main.streamdoctor.streaming_progress', queryIds: [sim.id], queryNames: [], afterUs: 0, afterKey: '' });
    const response = await call('POST', '/api/2.0/sql/statements', { statement: PROGRESS_TABLE_STATEMENT, warehouse_id: '0c7d5e2f9a1b3c46', parameters, row_limit: 10 });
    expect(response.json.status.state).toBe('SUCCEEDED');
    expect(response.json.manifest).toMatchObject({ total_chunk_count: 2, total_row_count: 10, truncated: true, format: 'JSON_ARRAY' });
    expect(response.json.manifest.schema.columns.map((c: { name: string }) => c.name)).toEqual(['query_id', 'run_id', 'batch_id', 'event_ms', 'ingested_us', 'progress_json']);
    expect(response.json.result.data_array).toHaveLength(5);
    expect(response.json.result.data_array[0].every((value: unknown) => typeof value === 'string')).toBe(true);
    expect(response.json.result.next_chunk_internal_link).toMatch(/\/result\/chunks\/1\?row_offset=5$/);
    const chunk = await call('GET', response.json.result.next_chunk_internal_link);
    expect(chunk.json).toMatchObject({ chunk_index: 1, row_offset: 5, row_count: 5 });
    expect(chunk.json.next_chunk_index).toBeUndefined();
  });

  it('fails with HTTP 200 for a missing table, an unbound parameter, and an unsupported statement', async () => {
    const failed = async (statement: string, parameters: unknown[]) =>
      (await call('POST', '/api/2.0/sql/statements', { statement, warehouse_id: '0c7d5e2f9a1b3c46', parameters })).json;
    const params = progressPageParameters({ table: 'main.other.progress', queryIds: [], queryNames: [], afterUs: 0, afterKey: '' });
    const missing = await failed(PROGRESS_TABLE_STATEMENT, params);
    expect(missing.status).toMatchObject({ state: 'FAILED', sql_state: '42P01', error: { error_code: 'BAD_REQUEST' } });
    expect(missing.status.error.message).toContain('[TABLE_OR_VIEW_NOT_FOUND] The table or view `main`.`other`.`progress` cannot be found');
    const unbound = await failed(PROGRESS_TABLE_STATEMENT, params.filter((param) => param.name !== 'after_key'));
    expect(unbound.status).toMatchObject({ state: 'FAILED', sql_state: '42P02' });
    expect((await failed("SELECT * FROM main.streamdoctor.streaming_progress WHERE query_id = 'x' OR 1=1", [])).status.sql_state).toBe('0A000');
  });

  it('runs PENDING → RUNNING → SUCCEEDED, honours wait_timeout and can cancel', async () => {
    // RUNNING from half the latency until it: a window wide enough for a busy machine.
    local.setStatementLatency(2_000);
    try {
      const submitted = await call('POST', '/api/2.0/sql/statements', { statement: 'SELECT 1', warehouse_id: '0c7d5e2f9a1b3c46', wait_timeout: '0s' });
      expect(submitted.json.status.state).toBe('PENDING');
      const id = submitted.json.statement_id;
      await new Promise((resolve) => setTimeout(resolve, 1_300));
      expect((await call('GET', `/api/2.0/sql/statements/${id}`)).json.status.state).toBe('RUNNING');
      await new Promise((resolve) => setTimeout(resolve, 900));
      expect((await call('GET', `/api/2.0/sql/statements/${id}`)).json.result.data_array).toEqual([['1']]);
      const waited = await call('POST', '/api/2.0/sql/statements', { statement: 'SELECT 1', warehouse_id: '0c7d5e2f9a1b3c46', wait_timeout: '5s' });
      expect(waited.json.status.state).toBe('SUCCEEDED');
      const other = await call('POST', '/api/2.0/sql/statements', { statement: 'SELECT 1', warehouse_id: '0c7d5e2f9a1b3c46', wait_timeout: '0s' });
      expect((await call('POST', `/api/2.0/sql/statements/${other.json.statement_id}/cancel`)).status).toBe(200);
      expect((await call('GET', `/api/2.0/sql/statements/${other.json.statement_id}`)).json.status.state).toBe('CANCELED');
    } finally {
      local.setStatementLatency(0);
    }
  });
});

describe('local Databricks: pipeline events and job runs', () => {
  it('applies the filter grammar, order and paging, and rejects page_token with other parameters', async () => {
    for (let i = 0; i < 9; i += 1) {
      local.appendPipelineEvent(PIPELINE, { event_type: 'flow_progress', level: i % 3 === 0 ? 'WARN' : 'INFO', details: { flow_progress: { status: 'RUNNING', metrics: { backlog_bytes: i * 100 } } } }, START + i * 1_000);
    }
    const path = `/api/2.0/pipelines/${PIPELINE}/events`;
    const since = new Date(START + 2_000).toISOString();
    const filter = encodeURIComponent(`timestamp >= '${since}' AND level in ('INFO')`);
    const first = await call('GET', `${path}?max_results=3&order_by=timestamp%20asc&filter=${filter}`);
    expect(first.json.events.map((event: { details: any }) => event.details.flow_progress.metrics.backlog_bytes)).toEqual([200, 400, 500]);
    const second = await call('GET', `${path}?page_token=${first.json.next_page_token}&max_results=3`);
    expect(second.json.events.map((event: { details: any }) => event.details.flow_progress.metrics.backlog_bytes)).toEqual([700, 800]);
    expect(second.json.next_page_token).toBeUndefined();
    const mixed = await call('GET', `${path}?page_token=${first.json.next_page_token}&filter=${filter}`);
    expect(mixed).toMatchObject({ status: 400, json: { error_code: 'INVALID_PARAMETER_VALUE' } });
    expect((await call('GET', `${path}?filter=${encodeURIComponent("event_type = 'flow_progress'")}`)).status).toBe(400);
    const newestFirst = await call('GET', `${path}?max_results=1`);
    expect(newestFirst.json.events[0].details.flow_progress.metrics.backlog_bytes).toBe(800);
  });

  it('serves at most 250 events a page whatever max_results asks (≤ 1000), and stamps every event with its pipeline', async () => {
    const base = START + 600_000;
    for (let i = 0; i < 300; i += 1) local.appendPipelineEvent(PIPELINE, { event_type: 'flow_progress', origin: { flow_name: 'silver' }, details: { flow_progress: { metrics: { backlog_bytes: i } } } }, base + i);
    const path = `/api/2.0/pipelines/${PIPELINE}/events`;
    const since = encodeURIComponent(`timestamp >= '${new Date(base).toISOString()}'`);
    const first = await call('GET', `${path}?max_results=1000&order_by=timestamp%20asc&filter=${since}`);
    expect(first.json.events).toHaveLength(250);
    expect(first.json.events[0].origin).toMatchObject({ pipeline_id: PIPELINE, pipeline_name: expect.any(String), flow_name: 'silver' });
    const rest = await call('GET', `${path}?page_token=${first.json.next_page_token}&max_results=1000`);
    expect(rest.json.events.map((event: { details: any }) => event.details.flow_progress.metrics.backlog_bytes)).toEqual(Array.from({ length: 50 }, (_, i) => 250 + i));
    expect(rest.json.next_page_token).toBeUndefined();
    expect(await call('GET', `${path}?max_results=1001`)).toMatchObject({ status: 400, json: { error_code: 'INVALID_PARAMETER_VALUE' } });
  });

  it('lists runs newest first with limit, paging, states, and rejects active_only with completed_only', async () => {
    for (let i = 0; i < 4; i += 1) {
      const runId = local.startRun(77);
      local.clock.advance(1_000);
      if (i < 3) local.endRun(runId, i === 1 ? 'FAILED' : 'SUCCESS', i === 1 ? 'Task failed' : '');
    }
    const active = await call('GET', '/api/2.2/jobs/runs/list?job_id=77&active_only=true');
    expect(active.json.runs).toHaveLength(1);
    expect(active.json.runs[0]).toMatchObject({ state: { life_cycle_state: 'RUNNING' }, end_time: 0, trigger: 'CONTINUOUS' });
    const page1 = await call('GET', '/api/2.2/jobs/runs/list?job_id=77&completed_only=true&limit=2');
    expect(page1.json).toMatchObject({ has_more: true });
    const page2 = await call('GET', `/api/2.2/jobs/runs/list?job_id=77&completed_only=true&limit=2&page_token=${page1.json.next_page_token}`);
    const all = [...page1.json.runs, ...page2.json.runs];
    expect(all.map((run: { state: { result_state: string } }) => run.state.result_state)).toEqual(['SUCCESS', 'FAILED', 'SUCCESS']);
    expect((await call('GET', '/api/2.2/jobs/runs/list?active_only=true&completed_only=true')).status).toBe(400);
    expect((await call('GET', '/api/2.2/jobs/runs/list?limit=26')).status).toBe(400);
    const run = await call('GET', `/api/2.2/jobs/runs/get?run_id=${all[1].run_id}`);
    expect(run.json.state.state_message).toBe('Task failed');
  });
});

describe('local Databricks: faults and admin', () => {
  it('injects faults through the admin endpoint', async () => {
    expect((await call('POST', '/__admin/faults', { faults: [{ kind: 'rate_limit', retryAfterSec: 4 }, { kind: 'unavailable' }] })).status).toBe(200);
    const limited = await call('GET', '/api/2.2/jobs/runs/list');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('4');
    expect(limited.json.error_code).toBe('REQUEST_LIMIT_EXCEEDED');
    expect((await call('GET', '/api/2.2/jobs/runs/list')).json.error_code).toBe('TEMPORARILY_UNAVAILABLE');
    expect((await call('GET', '/api/2.2/jobs/runs/list')).status).toBe(200);
    expect((await call('POST', '/__admin/faults', { kind: 'explode' })).status).toBe(400);
    expect((await call('GET', '/__admin/faults')).json.hits).toMatchObject({ rate_limit: 1, unavailable: 1 });
  });

  it('plays a simulated stream in accelerated time', async () => {
    const sim = simulator('clicks_agg', local.clock.now(), 31);
    local.addStream('clicks', { generator: sim, table: 'main.streamdoctor.streaming_progress' });
    const clock = await call('POST', '/__admin/clock', { advanceMs: 5 * 60_000 });
    expect(clock.json.speed).toBe(0);
    const stats = await call('GET', '/__admin/stats');
    const clicks = stats.json.streams.find((stream: { key: string }) => stream.key === 'clicks');
    expect(clicks.written).toBeGreaterThanOrEqual(25); // a 10 s trigger over 5 minutes
  });
});

async function countRows(target: LocalDatabricks, queryIds: string[]): Promise<number> {
  const parameters = progressPageParameters({ table: 'main.streamdoctor.streaming_progress', queryIds, queryNames: [], afterUs: 0, afterKey: '' });
  const statement = await fetch(`${target.url}/api/2.0/sql/statements`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${PAT}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ statement: PROGRESS_TABLE_STATEMENT, warehouse_id: '0c7d5e2f9a1b3c46', parameters, row_limit: 100_000 }),
  });
  return ((await statement.json()) as { manifest: { total_row_count: number } }).manifest.total_row_count;
}

describe('local Databricks: reads follow the simulated clock', () => {
  it('a read right after a clock jump sees every batch that has ended, whenever the timer fires', async () => {
    // A timer that never fires during the test: only the reads can bring the streams up to date.
    const lazy = await startLocalDatabricks({ tokens: [PAT], startMs: START, speed: 0, tickMs: 3_600_000 });
    try {
      const sim = simulator('orders_agg', START, 43);
      lazy.addStream('orders', { generator: sim, table: 'main.streamdoctor.streaming_progress' });
      expect(await countRows(lazy, [sim.id])).toBe(0);
      lazy.clock.advance(5 * 60_000);
      const first = await countRows(lazy, [sim.id]);
      expect(first).toBeGreaterThanOrEqual(25); // a 10 s trigger over 5 minutes
      // Same clock reading, same rows: nothing appears between two reads unless the clock moves.
      expect(await countRows(lazy, [sim.id])).toBe(first);
      expect(lazy.tick()).toBe(0);
    } finally {
      await lazy.close();
    }
  });
});

describe('local Databricks: retention', () => {
  it('drops progress rows and pipeline events older than its retention', async () => {
    const small = await startLocalDatabricks({ tokens: [PAT], startMs: START, speed: 0, retentionMs: 60_000, tickMs: 3_600_000, pipelines: [{ pipelineId: PIPELINE, name: 'p' }] });
    try {
      const sim = simulator('orders_agg', START, 41);
      const batch = sim.next();
      small.insertProgress(batch.json, { ingestedAtMs: START });
      small.appendPipelineEvent(PIPELINE, { event_type: 'flow_progress', details: {} }, START);
      expect(await countRows(small, [sim.id])).toBe(1);
      small.clock.advance(120_000);
      const response = await fetch(`${small.url}/api/2.0/pipelines/${PIPELINE}/events`, { headers: { Authorization: `Bearer ${PAT}` } });
      expect(((await response.json()) as { events: unknown[] }).events).toEqual([]);
      expect(await countRows(small, [sim.id])).toBe(0);
    } finally {
      await small.close();
    }
  });

  it('stays bounded in rows and events over a long run of fast streams, keeping the newest', async () => {
    const capped = await startLocalDatabricks({
      tokens: [PAT],
      startMs: START,
      speed: 0,
      tickMs: 3_600_000,
      maxRowsPerTable: 500,
      maxEventsPerPipeline: 400,
      pipelines: [{ pipelineId: PIPELINE, name: 'orders-dlt' }],
    });
    try {
      const sims = ['orders_agg', 'payments_agg', 'clicks_agg'].map((name, index) => simulator(name, START, 50 + index));
      sims.forEach((sim, index) => capped.addStream(`s${index}`, { generator: sim, table: 'main.streamdoctor.streaming_progress' }));
      const flow = simulator('orders_flow', START, 60);
      capped.addStream('flow', { generator: flow, pipelineId: PIPELINE });
      // Two simulated hours, a minute at a time: 3 streams × a 10 s trigger = 2 160 rows written.
      let peakRows = 0;
      let peakEvents = 0;
      for (let minute = 0; minute < 120; minute += 1) {
        capped.clock.advance(60_000);
        const sizes = capped.sizes();
        peakRows = Math.max(peakRows, sizes.tables['main.streamdoctor.streaming_progress']!);
        peakEvents = Math.max(peakEvents, sizes.pipelines[PIPELINE]!);
      }
      const written = (await call2(capped, 'GET', '/__admin/stats')).streams as { key: string; written: number }[];
      expect(written.filter((stream) => stream.key.startsWith('s')).reduce((sum, stream) => sum + stream.written, 0)).toBeGreaterThan(2_000);
      expect(peakRows).toBeLessThanOrEqual(500);
      expect(peakRows).toBeGreaterThan(400);
      expect(peakEvents).toBeLessThanOrEqual(400);
      // What is kept is the newest: the last batches are there, the first are gone.
      const all = await countRows(capped, sims.map((sim) => sim.id));
      expect(all).toBeLessThanOrEqual(500);
      const parameters = progressPageParameters({ table: 'main.streamdoctor.streaming_progress', queryIds: [sims[0]!.id], queryNames: [], afterUs: 0, afterKey: '' });
      const page = await call2(capped, 'POST', '/api/2.0/sql/statements', { statement: PROGRESS_TABLE_STATEMENT, warehouse_id: '0c7d5e2f9a1b3c46', parameters, row_limit: 1_000 });
      const batchIds = (page.result.data_array as string[][]).map((row) => Number(row[2]));
      expect(Math.min(...batchIds)).toBeGreaterThan(100);
      expect(Math.max(...batchIds)).toBeGreaterThanOrEqual(710);
    } finally {
      await capped.close();
    }
  });
});

async function call2(target: LocalDatabricks, method: string, path: string, body?: unknown) {
  const response = await fetch(target.url + path, {
    method,
    headers: { Authorization: `Bearer ${PAT}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await response.json()) as any;
}
