/**
 * The demo's streams: five simulated queries on the local Databricks, each telling one story a data
 * engineer recognises. Times are in simulated ms from the demo's start; the demo runs the clock at
 * `DEMO_SPEED`× so every story plays out within about a minute of wall-clock time.
 *
 * The specs are plain simulator specs (src/simulator): the same physics the engine is evaluated on,
 * so what the demo shows is what the product does on real progress, only faster.
 */
import { steppedRate, withBursts, type StreamSpec } from '../simulator/index.js';

/** Simulated ms per wall-clock ms: half an hour of stream life per real minute. */
export const DEMO_SPEED = 30;

const MINUTE = 60_000;

export type DemoStory = 'healthy' | 'lag' | 'state_growth' | 'slow_repartition' | 'stalled';

export interface DemoStream {
  /** Key of the stream in the local Databricks. */
  key: string;
  /** Query name as the listener reports it. */
  name: string;
  /** Stable query id, so routing in the demo config can name it. */
  queryId: string;
  story: DemoStory;
  /** One line for the banner. */
  summary: string;
  /** Slack channel name (without #) its incidents go to. */
  channel: string;
  /** Databricks job that runs it; absent for the pipeline flow. */
  job?: { jobId: number; name: string };
  /** Lakeflow pipeline whose event log carries its progress; absent for job streams. */
  pipeline?: { pipelineId: string; name: string };
  /** Builds the simulator spec for a demo that starts at `startMs` (simulated epoch ms). */
  spec(startMs: number): StreamSpec;
  /** Simulator seed; fixed so every demo run tells the same story. */
  seed: number;
}

export const DEMO_STREAMS: DemoStream[] = [
  {
    key: 'clickstream',
    name: 'clickstream_bronze',
    queryId: '6f1d3b7e-2a4c-4e5f-9b8a-1c2d3e4f5a60',
    story: 'healthy',
    summary: 'healthy: 18k rows/s into a 32k rows/s query, one short burst',
    channel: 'data-alerts',
    job: { jobId: 640_118_204_511_901, name: 'clickstream-bronze-ingest' },
    seed: 11,
    spec: (startMs) => ({
      id: '6f1d3b7e-2a4c-4e5f-9b8a-1c2d3e4f5a60',
      name: 'clickstream_bronze',
      // A burst that drains within a few batches must not page anyone.
      arrival: withBursts(() => 18_000, [{ atMs: startMs + 6 * MINUTE, durationMs: 45_000, extraRowsPerSec: 14_000 }]),
      processing: { rowsPerSecPerCore: 4_000, cores: 8, overheadMs: 1_500 },
      triggerMs: 30_000,
      source: { kind: 'kafka', topic: 'clickstream', partitions: 16 },
      sink: { kind: 'delta', description: 'DeltaSink[s3://acme-lake/bronze/clickstream]' },
    }),
  },
  {
    key: 'orders',
    name: 'orders_enrichment',
    queryId: '0b6c6f0e-8d3a-4b7e-a4d2-5e9f8c7b6a51',
    story: 'lag',
    summary: 'falls behind: input rises to 115 % of capacity after 4 min',
    channel: 'stream-orders',
    job: { jobId: 912_004_377_120_455, name: 'orders-enrichment' },
    seed: 23,
    spec: (startMs) => ({
      id: '0b6c6f0e-8d3a-4b7e-a4d2-5e9f8c7b6a51',
      name: 'orders_enrichment',
      // 75 % of capacity, then a promotion lifts arrivals to 115 % of it: the query loses ground every batch.
      arrival: steppedRate(9_000, [{ atMs: startMs + 4 * MINUTE, rowsPerSec: 13_800 }]),
      processing: { rowsPerSecPerCore: 1_500, cores: 8, overheadMs: 1_200 },
      triggerMs: 20_000,
      source: { kind: 'kafka', topic: 'orders', partitions: 12 },
      sink: { kind: 'delta', description: 'DeltaSink[s3://acme-lake/silver/orders_enriched]' },
    }),
  },
  {
    key: 'sessions',
    name: 'sessions_dedup',
    queryId: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c62',
    story: 'state_growth',
    summary: 'dropDuplicates without a watermark: state grows forever',
    channel: 'data-alerts',
    job: { jobId: 218_447_902_118_006, name: 'sessions-dedup' },
    seed: 37,
    spec: () => ({
      id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c62',
      name: 'sessions_dedup',
      arrival: 6_000,
      processing: { rowsPerSecPerCore: 2_500, cores: 8, overheadMs: 1_500 },
      triggerMs: 30_000,
      source: { kind: 'kafka', topic: 'sessions', partitions: 8 },
      state: {
        operator: 'dedupe',
        provider: 'rocksdb',
        watermarkMs: null,
        newKeysPerRow: 0.9,
        updatesPerRow: 0,
        bytesPerRow: 180,
        initialRows: 40_000_000,
        msPerMillionRows: 60,
      },
      sink: { kind: 'delta', description: 'DeltaSink[s3://acme-lake/silver/sessions]' },
    }),
  },
  {
    key: 'inventory',
    name: 'inventory_by_store',
    queryId: '3c4d5e6f-7a8b-4c9d-8e0f-2a3b4c5d6e73',
    story: 'slow_repartition',
    summary: 'restarted with more state partitions: slow repartition',
    channel: 'data-alerts',
    job: { jobId: 455_120_903_771_208, name: 'inventory-aggregates' },
    seed: 41,
    spec: () => ({
      id: '3c4d5e6f-7a8b-4c9d-8e0f-2a3b4c5d6e73',
      name: 'inventory_by_store',
      arrival: 4_000,
      processing: { rowsPerSecPerCore: 2_000, cores: 8, overheadMs: 1_500, shufflePartitions: 200 },
      triggerMs: 30_000,
      source: { kind: 'delta', path: 's3://acme-lake/bronze/inventory_events', rowsPerFile: 20_000 },
      state: {
        operator: 'stateStoreSave',
        provider: 'rocksdb',
        watermarkMs: 2 * 3_600_000,
        newKeysPerRow: 0.05,
        updatesPerRow: 0.6,
        bytesPerRow: 400,
        initialRows: 60_000_000,
      },
      // Someone raised spark.sql.streaming.stateStore.partitions and restarted: ~24 GB of state moves.
      events: [{ type: 'restart', atBatch: 8, downtimeMs: 90_000, stateStorePartitions: 400 }],
      sink: { kind: 'delta', description: 'DeltaSink[s3://acme-lake/gold/inventory_by_store]' },
    }),
  },
  {
    key: 'payments',
    name: 'payments_silver',
    queryId: '7e6d5c4b-3a29-4f18-9e07-d6c5b4a39281',
    story: 'stalled',
    summary: 'a sink write hangs: no progress for 40 min',
    channel: 'data-alerts',
    pipeline: { pipelineId: '2f3e4d5c-6b7a-4988-b7c6-d5e4f3a2b1c0', name: 'payments-dlt' },
    seed: 53,
    spec: () => ({
      id: '7e6d5c4b-3a29-4f18-9e07-d6c5b4a39281',
      name: 'payments_silver',
      arrival: 2_500,
      processing: { rowsPerSecPerCore: 1_000, cores: 8, overheadMs: 1_200 },
      triggerMs: 15_000,
      source: { kind: 'kafka', topic: 'payments', partitions: 6 },
      events: [{ type: 'stall', atBatch: 30, durationMs: 40 * MINUTE }],
      sink: { kind: 'delta', description: 'DeltaSink[s3://acme-lake/silver/payments]' },
    }),
  },
];
