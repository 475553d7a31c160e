/**
 * A busy pipeline on the local Databricks: 40 Kafka flows with a 1 s trigger (batches of about
 * 1.45 s, as the simulator prints them) write over 50 events/s (`stream_progress` +
 * `flow_progress` per batch) into the event log, read by the real poll job
 * (real Redis, real BullMQ queue) every 10 s of simulated time, its `poll-more` jobs run as the
 * worker would run them. Ground truth comes from the same simulators replayed on the side.
 */
import { randomUUID } from 'node:crypto';
import type { Job } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPollProcessor } from '../../jobs/poll-processor.js';
import type { PollJobData } from '../../jobs/queue-names.js';
import { PipelineQueues } from '../../jobs/queues.js';
import { createDatabricksClient, type DatabricksClient } from '../../src/databricks/index.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { StreamSimulator, type StreamSpec } from '../../src/simulator/index.js';
import { PipelineEventsSource, type PipelineEventsCursor, type SourceSignal } from '../../src/sources/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';
import { RedisStore } from '../../src/store/index.js';
import { silentLogger } from '../pipeline/helpers/harness.js';

const PAT = 'dapi-local-test-token-000000000050';
const START = Date.UTC(2026, 10, 30, 9, 0, 0);
const PIPELINE = '5f0e1d2c-3b4a-4959-8877-665544332211';
const SOURCE_ID = 'prod.pipeline.orders';
const FLOWS = Array.from({ length: 40 }, (_, index) => `flow_${String(index).padStart(2, '0')}_orders`);
const HISTORY_MS = 120_000;
const POLL_EVERY_MS = 10_000;
const STEADY_POLLS = 30;
/** A poll-more chain longer than this is a spin (the guard that stops the old code looping forever). */
const CHAIN_GUARD = 10;

const flowSpec = (name: string, index: number): StreamSpec => ({
  id: `aaaaaaaa-0000-4000-8000-0000000000${String(index).padStart(2, '0')}`,
  name,
  arrival: 200,
  processing: { rowsPerSecPerCore: 5_000, cores: 8 },
  triggerMs: 1_000,
  source: { kind: 'kafka', topic: `orders_${index}`, partitions: 8 },
});
const simulatorOf = (name: string, index: number) => new StreamSimulator(flowSpec(name, index), { startMs: START, seed: 11 + index });

const redis = new Redis('redis://127.0.0.1:6379');
let local: LocalDatabricks;
let client: DatabricksClient;
let store: RedisStore;
let queues: PipelineQueues;

beforeEach(async () => {
  local = await startLocalDatabricks({ tokens: [PAT], startMs: START, speed: 0, pipelines: [{ pipelineId: PIPELINE, name: 'orders-dlt' }] });
  client = createDatabricksClient({ host: local.url, credentials: { kind: 'pat', token: PAT }, retry: { baseDelayMs: 1, maxDelayMs: 5 }, sleep: async () => undefined });
  const prefix = `sdtest-plrate-${randomUUID().slice(0, 8)}`;
  store = new RedisStore({ redis, prefix });
  queues = new PipelineQueues({ connection: redis, prefix: `{${prefix}}` });
});
afterEach(async () => {
  await queues.obliterate();
  await queues.close();
  await store.deleteEverything();
  await local.close();
});
afterAll(() => redis.disconnect());

describe('pipeline event-log cursor under load', () => {
  it('keeps up with 50 events/s: every progress once and in order per flow, a mid-burst pipeline_failed delivered, lag bounded, poll-more does not spin', async () => {
    FLOWS.forEach((name, index) => local.addStream(name, { generator: simulatorOf(name, index), pipelineId: PIPELINE }));
    const real = new PipelineEventsSource({ client, pipelineIds: [PIPELINE], now: () => local.clock.now(), initialLookbackMs: HISTORY_MS });
    const delivered: { flow: string; batchId: number }[] = [];
    const signals: SourceSignal[] = [];
    let polls = 0;
    const recording = {
      name: real.name,
      liveness: () => real.liveness(),
      async poll(cursor: unknown) {
        polls += 1;
        const result = await real.poll(cursor as PipelineEventsCursor | null);
        for (const record of result.progress) delivered.push({ flow: record.progress.name!, batchId: record.progress.batchId! });
        signals.push(...result.signals);
        return result;
      },
    };
    const metrics = createMetrics({ processMetrics: false });
    const processPoll = createPollProcessor({ store, queues, metrics, logger: silentLogger, sources: new Map([[SOURCE_ID, { id: SOURCE_ID, source: recording }]]) });

    /** One scheduled poll, then the poll-more jobs it queued, each 50 ms later (as the worker runs them). Returns the chain length. */
    let scheduled = 0;
    async function pollCycle(): Promise<number> {
      scheduled += 1;
      await processPoll({ name: 'poll', id: `repeat:${scheduled}`, data: { sourceId: SOURCE_ID } } as Job<PollJobData>);
      let chain = 0;
      for (;;) {
        const pending = (await queues.poll.getJobs(['delayed', 'waiting'])).filter((job) => job.data.sourceId === SOURCE_ID);
        if (pending.length === 0 || chain >= CHAIN_GUARD) return chain;
        for (const job of pending) {
          await job.remove();
          chain += 1;
          local.clock.advance(50);
          await processPoll(job as Job<PollJobData>);
        }
      }
    }
    const lagMs = async () => local.clock.now() - (JSON.parse((await store.cursors.get(SOURCE_ID))!) as PipelineEventsCursor).pipelines[PIPELINE]!.newestMs;

    // Two minutes of history before the first poll: 6,000 events, three page budgets.
    local.clock.advance(HISTORY_MS);
    const catchUpChain = await pollCycle();
    const catchUpLag = await lagMs();
    // poll-more: the 6,000-event history takes three page budgets (2,000 events each), then stops.
    expect(catchUpChain, 'poll-more jobs chained after the first poll').toBeGreaterThanOrEqual(2);
    expect(catchUpChain, 'poll-more jobs chained after the first poll').toBeLessThanOrEqual(4);

    const chains: number[] = [];
    const lags: number[] = [];
    const steadyStart = local.clock.now();
    for (let step = 1; step <= STEADY_POLLS; step += 1) {
      local.clock.advance(POLL_EVERY_MS);
      if (step === STEADY_POLLS / 2) {
        // The update fails in the middle of the burst, between two polls, amid progress events.
        local.tick();
        local.appendPipelineEvent(
          PIPELINE,
          {
            event_type: 'update_progress',
            level: 'ERROR',
            message: 'Update 9c1d is FAILED.',
            origin: { update_id: '9c1d-update' },
            error: { fatal: true, exceptions: [{ class_name: 'org.apache.spark.SparkException', message: 'Job aborted due to stage failure: Task 3 in stage 812.0 failed 4 times' }] },
            details: { update_progress: { state: 'FAILED' } },
          },
          local.clock.now() - 4_321,
        );
      }
      chains.push(await pollCycle());
      lags.push(await lagMs());
      expect(chains.at(-1), `poll-more jobs chained after scheduled poll ${step}`).toBe(0);
    }
    const endMs = local.clock.now();

    // Ground truth: the same simulators replayed; every batch ended by the last poll was written.
    const expected: { flow: string; batchId: number }[] = [];
    FLOWS.forEach((name, index) => {
      const replay = simulatorOf(name, index);
      for (let batch = replay.next(); batch.endMs <= endMs; batch = replay.next()) expected.push({ flow: name, batchId: Number(batch.progress.batchId) });
    });
    const steadyEvents = 2 * expected.length * ((endMs - steadyStart) / (endMs - START));
    const eventsPerSecond = (2 * expected.length + 1) / ((endMs - START) / 1_000);
    const figures = { eventsPerSecond: Number(eventsPerSecond.toFixed(1)), events: 2 * expected.length + 1, polls, scheduled, catchUpChain, maxSteadyChain: Math.max(...chains), catchUpLag, maxLagMs: Math.max(...lags) };
    console.info('pipeline event-log cursor at load', figures);

    expect(eventsPerSecond).toBeGreaterThanOrEqual(50);
    expect(steadyEvents / (STEADY_POLLS * POLL_EVERY_MS / 1_000)).toBeGreaterThanOrEqual(49);
    // Exactly once: the delivered progress is the written progress, nothing twice, nothing missing.
    const key = (record: { flow: string; batchId: number }) => `${record.flow}#${record.batchId}`;
    expect(delivered.length).toBe(expected.length);
    expect(new Set(delivered.map(key)).size).toBe(delivered.length);
    expect(new Set(delivered.map(key))).toEqual(new Set(expected.map(key)));
    // In order per flow.
    for (const flow of FLOWS) {
      const batchIds = delivered.filter((record) => record.flow === flow).map((record) => record.batchId);
      expect(batchIds).toEqual([...batchIds].sort((a, b) => a - b));
    }
    // The failure mid-burst, once, with its exception.
    const failures = signals.filter((signal) => signal.type === 'pipeline_failed');
    expect(failures).toEqual([expect.objectContaining({ pipelineId: PIPELINE, pipelineName: 'orders-dlt', updateId: '9c1d-update', message: expect.stringContaining('Job aborted') })]);
    // The cursor keeps up: after every poll it is within a second of the clock (40 flows end a batch
    // every ~36 ms between them), never a poll interval behind.
    expect(catchUpLag).toBeLessThanOrEqual(1_000);
    expect(Math.max(...lags)).toBeLessThanOrEqual(1_000);
    // Every poll beyond the scheduled ones was a catch-up poll-more.
    expect(polls).toBe(scheduled + catchUpChain);
  }, 60_000);
});
