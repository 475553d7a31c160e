/**
 * After a failed pipeline update, a later update that reaches RUNNING (or COMPLETED, a triggered
 * pipeline) is reported as `pipeline_running`, with the start of that update as far as the poll read
 * it, so the app resolves the failure only with an update that began after it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabricksClient, type DatabricksClient } from '../../src/databricks/index.js';
import { PipelineEventsSource } from '../../src/sources/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';

const PAT = 'dapi-local-test-token-000000000032';
const START = Date.UTC(2026, 8, 14, 10, 0, 0);
const PIPELINE = 'abcdef12-abcd-3456-7890-abcd1234ef56';

let local: LocalDatabricks;
let client: DatabricksClient;

beforeEach(async () => {
  local = await startLocalDatabricks({ tokens: [PAT], startMs: START, speed: 0, pipelines: [{ pipelineId: PIPELINE, name: 'orders-dlt' }] });
  client = createDatabricksClient({ host: local.url, credentials: { kind: 'pat', token: PAT }, retry: { baseDelayMs: 1, maxDelayMs: 5 }, sleep: async () => undefined });
});
afterEach(async () => {
  await local.close();
});

function update(updateId: string, state: string, atMs: number): void {
  local.appendPipelineEvent(
    PIPELINE,
    { event_type: 'update_progress', level: state === 'FAILED' ? 'ERROR' : 'INFO', origin: { update_id: updateId, pipeline_name: 'orders-dlt' }, details: { update_progress: { state } } },
    atMs,
  );
}

describe('PipelineEventsSource: a later update recovers a failed one', () => {
  it('reports RUNNING and COMPLETED of the next update with its start (its CREATED), after the failure', async () => {
    update('u1', 'RUNNING', START + 1_000);
    update('u1', 'FAILED', START + 5_000);
    update('u2', 'CREATED', START + 60_000);
    update('u2', 'WAITING_FOR_RESOURCES', START + 61_000);
    update('u2', 'RUNNING', START + 90_000);
    update('u2', 'COMPLETED', START + 95_000);
    local.clock.advance(120_000);
    const result = await new PipelineEventsSource({ client, pipelineIds: [PIPELINE], now: () => local.clock.now() }).poll(null);
    const recovery = { type: 'pipeline_running', pipelineId: PIPELINE, pipelineName: 'orders-dlt', updateId: 'u2', startedAtMs: START + 60_000 };
    expect(result.signals).toEqual([
      // u1's own RUNNING, before it failed (resolves nothing: no failure is open yet, and it started before).
      { type: 'pipeline_running', pipelineId: PIPELINE, pipelineName: 'orders-dlt', updateId: 'u1', state: 'RUNNING', startedAtMs: START + 1_000, atMs: START + 1_000 },
      expect.objectContaining({ type: 'pipeline_failed', updateId: 'u1', atMs: START + 5_000 }),
      { ...recovery, state: 'RUNNING', atMs: START + 90_000 },
      { ...recovery, state: 'COMPLETED', atMs: START + 95_000 },
    ]);
  });

  it('never reports the failed update itself as recovering, even when its events share the failure\'s millisecond', async () => {
    update('u1', 'FAILED', START + 5_000);
    update('u1', 'RUNNING', START + 5_000);
    local.clock.advance(60_000);
    const result = await new PipelineEventsSource({ client, pipelineIds: [PIPELINE], now: () => local.clock.now() }).poll(null);
    expect(result.signals.map((s) => s.type)).toEqual(['pipeline_failed']);
  });

  it('reports an update whose start an earlier poll read by its RUNNING event', async () => {
    const source = new PipelineEventsSource({ client, pipelineIds: [PIPELINE], now: () => local.clock.now() });
    update('u1', 'FAILED', START + 5_000);
    update('u2', 'CREATED', START + 20_000);
    local.clock.advance(30_000);
    const first = await source.poll(null);
    expect(first.signals.map((s) => s.type)).toEqual(['pipeline_failed']);
    update('u2', 'RUNNING', START + 40_000);
    local.clock.advance(30_000);
    const second = await source.poll(first.cursor);
    expect(second.signals).toEqual([expect.objectContaining({ type: 'pipeline_running', updateId: 'u2', state: 'RUNNING', startedAtMs: START + 40_000, atMs: START + 40_000 })]);
  });
});
