/**
 * The pipeline events `filter` takes `level='INFO'` (or WARN, ERROR) and `level in (…)`: a value that
 * is no event level is refused with 400 INVALID_PARAMETER_VALUE, where the stand-in used to answer an
 * empty page as though the filter were fine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabricksClient } from '../../src/databricks/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';

const PAT = 'dapi-local-event-levels-000000000001';
const START = Date.UTC(2026, 8, 14, 10);
const PIPELINE = '6d1e2f3a-aaaa-bbbb-cccc-0123456789ab';
let local: LocalDatabricks;

beforeAll(async () => {
  local = await startLocalDatabricks({ tokens: [PAT], startMs: START, speed: 0, pipelines: [{ pipelineId: PIPELINE, name: 'orders-dlt' }] });
  local.appendPipelineEvent(PIPELINE, { event_type: 'update_progress', level: 'INFO', message: 'Update is RUNNING.' }, START - 60_000);
  local.appendPipelineEvent(PIPELINE, { event_type: 'flow_progress', level: 'WARN', message: 'Flow is slow.' }, START - 30_000);
});
afterAll(async () => local.close());

async function events(filter: string) {
  const response = await fetch(`${local.url}/api/2.0/pipelines/${PIPELINE}/events?filter=${encodeURIComponent(filter)}`, { headers: { Authorization: `Bearer ${PAT}` } });
  return { status: response.status, json: (await response.json()) as { events?: { level: string }[]; error_code?: string; message?: string } };
}

describe('pipeline events filter levels', () => {
  it('refuses a level that is not an event level', async () => {
    for (const filter of ["level='DEBUG'", "level in ('INFO','TRACE')", "level='WARNING'"]) {
      const response = await events(filter);
      expect(response.status).toBe(400);
      expect(response.json.error_code).toBe('INVALID_PARAMETER_VALUE');
      expect(response.json.message).toMatch(/^Invalid filter: '\w+' is not an event level/);
    }
  });

  it('applies INFO, WARN and ERROR', async () => {
    expect((await events("level='WARN'")).json.events?.map((event) => event.level)).toEqual(['WARN']);
    expect((await events("level in ('INFO','WARN')")).json.events).toHaveLength(2);
    expect((await events("level='ERROR'")).json.events).toEqual([]);
  });

  it("the bot's listing (a timestamp filter, ascending, then page_token alone) still reads the log", async () => {
    const client = createDatabricksClient({ host: local.url, credentials: { kind: 'pat', token: PAT }, retry: { maxAttempts: 1 } });
    const first = await client.pipelines.listEvents(PIPELINE, { maxResults: 1, orderBy: ['timestamp asc'], filter: `timestamp >= '${new Date(START - 3_600_000).toISOString()}'` });
    expect(first.events?.map((event) => event.level)).toEqual(['INFO']);
    const second = await client.pipelines.listEvents(PIPELINE, { maxResults: 1, pageToken: first.next_page_token });
    expect(second.events?.map((event) => event.level)).toEqual(['WARN']);
  });
});
