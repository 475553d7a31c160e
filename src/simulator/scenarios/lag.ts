/**
 * Streams that lose ground, one per cause of `lag`. Each starts healthy and changes at a known time
 * or batch, so the onset is resolved from the truth (rule `time-behind` unless stated).
 */

import { steppedRate } from '../arrivals.js';
import type { Scenario } from '../scenario.js';
import { HOUR, MIN, SEC, STANDARD_CAPACITY, START_MS, standardCluster } from './common.js';

export const LAG: Scenario[] = [
  {
    name: 'oss-kafka-overload-12pct',
    description:
      'Spark 3.5, 10 s trigger, load 75 % → 112 % of capacity at 20 min. Behind-latest reads 0 (latest fetched at planning, uncapped), so the lag lives inside the batches: they overrun the trigger and grow ~12 % per batch.',
    spec: {
      name: 'clickstream_oss',
      arrival: steppedRate(0.75 * STANDARD_CAPACITY, [{ atMs: START_MS + 20 * MIN, rowsPerSec: 1.12 * STANDARD_CAPACITY }]),
      processing: standardCluster(),
      triggerMs: 10 * SEC,
      source: { kind: 'kafka', topic: 'clickstream', partitions: 16 },
      platform: 'spark-3.5',
    },
    seed: 201,
    startMs: START_MS,
    batches: 150,
    engine: { triggerMs: 10 * SEC },
    expected: [
      { kind: 'lag', topCause: 'insufficient_capacity', onset: { rule: 'time-behind', changeAfterMs: 20 * MIN }, maxDelayReports: 8 },
    ],
  },
  {
    name: 'kafka-uncapped-overload-12pct',
    description:
      'DBR 17.1, 60 s trigger, uncapped, load 80 % → 112 % of capacity at 60 min: batches overrun the trigger, grow geometrically, and offsets behind latest climb.',
    spec: {
      name: 'orders_5min_agg',
      arrival: steppedRate(0.8 * STANDARD_CAPACITY, [{ atMs: START_MS + HOUR, rowsPerSec: 1.12 * STANDARD_CAPACITY }]),
      processing: standardCluster(),
      triggerMs: 60 * SEC,
      source: { kind: 'kafka', topic: 'orders', partitions: 16 },
      platform: 'dbr-17.1',
    },
    seed: 202,
    startMs: START_MS,
    batches: 90,
    engine: {},
    expected: [
      { kind: 'lag', topCause: 'insufficient_capacity', onset: { rule: 'time-behind', changeAfterMs: HOUR }, maxDelayReports: 8 },
    ],
  },
  {
    name: 'kafka-cap-too-low',
    description:
      'maxOffsetsPerTrigger 400,000 with a 60 s trigger admits 6,667 rows/s; input rises 5,000 → 8,000 rows/s at 30 min. Every batch reads exactly the cap and finishes in ~22 s, input and processed rates look fine, the backlog grows by 80,000 offsets per batch.',
    spec: {
      name: 'payments_capped',
      arrival: steppedRate(5_000, [{ atMs: START_MS + 30 * MIN, rowsPerSec: 8_000 }]),
      processing: standardCluster(),
      triggerMs: 60 * SEC,
      source: { kind: 'kafka', topic: 'payments', partitions: 16, maxOffsetsPerTrigger: 400_000 },
    },
    seed: 203,
    startMs: START_MS,
    batches: 120,
    engine: {},
    expected: [
      { kind: 'lag', topCause: 'rate_limit_too_low', onset: { rule: 'time-behind', changeAfterMs: 30 * MIN }, maxDelayReports: 12 },
    ],
  },
  {
    name: 'catch-up-after-outage-uncapped',
    description:
      'Restart after a 3-hour outage with no maxOffsetsPerTrigger: the first batch reads ~90 M offsets and runs ~77 minutes, then batches shrink by λ/μ = 0.4 each.',
    spec: {
      name: 'audit_log',
      arrival: 8_000,
      processing: standardCluster(),
      triggerMs: 30 * SEC,
      source: { kind: 'kafka', topic: 'audit', partitions: 16 },
      events: [{ type: 'restart', atBatch: 40, downtimeMs: 3 * HOUR }],
    },
    seed: 204,
    startMs: START_MS,
    batches: 100,
    engine: {},
    expected: [
      { kind: 'lag', topCause: 'oversized_batches', onset: { rule: 'first-of-run', batchId: 40 }, maxDelayReports: 2 },
    ],
  },
  {
    name: 'kafka-partition-bound',
    description:
      'A 4-partition topic on 16 cores, stateless: only 4 tasks read, so capacity is 10,000 rows/s; input rises 6,000 → 11,200 rows/s at 30 min.',
    spec: {
      name: 'sensor_ingest',
      arrival: steppedRate(6_000, [{ atMs: START_MS + 30 * MIN, rowsPerSec: 11_200 }]),
      processing: standardCluster({ cores: 16 }),
      triggerMs: 30 * SEC,
      source: { kind: 'kafka', topic: 'sensors', partitions: 4 },
    },
    seed: 205,
    startMs: START_MS,
    batches: 95,
    engine: { cores: 16 },
    expected: [
      { kind: 'lag', topCause: 'kafka_partition_bound', onset: { rule: 'time-behind', changeAfterMs: 30 * MIN }, maxDelayReports: 10 },
    ],
  },
  {
    name: 'too-few-shuffle-partitions',
    description:
      'Stateful aggregation with 4 shuffle partitions on 16 cores (32 Kafka partitions): the post-shuffle stage runs 4 tasks, capacity 16,000 rows/s; input rises 9,000 → 17,000 rows/s at 30 min.',
    spec: {
      name: 'merchant_totals',
      arrival: steppedRate(9_000, [{ atMs: START_MS + 30 * MIN, rowsPerSec: 17_000 }]),
      processing: standardCluster({ cores: 16, shufflePartitions: 4 }),
      triggerMs: 30 * SEC,
      source: { kind: 'kafka', topic: 'transactions', partitions: 32 },
      state: { watermarkMs: 10 * MIN, newKeysPerRow: 0.05, initialRows: 500_000 },
    },
    seed: 206,
    startMs: START_MS,
    batches: 95,
    engine: { cores: 16 },
    expected: [
      { kind: 'lag', topCause: 'too_few_shuffle_partitions', onset: { rule: 'time-behind', changeAfterMs: 30 * MIN }, maxDelayReports: 10 },
    ],
  },
  {
    name: 'autoloader-files-backlog',
    description:
      'Auto Loader, maxFilesPerTrigger 20 of 5,000-row files, 30 s trigger (3,333 rows/s admitted); input rises 2,500 → 4,500 rows/s at 30 min: numFilesOutstanding grows ~7 files per batch while batches finish in seconds.',
    spec: {
      name: 'landing_events',
      arrival: steppedRate(2_500, [{ atMs: START_MS + 30 * MIN, rowsPerSec: 4_500 }]),
      processing: standardCluster(),
      triggerMs: 30 * SEC,
      source: { kind: 'autoloader', path: 's3://acme-landing/events/', maxFilesPerTrigger: 20, rowsPerFile: 5_000 },
    },
    seed: 207,
    startMs: START_MS,
    batches: 150,
    engine: {},
    expected: [
      { kind: 'lag', topCause: 'rate_limit_too_low', onset: { rule: 'time-behind', changeAfterMs: 30 * MIN }, maxDelayReports: 12 },
    ],
  },
  {
    name: 'delta-files-backlog',
    description:
      'Delta source of small files (50 rows each) at the default maxFilesPerTrigger 1000 with a 30 s trigger (1,667 rows/s admitted); input doubles 1,000 → 2,000 rows/s at 30 min: ~200 files more outstanding every batch.',
    spec: {
      name: 'silver_from_bronze',
      arrival: steppedRate(1_000, [{ atMs: START_MS + 30 * MIN, rowsPerSec: 2_000 }]),
      processing: standardCluster(),
      triggerMs: 30 * SEC,
      source: { kind: 'delta', path: 's3://acme-lake/bronze/clicks', rowsPerFile: 50, bytesPerFile: 96_000 },
    },
    seed: 208,
    startMs: START_MS,
    batches: 120,
    engine: {},
    expected: [
      { kind: 'lag', topCause: 'rate_limit_too_low', onset: { rule: 'time-behind', changeAfterMs: 30 * MIN }, maxDelayReports: 12 },
    ],
  },
  {
    name: 'slow-state-commit',
    description:
      'Windowed aggregation on RocksDB; from batch 40 state commits slow down (throttled checkpoint storage) to 0.18 ms per updated key (capacity ~7,100 rows/s, 12 % under the input): commitTimeMs dominates the batch and the query falls behind.',
    spec: {
      name: 'fraud_features',
      arrival: 8_000,
      processing: standardCluster(),
      triggerMs: 30 * SEC,
      source: { kind: 'kafka', topic: 'card_swipes', partitions: 16 },
      state: { watermarkMs: 10 * MIN, newKeysPerRow: 0.2, updatesPerRow: 0.3, initialRows: 1_000_000 },
      events: [{ type: 'change', atBatch: 40, stateCommitMsPerMillionUpdated: 180_000 }],
    },
    seed: 209,
    startMs: START_MS,
    batches: 75,
    engine: {},
    expected: [
      { kind: 'lag', topCause: 'slow_state_commit', onset: { rule: 'time-behind', changeAtBatch: 40 }, maxDelayReports: 10 },
    ],
  },
  {
    name: 'slow-sink',
    description:
      'Stateless Kafka → Delta; from batch 40 the sink writes only 11,000 rows/s (capacity falls to ~7,100 rows/s, 13 % under the input): commitBatch and addBatch are dominated by the sink write and the query falls behind.',
    spec: {
      name: 'events_to_delta',
      arrival: 8_000,
      processing: standardCluster(),
      triggerMs: 30 * SEC,
      source: { kind: 'kafka', topic: 'events', partitions: 16 },
      sink: { kind: 'delta', description: 'DeltaSink[s3://acme-lake/silver/events]' },
      events: [{ type: 'change', atBatch: 40, sinkWriteRowsPerSec: 11_000 }],
    },
    seed: 210,
    startMs: START_MS,
    batches: 75,
    engine: {},
    expected: [
      { kind: 'lag', topCause: 'slow_sink', onset: { rule: 'time-behind', changeAtBatch: 40 }, maxDelayReports: 10 },
    ],
  },
];
