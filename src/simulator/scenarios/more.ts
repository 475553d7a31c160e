/**
 * More of the same kinds under other shapes: episodes that end, older runtimes, other sources,
 * and quiet cases that look alarming.
 */

import { rampRate, steppedRate, withBursts, withIdleGaps } from '../arrivals.js';
import type { Scenario } from '../scenario.js';
import { HOUR, MIN, SEC, STANDARD_CAPACITY, START_MS, standardCluster } from './common.js';

export const MORE: Scenario[] = [
  {
    name: 'lag-then-scale-up',
    description:
      'Uncapped 15 % overload from 20 min (30 s trigger); at batch 75 the job restarts on 16 cores with a 300,000-offset cap and drains the backlog. One episode: lag opens once and resolves.',
    spec: {
      name: 'orders_enrich',
      arrival: steppedRate(0.6 * STANDARD_CAPACITY, [{ atMs: START_MS + 20 * MIN, rowsPerSec: 1.15 * STANDARD_CAPACITY }]),
      processing: standardCluster(),
      triggerMs: 30 * SEC,
      source: { kind: 'kafka', topic: 'orders', partitions: 16 },
      events: [{ type: 'restart', atBatch: 55, downtimeMs: 2 * MIN, cores: 16, cap: 1_500_000 }],
    },
    seed: 401,
    startMs: START_MS,
    batches: 140,
    engine: {},
    expected: [
      { kind: 'lag', topCause: 'insufficient_capacity', onset: { rule: 'time-behind', changeAfterMs: 20 * MIN }, maxDelayReports: 8 },
    ],
  },
  {
    name: 'kafka-cap-too-low-dbr170',
    description:
      'DBR 17.0 (latest read at planning) with maxOffsetsPerTrigger 250,000 per 30 s (8,333 rows/s) while input rises 6,000 → 10,000 rows/s: behind-latest grows ~50,000 offsets per batch.',
    spec: {
      name: 'inventory_capped',
      arrival: steppedRate(6_000, [{ atMs: START_MS + 30 * MIN, rowsPerSec: 10_000 }]),
      processing: standardCluster(),
      triggerMs: 30 * SEC,
      source: { kind: 'kafka', topic: 'inventory', partitions: 12, maxOffsetsPerTrigger: 250_000 },
      platform: 'dbr-17.0',
    },
    seed: 402,
    startMs: START_MS,
    batches: 130,
    engine: { triggerMs: 30 * SEC },
    expected: [
      { kind: 'lag', topCause: 'rate_limit_too_low', onset: { rule: 'time-behind', changeAfterMs: 30 * MIN }, maxDelayReports: 12 },
    ],
  },
  {
    name: 'data-loss-risk-uncapped-overload',
    description:
      'Topic retention 2 h; uncapped, back-to-back, input 70 % → 110 % of capacity at 20 min: time behind grows toward retention.',
    spec: {
      name: 'metrics_short_retention',
      arrival: steppedRate(0.7 * STANDARD_CAPACITY, [{ atMs: START_MS + 20 * MIN, rowsPerSec: 1.1 * STANDARD_CAPACITY }]),
      processing: standardCluster(),
      triggerMs: 0,
      source: { kind: 'kafka', topic: 'metrics', partitions: 16 },
    },
    seed: 403,
    startMs: START_MS,
    batches: 300,
    engine: { retentionMs: 2 * HOUR },
    expected: [
      { kind: 'lag', topCause: 'insufficient_capacity', onset: { rule: 'time-behind', changeAfterMs: 20 * MIN }, maxDelayReports: 8 },
      {
        kind: 'data_loss_risk',
        topCause: 'insufficient_capacity',
        onset: { rule: 'retention-forecast', changeAfterMs: 20 * MIN },
        maxDelayReports: 40,
      },
    ],
  },
  {
    name: 'slow-repartition-small-state',
    description:
      'Repartition 200 → 100 over only 2 GB of state takes ~15 minutes (slow checkpoint storage): far longer than the state size predicts.',
    spec: {
      name: 'small_state_slow_repartition',
      arrival: 4_000,
      processing: standardCluster(),
      triggerMs: 30 * SEC,
      source: { kind: 'kafka', topic: 'profiles_v2', partitions: 16 },
      state: { initialRows: 10_000_000, newKeysPerRow: 0, updatesPerRow: 0.5, repartitionMsPerGb: 480_000 },
      events: [{ type: 'restart', atBatch: 50, downtimeMs: MIN, stateStorePartitions: 100 }],
    },
    seed: 404,
    startMs: START_MS,
    batches: 100,
    engine: {},
    expected: [{ kind: 'slow_repartition', onset: { rule: 'repartition' }, maxDelayReports: 0 }],
    tolerated: [{ kind: 'lag', reason: 'the 16-minute pause leaves a backlog that the next batches drain' }],
  },
  {
    name: 'stalled-back-to-back',
    description: 'A back-to-back query (batches every ~4 s) stops reporting while data keeps arriving; judged 15 minutes later.',
    spec: {
      name: 'realtime_scores',
      arrival: 6_000,
      processing: standardCluster(),
      triggerMs: 0,
      source: { kind: 'kafka', topic: 'scores', partitions: 16 },
      events: [{ type: 'stall', atBatch: 150, durationMs: 3 * HOUR }],
    },
    seed: 405,
    startMs: START_MS,
    batches: 150,
    engine: {},
    nowAfterLastMs: 15 * MIN,
    expected: [{ kind: 'stalled', onset: { rule: 'stall' }, maxDelayReports: 0 }],
  },
  {
    name: 'oss-burst-drains',
    description: 'Spark 3.5 back-to-back: a 30-second burst at 4× the rate lengthens a few batches, then durations return to normal.',
    spec: {
      name: 'clicks_oss',
      arrival: withBursts(() => 8_000, [{ atMs: START_MS + 15 * MIN, durationMs: 30 * SEC, extraRowsPerSec: 24_000 }]),
      processing: standardCluster(),
      triggerMs: 0,
      source: { kind: 'kafka', topic: 'clicks', partitions: 16 },
      platform: 'spark-3.5',
    },
    seed: 407,
    startMs: START_MS,
    batches: 400,
    engine: {},
    expected: [],
  },
  {
    name: 'delta-long-trigger-healthy',
    description: 'Delta → Delta with a 5-minute trigger at 50 % load, Spark 3.5 output: long, regular gaps between reports.',
    spec: {
      name: 'gold_daily_rollup',
      arrival: 3_000,
      processing: standardCluster({ rowsPerSecPerCore: 750 }),
      triggerMs: 5 * MIN,
      source: { kind: 'delta', path: 's3://acme-lake/silver/orders', rowsPerFile: 20_000, maxFilesPerTrigger: null },
      platform: 'spark-3.5',
    },
    seed: 408,
    startMs: START_MS,
    batches: 150,
    engine: {},
    expected: [],
  },
  {
    name: 'stateful-idle-periods',
    description:
      'Spark 3.5 windowed aggregation (10-minute watermark) with two 25-minute gaps in its input: after each gap starts, one no-data micro-batch evicts expired state (batchId advances with 0 rows), then no-data events every 10 s; state drains and refills.',
    spec: {
      name: 'kiosk_10min_counts',
      arrival: withIdleGaps(() => 2_500, [
        { atMs: START_MS + 40 * MIN, durationMs: 25 * MIN },
        { atMs: START_MS + 100 * MIN, durationMs: 25 * MIN },
      ]),
      processing: standardCluster(),
      triggerMs: 15 * SEC,
      source: { kind: 'kafka', topic: 'kiosk_events', partitions: 8 },
      state: { watermarkMs: 10 * MIN, newKeysPerRow: 0.1, initialRows: 1_500_000 },
      platform: 'spark-3.5',
    },
    seed: 409,
    startMs: START_MS,
    batches: 700,
    engine: {},
    expected: [],
  },
  {
    name: 'join-one-side-capped',
    description:
      'Stream-stream join of impressions (uncapped, 9,000 rows/s) and clicks (maxOffsetsPerTrigger 60,000 per 30 s = 2,000 rows/s); clicks rise 1,000 → 3,000 rows/s at 20 min. Only the clicks source falls behind, by 30,000 offsets per batch, while batches take ~18 s of the 30 s trigger.',
    spec: {
      name: 'ad_attribution',
      arrival: 9_000,
      source: { kind: 'kafka', topic: 'impressions', partitions: 8 },
      extraSources: [
        {
          source: { kind: 'kafka', topic: 'clicks', partitions: 4, maxOffsetsPerTrigger: 60_000 },
          arrival: steppedRate(1_000, [{ atMs: START_MS + 20 * MIN, rowsPerSec: 3_000 }]),
        },
      ],
      processing: standardCluster(),
      triggerMs: 30 * SEC,
      state: { operator: 'symmetricHashJoin', watermarkMs: 15 * MIN, newKeysPerRow: 0.5, updatesPerRow: 0 },
    },
    seed: 410,
    startMs: START_MS,
    batches: 110,
    engine: {},
    expected: [
      { kind: 'lag', topCause: 'rate_limit_too_low', onset: { rule: 'time-behind', changeAfterMs: 20 * MIN }, maxDelayReports: 12 },
    ],
  },
  {
    name: 'union-two-topics-healthy',
    description: 'A union of two topics (6,000 and 2,000 rows/s), DBR 17.0, 30 s trigger: two sources, both keeping up.',
    spec: {
      name: 'all_orders',
      arrival: 6_000,
      source: { kind: 'kafka', topic: 'orders_eu', partitions: 8 },
      extraSources: [{ source: { kind: 'kafka', topic: 'orders_us', partitions: 8 }, arrival: 2_000 }],
      processing: standardCluster(),
      triggerMs: 30 * SEC,
      platform: 'dbr-17.0',
    },
    seed: 411,
    startMs: START_MS,
    batches: 200,
    engine: {},
    expected: [],
  },
  {
    name: 'slow-ramp-past-capacity',
    description:
      'Input ramps linearly from 50 % to 115 % of capacity over 3 hours (60 s trigger): no step, no burst; the query crosses its capacity at ~2 h 20 min and then loses a little more ground every batch.',
    spec: {
      name: 'growth_ramp',
      arrival: rampRate(0.5 * STANDARD_CAPACITY, 1.15 * STANDARD_CAPACITY, START_MS, START_MS + 3 * HOUR),
      processing: standardCluster(),
      triggerMs: 60 * SEC,
      source: { kind: 'kafka', topic: 'signups', partitions: 16 },
    },
    seed: 412,
    startMs: START_MS,
    batches: 175,
    engine: {},
    expected: [
      { kind: 'lag', topCause: 'insufficient_capacity', onset: { rule: 'overload' }, maxDelayReports: 15 },
    ],
  },
  {
    name: 'delta-uncapped-overload',
    description:
      'Delta source with maxFilesPerTrigger unset (null: no cap), back-to-back, input 70 % → 115 % of capacity at 20 min: every batch reads all files, so numFilesOutstanding stays 0 and the lag shows only in growing batch durations.',
    spec: {
      name: 'silver_sessions',
      arrival: steppedRate(0.7 * STANDARD_CAPACITY, [{ atMs: START_MS + 20 * MIN, rowsPerSec: 1.15 * STANDARD_CAPACITY }]),
      processing: standardCluster(),
      triggerMs: 0,
      source: { kind: 'delta', path: 's3://acme-lake/bronze/sessions', rowsPerFile: 2_000, maxFilesPerTrigger: null },
      platform: 'dbr-17.1',
    },
    seed: 413,
    startMs: START_MS,
    batches: 275,
    engine: {},
    expected: [
      { kind: 'lag', topCause: 'insufficient_capacity', onset: { rule: 'time-behind', changeAfterMs: 20 * MIN }, maxDelayReports: 8 },
    ],
  },
  {
    name: 'periodic-gc-pauses',
    description: 'A 45 s GC pause every 25 batches on a 30 s trigger at 40 % load: regular slow batches, each absorbed by the next.',
    spec: {
      name: 'enrichment_jvm',
      arrival: 8_000,
      processing: standardCluster(),
      triggerMs: 30 * SEC,
      source: { kind: 'kafka', topic: 'enrich', partitions: 16 },
      events: Array.from({ length: 8 }, (_, i) => ({ type: 'gc' as const, atBatch: 20 + 25 * i, pauseMs: 45 * SEC })),
    },
    seed: 414,
    startMs: START_MS,
    batches: 220,
    engine: {},
    expected: [],
  },
];
