/**
 * State growth, repartitions, stalls and retention: the kinds besides `lag`.
 */

import { steppedRate } from '../arrivals.js';
import type { Scenario } from '../scenario.js';
import { HOUR, MIN, SEC, START_MS, standardCluster } from './common.js';

export const STATE_AND_MORE: Scenario[] = [
  {
    name: 'unbounded-state-no-watermark',
    description:
      'Aggregation over ever-new keys with no watermark on RocksDB: numRowsTotal grows ~90,000 per batch with no removals; throughput is still fine.',
    spec: {
      name: 'user_lifetime_counts',
      arrival: 5_000,
      processing: standardCluster(),
      triggerMs: 60 * SEC,
      source: { kind: 'kafka', topic: 'user_events', partitions: 16 },
      state: { operator: 'stateStoreSave', watermarkMs: null, newKeysPerRow: 0.3, initialRows: 3_000_000 },
    },
    seed: 301,
    startMs: START_MS,
    batches: 200,
    engine: {},
    expected: [{ kind: 'state_growth', topCause: 'unbounded_state', onset: { rule: 'first-data' }, maxDelayReports: 60 }],
  },
  {
    name: 'dedupe-no-watermark',
    description: 'dropDuplicates on an id with no watermark: every new id stays in state forever.',
    spec: {
      name: 'dedupe_orders',
      arrival: 3_000,
      processing: standardCluster(),
      triggerMs: 30 * SEC,
      source: { kind: 'kafka', topic: 'orders_raw', partitions: 16 },
      state: { operator: 'dedupe', watermarkMs: null, newKeysPerRow: 0.95, updatesPerRow: 0, initialRows: 8_000_000 },
    },
    seed: 302,
    startMs: START_MS,
    batches: 200,
    engine: {},
    expected: [{ kind: 'state_growth', topCause: 'unbounded_state', onset: { rule: 'first-data' }, maxDelayReports: 60 }],
  },
  {
    name: 'unbounded-state-hdfs',
    description:
      'Spark 3.5, no watermark on the default in-memory (HDFS-backed) provider with ~1.2 KB keys: the heap state grows ~130 MB per batch with no removals; batches still fit the 60 s trigger.',
    spec: {
      name: 'session_state_legacy',
      arrival: 6_000,
      processing: standardCluster(),
      triggerMs: 60 * SEC,
      source: { kind: 'kafka', topic: 'sessions', partitions: 16 },
      state: {
        provider: 'hdfs',
        watermarkMs: null,
        newKeysPerRow: 0.3,
        bytesPerRow: 1_200,
        initialRows: 4_000_000,
        gcMsPerGb: 4_000,
      },
      platform: 'spark-3.5',
    },
    seed: 303,
    startMs: START_MS,
    batches: 44,
    engine: {},
    expected: [{ kind: 'state_growth', topCause: 'unbounded_state', onset: { rule: 'first-data' }, maxDelayReports: 30 }],
  },
  {
    name: 'state-store-memory-hdfs',
    description:
      'Windowed aggregation with a 2 h watermark holding ~8 GB of state on the in-memory (HDFS-backed) provider (~13 GB of heap): GC work grows with the live heap, so each row costs 2.3× its compute. Input rises 6,000 → 9,700 rows/s at 30 min (same key rate) and the query falls behind, its time going to GC.',
    spec: {
      name: 'store_hourly_legacy',
      arrival: steppedRate(6_000, [{ atMs: START_MS + 30 * MIN, rowsPerSec: 9_700 }]),
      processing: standardCluster(),
      triggerMs: 60 * SEC,
      source: { kind: 'kafka', topic: 'store_sales', partitions: 16 },
      state: {
        provider: 'hdfs',
        watermarkMs: 2 * HOUR,
        newKeysPerRow: 0.2,
        bytesPerRow: 1_000,
        initialRows: 8_640_000,
        gcMsPerGb: 1_000,
        gcMsPerGbPerMillionRows: 8_100,
      },
      events: [{ type: 'change', atBatch: 30, stateNewKeysPerRow: 0.124 }],
      platform: 'dbr-17.1',
    },
    seed: 307,
    startMs: START_MS,
    batches: 45,
    engine: {},
    expected: [
      { kind: 'lag', topCause: 'state_store_memory', onset: { rule: 'time-behind', changeAfterMs: 30 * MIN }, maxDelayReports: 10 },
    ],
  },
  {
    name: 'slow-repartition-large-state',
    description:
      'Restart with spark.sql.streaming.stateStore.partitions 200 → 400 over 56 GiB of RocksDB state (a fixed key set): controlBatch.REPARTITION takes ~28 minutes.',
    spec: {
      name: 'device_latest_state',
      arrival: 8_000,
      processing: standardCluster({ cores: 32 }),
      triggerMs: 30 * SEC,
      source: { kind: 'kafka', topic: 'device_updates', partitions: 64 },
      state: { initialRows: 200_000_000, bytesPerRow: 300, newKeysPerRow: 0, updatesPerRow: 0.6, msPerMillionRows: 5 },
      events: [{ type: 'restart', atBatch: 40, downtimeMs: MIN, stateStorePartitions: 400 }],
    },
    seed: 304,
    startMs: START_MS,
    batches: 100,
    engine: {},
    expected: [
      { kind: 'slow_repartition', topCause: 'large_state_repartition', onset: { rule: 'repartition' }, maxDelayReports: 0 },
    ],
    tolerated: [
      {
        kind: 'lag',
        reason:
          'the 30-minute pause piles up ~15 M offsets; they drain in 2–3 batches, but a lag episode opened on the catch-up batch is defensible',
      },
    ],
  },
  {
    name: 'stalled-query',
    description:
      'Healthy 30 s batches until batch 80 hangs (a stuck task): no progress for 20 minutes while 8,000 rows/s keep arriving. Judged at now = last report + 20 min.',
    spec: {
      name: 'order_events',
      arrival: 8_000,
      processing: standardCluster(),
      triggerMs: 30 * SEC,
      source: { kind: 'kafka', topic: 'order_events', partitions: 16 },
      events: [{ type: 'stall', atBatch: 80, durationMs: 6 * HOUR }],
    },
    seed: 305,
    startMs: START_MS,
    batches: 80,
    engine: {},
    nowAfterLastMs: 20 * MIN,
    expected: [{ kind: 'stalled', onset: { rule: 'stall' }, maxDelayReports: 0 }],
  },
  {
    name: 'data-loss-risk-short-retention',
    description:
      'Topic retention 6 h; maxOffsetsPerTrigger 120,000 per 60 s admits 2,000 rows/s while input rises 1,500 → 8,000 rows/s at 30 min: time behind grows 0.75 s per second and reaches retention about 8 h after the change.',
    spec: {
      name: 'clickstream_archive',
      arrival: steppedRate(1_500, [{ atMs: START_MS + 30 * MIN, rowsPerSec: 8_000 }]),
      processing: standardCluster(),
      triggerMs: 60 * SEC,
      source: { kind: 'kafka', topic: 'clicks_archive', partitions: 16, maxOffsetsPerTrigger: 120_000 },
    },
    seed: 306,
    startMs: START_MS,
    batches: 240,
    engine: { retentionMs: 6 * HOUR },
    expected: [
      { kind: 'lag', topCause: 'rate_limit_too_low', onset: { rule: 'time-behind', changeAfterMs: 30 * MIN }, maxDelayReports: 12 },
      {
        kind: 'data_loss_risk',
        topCause: 'rate_limit_too_low',
        onset: { rule: 'retention-forecast', changeAfterMs: 30 * MIN },
        maxDelayReports: 60,
      },
    ],
  },
];
