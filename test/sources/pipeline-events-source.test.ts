import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabricksClient, NotFoundError, type DatabricksClient } from '../../src/databricks/index.js';
import { PipelineEventsSource, type PipelineEventsCursor, type SourcedProgress, type SourceSignal } from '../../src/sources/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';
import { simulator } from './simulated-progress.js';

const PAT = 'dapi-local-test-token-000000000002';
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

describe('PipelineEventsSource', () => {
  it('turns stream_progress into parsed progress and flow_progress into backlog signals, paging with page_token alone', async () => {
    local.addStream('silver', { generator: simulator('silver_orders', START, 5), pipelineId: PIPELINE });
    local.addStream('gold', { generator: simulator('gold_orders', START, 6), pipelineId: PIPELINE });
    // Events unrelated to progress are skipped.
    local.appendPipelineEvent(PIPELINE, { event_type: 'cluster_resources', message: 'Scaled to 4 executors', details: { cluster_resources: {} } }, START + 1_000);
    const source = new PipelineEventsSource({ client, pipelineIds: [PIPELINE], pageSize: 7, now: () => local.clock.now(), initialLookbackMs: 60_000 });

    let cursor: PipelineEventsCursor | null = null;
    const progress: SourcedProgress[] = [];
    const signals: SourceSignal[] = [];
    for (let step = 0; step < 10; step += 1) {
      local.clock.advance(30_000);
      local.tick();
      const result = await source.poll(cursor);
      expect(result.warnings).toEqual([]);
      progress.push(...result.progress);
      signals.push(...result.signals);
      cursor = result.cursor;
    }
    const written = local.requests().byRoute['GET /api/2.0/pipelines/{id}/events']!;
    expect(written).toBeGreaterThan(10); // more than one page per poll at pageSize 7
    const keys = progress.map((record) => `${record.progress.name}/${record.progress.batchId}/${record.progress.timestampMs}`);
    expect(new Set(keys).size).toBe(keys.length);
    const silver = progress.filter((record) => record.progress.name === 'silver_orders').map((record) => record.progress.batchId);
    expect(silver.length).toBeGreaterThan(10);
    expect(silver).toEqual([...silver].sort((a, b) => a! - b!));
    expect(progress[0]!.origin.source).toBe('pipeline_event_log');
    const backlog = signals.filter((signal) => signal.type === 'flow_backlog');
    expect(backlog.length).toBe(progress.length);
    expect(backlog[0]).toMatchObject({ pipelineId: PIPELINE, flowName: expect.stringMatching(/_orders$/) });
    expect(typeof (backlog[0] as { backlogBytes: number }).backlogBytes).toBe('number');
  });

  it('reads progress given as a progress_json string, as the event-log table stores it', async () => {
    const batch = simulator('bronze_events', START, 8).next();
    local.appendPipelineEvent(
      PIPELINE,
      { event_type: 'stream_progress', maturity_level: 'EVOLVING', origin: { flow_name: 'bronze_events' }, details: { stream_progress: { progress_json: batch.json } } },
      batch.endMs,
    );
    local.clock.advance(120_000);
    const result = await new PipelineEventsSource({ client, pipelineIds: [PIPELINE], now: () => local.clock.now() }).poll(null);
    expect(result.progress).toHaveLength(1);
    expect(result.progress[0]!.progress).toMatchObject({ name: 'bronze_events', batchId: 0 });
  });

  it('reports a failed pipeline update with its exception message', async () => {
    local.appendPipelineEvent(
      PIPELINE,
      {
        event_type: 'update_progress',
        level: 'ERROR',
        message: "Update 7e1c is FAILED.",
        origin: { update_id: '7e1c-update' },
        error: { fatal: true, exceptions: [{ class_name: 'org.apache.spark.SparkException', message: 'Job aborted due to stage failure' }] },
        details: { update_progress: { state: 'FAILED' } },
      },
      START + 5_000,
    );
    local.clock.advance(10_000);
    const result = await new PipelineEventsSource({ client, pipelineIds: [PIPELINE], now: () => local.clock.now() }).poll(null);
    expect(result.signals).toEqual([
      { type: 'pipeline_failed', pipelineId: PIPELINE, pipelineName: 'orders-dlt', updateId: '7e1c-update', message: 'Job aborted due to stage failure', atMs: START + 5_000 },
    ]);
  });

  it('continues from the newest event read when its page budget is spent, events sharing a millisecond split across pages and polls read once', async () => {
    // 10 timestamps, 3 events at each: pages of 4 and two pages a poll cut through the ties.
    for (let i = 0; i < 30; i += 1) {
      local.appendPipelineEvent(PIPELINE, { id: `ev-${i}`, event_type: 'flow_progress', origin: { flow_name: 'silver_orders' }, details: { flow_progress: { status: 'RUNNING', metrics: { backlog_bytes: i } } } }, START + Math.floor(i / 3) * 1_000);
    }
    local.clock.advance(60_000);
    // No late window: each poll starts at the boundary millisecond (the window's own paging: pipeline-events-late.test.ts).
    const source = new PipelineEventsSource({ client, pipelineIds: [PIPELINE], pageSize: 4, maxPagesPerPipeline: 2, now: () => local.clock.now(), initialLookbackMs: 60_000, lateWindowMs: 0 });
    let cursor: PipelineEventsCursor | null = null;
    const read: number[] = [];
    const mores: boolean[] = [];
    for (let poll = 0; poll < 8; poll += 1) {
      const result = await source.poll(cursor);
      read.push(...result.signals.map((signal) => (signal as { backlogBytes: number }).backlogBytes));
      mores.push(result.more);
      cursor = result.cursor;
      expect(cursor.pipelines[PIPELINE]!.seen.length).toBeLessThanOrEqual(3);
    }
    expect(read).toEqual(Array.from({ length: 30 }, (_, i) => i));
    // Each poll re-reads its boundary millisecond (skipped by id): 8 events a poll, 6 of them new.
    expect(mores).toEqual([true, true, true, true, false, false, false, false]);
    expect(cursor!.pipelines[PIPELINE]).toEqual({ newestMs: START + 9_000, seenFromMs: START + 9_000, seen: [['ev-27', START + 9_000], ['ev-28', START + 9_000], ['ev-29', START + 9_000]] });
  });

  it('lifts a version-1 cursor (120 s of ids) to version 3: the newest timestamp and the ids read at it', async () => {
    const event = (id: string, atMs: number) =>
      local.appendPipelineEvent(PIPELINE, { id, event_type: 'flow_progress', origin: { flow_name: 'gold_orders' }, details: { flow_progress: { metrics: { backlog_files: Number(id.slice(1)) } } } }, atMs);
    event('e1', START - 5_000);
    event('e2', START);
    event('e3', START);
    event('e4', START + 1_000);
    local.clock.advance(10_000);
    const v1 = { v: 1, pipelines: { [PIPELINE]: { newestMs: START, seen: [['e1', START - 5_000], ['e2', START]] } } };
    const result = await new PipelineEventsSource({ client, pipelineIds: [PIPELINE], now: () => local.clock.now() }).poll(v1 as unknown as PipelineEventsCursor);
    expect(result.warnings).toEqual([]);
    expect(result.signals.map((signal) => (signal as { backlogFiles: number }).backlogFiles)).toEqual([3, 4]);
    // The ids of the late window behind the newest event, with the timestamps the listing gave them.
    expect(result.cursor).toEqual({ v: 3, pipelines: { [PIPELINE]: { newestMs: START + 1_000, seenFromMs: START, seen: [['e2', START], ['e3', START], ['e4', START + 1_000]] } } });
  });

  it('lifts a version-2 cursor: it reads on from its newest timestamp, skipping the ids read at it', async () => {
    const event = (id: string, atMs: number) =>
      local.appendPipelineEvent(PIPELINE, { id, event_type: 'flow_progress', origin: { flow_name: 'gold_orders' }, details: { flow_progress: { metrics: { backlog_files: Number(id.slice(1)) } } } }, atMs);
    event('e1', START - 5_000);
    event('e2', START);
    event('e3', START);
    event('e4', START + 1_000);
    local.clock.advance(10_000);
    const v2 = JSON.parse(JSON.stringify({ v: 2, pipelines: { [PIPELINE]: { newestMs: START, idsAtNewest: ['e2'] } } })) as unknown;
    const result = await new PipelineEventsSource({ client, pipelineIds: [PIPELINE], now: () => local.clock.now() }).poll(v2 as PipelineEventsCursor);
    expect(result.warnings).toEqual([]);
    expect(result.signals.map((signal) => (signal as { backlogFiles: number }).backlogFiles)).toEqual([3, 4]);
    expect(result.cursor).toEqual({ v: 3, pipelines: { [PIPELINE]: { newestMs: START + 1_000, seenFromMs: START, seen: [['e2', START], ['e3', START], ['e4', START + 1_000]] } } });
  });

  it('fails with NotFoundError for a pipeline id that does not exist', async () => {
    await expect(new PipelineEventsSource({ client, pipelineIds: ['no-such-pipeline'] }).poll(null)).rejects.toBeInstanceOf(NotFoundError);
  });
});
