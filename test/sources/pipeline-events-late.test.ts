/**
 * Pipeline events that reach the log after events stamped later (a driver's event behind the control
 * plane's or another flow's), read through the local Databricks over HTTP: each is read once, never
 * twice, and the cursor stays bounded and advances when the late window holds more than a poll reads.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabricksClient, type DatabricksClient } from '../../src/databricks/index.js';
import { StreamSimulator, type StreamSpec } from '../../src/simulator/index.js';
import { MAX_SEEN } from '../../src/sources/pipeline-events-cursor.js';
import { PipelineEventsSource, type PipelineEventsCursor, type SourcedProgress, type SourceSignal } from '../../src/sources/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';

const PAT = 'dapi-local-test-token-000000000061';
const START = Date.UTC(2026, 8, 14, 10, 0, 0);
const PIPELINE = '0d1c2b3a-4f5e-4d6c-8b7a-695847362514';
const FLOWS = ['orders_bronze', 'orders_silver', 'orders_gold'];

const flowSpec = (name: string, index: number): StreamSpec => ({
  id: `bbbbbbbb-0000-4000-8000-0000000000${String(index).padStart(2, '0')}`,
  name,
  arrival: 400,
  processing: { rowsPerSecPerCore: 2_000, cores: 4 },
  triggerMs: 2_000,
  source: { kind: 'kafka', topic: `orders_${index}`, partitions: 4 },
});
const simulatorOf = (name: string, index: number) => new StreamSimulator(flowSpec(name, index), { startMs: START, seed: 21 + index });

let local: LocalDatabricks;
let client: DatabricksClient;

beforeEach(async () => {
  local = await startLocalDatabricks({ tokens: [PAT], startMs: START, speed: 0, pipelines: [{ pipelineId: PIPELINE, name: 'orders-dlt' }] });
  client = createDatabricksClient({ host: local.url, credentials: { kind: 'pat', token: PAT }, retry: { baseDelayMs: 1, maxDelayMs: 5 }, sleep: async () => undefined });
});
afterEach(async () => {
  await local.close();
});

/** One poll with the cursor as Redis hands it back (JSON). */
async function pollOnce(source: PipelineEventsSource, cursor: PipelineEventsCursor | null) {
  return source.poll(cursor === null ? null : (JSON.parse(JSON.stringify(cursor)) as PipelineEventsCursor));
}

function flowEvent(id: string, atMs: number): void {
  local.appendPipelineEvent(PIPELINE, { id, event_type: 'flow_progress', origin: { flow_name: 'orders' }, details: { flow_progress: { metrics: { backlog_files: Number(id.split('-')[1]) } } } }, atMs);
}

const backlogFiles = (signals: SourceSignal[]) => signals.filter((signal) => signal.type === 'flow_backlog').map((signal) => (signal as { backlogFiles: number }).backlogFiles);

describe('pipeline event log: events that become visible late', () => {
  it('reads once every event that becomes visible after a later-stamped one: a flow whose driver is 8 s behind, and a failure stamped before the newest event read', async () => {
    // The silver flow's events reach the log 8 s after they are stamped, for half its batches: after
    // the other flows' (and its own) later-stamped events.
    FLOWS.forEach((name, index) => local.addStream(name, { generator: simulatorOf(name, index), pipelineId: PIPELINE, ...(index === 1 ? { lateFraction: 0.5, lateByMs: 8_000 } : {}) }));
    const source = new PipelineEventsSource({ client, pipelineIds: [PIPELINE], now: () => local.clock.now(), initialLookbackMs: 60_000 });
    const delivered: SourcedProgress[] = [];
    const signals: SourceSignal[] = [];
    let cursor: PipelineEventsCursor | null = null;
    let lateReads = 0;
    for (let step = 1; step <= 24; step += 1) {
      local.clock.advance(10_000);
      if (step === 12) {
        // The update fails, and the control plane's event reaches the log stamped 2 s before the
        // newest event the last poll read.
        local.appendPipelineEvent(
          PIPELINE,
          {
            event_type: 'update_progress',
            level: 'ERROR',
            message: 'Update 3b7e is FAILED.',
            origin: { update_id: '3b7e-update' },
            error: { fatal: true, exceptions: [{ class_name: 'org.apache.spark.SparkException', message: 'Job aborted due to stage failure' }] },
            details: { update_progress: { state: 'FAILED' } },
          },
          cursor!.pipelines[PIPELINE]!.newestMs - 2_000,
        );
      }
      if (step === 22) {
        // The flows stop; the next polls find what was still on its way.
        local.tick();
        for (const name of FLOWS) local.stopStream(name);
      }
      const newestBefore = cursor?.pipelines[PIPELINE]?.newestMs ?? -Infinity;
      const result = await pollOnce(source, cursor);
      expect(result.warnings).toEqual([]);
      expect(result.more).toBe(false);
      delivered.push(...result.progress);
      signals.push(...result.signals);
      lateReads += result.signals.filter((signal) => signal.type === 'flow_backlog' && signal.atMs < newestBefore).length;
      cursor = result.cursor;
    }
    const stoppedAtMs = START + 22 * 10_000;

    // Ground truth: the same simulators replayed, every batch that ended before the flows stopped.
    const expected: string[] = [];
    FLOWS.forEach((name, index) => {
      const replay = simulatorOf(name, index);
      for (let batch = replay.next(); batch.endMs <= stoppedAtMs; batch = replay.next()) expected.push(`${name}#${String(batch.progress.batchId)}`);
    });
    const keys = delivered.map((record) => `${record.progress.name}#${record.progress.batchId}`);
    expect(new Set(keys).size, 'no progress read twice').toBe(keys.length);
    expect([...keys].sort()).toEqual([...expected].sort());
    expect(signals.filter((signal) => signal.type === 'flow_backlog')).toHaveLength(expected.length);
    expect(signals.filter((signal) => signal.type === 'pipeline_failed')).toEqual([expect.objectContaining({ updateId: '3b7e-update', message: 'Job aborted due to stage failure' })]);
    // The late events were read by polls after ones that had read events stamped after them.
    expect(lateReads).toBeGreaterThan(5);
    // The cursor holds the late window's ids only.
    const entry = cursor!.pipelines[PIPELINE]!;
    expect(entry.seen.every(([, atMs]) => atMs >= entry.newestMs - 20_000)).toBe(true);
  });

  it('reads a late event once when the late window holds more events than a poll reads: the polls after go on where each stopped', async () => {
    // 60 events over 30 s; a poll reads 8 (two pages of 4), so the window (20 s) takes several.
    for (let i = 0; i < 60; i += 1) flowEvent(`ev-${i}`, START + i * 500);
    local.clock.advance(31_000);
    const source = new PipelineEventsSource({ client, pipelineIds: [PIPELINE], pageSize: 4, maxPagesPerPipeline: 2, now: () => local.clock.now(), initialLookbackMs: 31_000 });
    const read: number[] = [];
    let cursor: PipelineEventsCursor | null = null;
    const drain = async () => {
      const starts: number[] = [];
      for (let poll = 0; poll < 20; poll += 1) {
        const result = await pollOnce(source, cursor);
        read.push(...backlogFiles(result.signals));
        cursor = result.cursor;
        starts.push(cursor.pipelines[PIPELINE]!.resumeMs ?? Number.POSITIVE_INFINITY);
        if (!result.more) return starts;
      }
      throw new Error('the polls did not catch up');
    };
    await drain();
    expect(read).toEqual(Array.from({ length: 60 }, (_, i) => i));
    // An event of the first flow reaches the log late, stamped 12 s before the newest read.
    flowEvent('late-100', START + 17_250);
    local.clock.advance(10_000);
    const starts = await drain();
    expect(read.slice(60)).toEqual([100]);
    // Each cut poll went on past where the one before stopped: the window is read once, not again.
    const resumed = starts.slice(0, -1);
    expect(resumed.length).toBeGreaterThan(1);
    expect(resumed).toEqual([...resumed].sort((a, b) => a - b));
    expect(new Set(resumed).size).toBe(resumed.length);
    // Nothing more: the next poll reads the window again and finds nothing new.
    local.clock.advance(10_000);
    await drain();
    expect(read).toHaveLength(61);
  });

  it('keeps at most MAX_SEEN ids, and never reads again an event whose id it let go', async () => {
    const count = MAX_SEEN + 1_000;
    // Stamped within 3 s, far more than the 20 s window would hold by time alone.
    for (let i = 0; i < count; i += 1) flowEvent(`ev-${i}`, START + Math.floor((i * 3_000) / count));
    local.clock.advance(5_000);
    const source = new PipelineEventsSource({ client, pipelineIds: [PIPELINE], now: () => local.clock.now(), initialLookbackMs: 5_000 });
    const read: number[] = [];
    let cursor: PipelineEventsCursor | null = null;
    for (let poll = 0; poll < 12; poll += 1) {
      const result = await pollOnce(source, cursor);
      read.push(...backlogFiles(result.signals));
      cursor = result.cursor;
      const entry = cursor.pipelines[PIPELINE]!;
      expect(entry.seen.length).toBeLessThanOrEqual(MAX_SEEN);
      expect(entry.seen.every(([, atMs]) => atMs >= entry.seenFromMs)).toBe(true);
      if (!result.more) local.clock.advance(1_000);
    }
    expect(read).toHaveLength(count);
    expect(new Set(read).size).toBe(count);
    // The window starts after the ids let go, so the polls after read none of them again.
    expect(cursor!.pipelines[PIPELINE]!.seenFromMs).toBeGreaterThan(START);
  });
});
