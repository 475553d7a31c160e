/**
 * Realistic incidents as the engine reports them (numbers from a Kafka → Delta stream falling behind
 * on a 30 s trigger, a stateful dedupe growing state, a stream that stopped reporting).
 */
import type { Incident } from '../../../src/diagnosis/types.js';
import type { IncidentRecordView, StreamView } from '../../../src/slack/render/types.js';

export const NOW = Date.parse('2026-11-29T09:00:00Z');

export const LAG_INCIDENT: Incident = {
  kind: 'lag',
  severity: 'critical',
  openedAtBatchId: 18423,
  openedAt: '2026-11-29T08:12:30.000Z',
  resolvedAtBatchId: null,
  resolvedAt: null,
  summary: 'orders-enrich is 14m 20s behind and falling further behind by 38s every minute',
  causes: [
    {
      code: 'insufficient_capacity',
      confidence: 0.82,
      evidence: 'processing 41.2K rows/s against 58.7K rows/s arriving; batches take 47.8s on a 30s trigger with all 32 cores busy',
    },
    { code: 'kafka_partition_bound', confidence: 0.41, evidence: '24 Kafka partitions feed 32 cores: 8 cores idle in every batch' },
    { code: 'slow_sink', confidence: 0.12, evidence: 'addBatch is 71% of the batch (34.0s of 47.8s)' },
    { code: 'oversized_batches', confidence: 0.08, evidence: 'batches of 1.97M rows' },
  ],
  advice: [
    {
      text: 'Cap each batch so it finishes inside the 30s trigger: at 41.2K rows/s that is about 1.1M offsets per batch',
      setting: 'maxOffsetsPerTrigger',
      value: '1100000',
    },
    { text: 'Add cores: the stream needs about 46 cores to keep up with 58.7K rows/s', setting: 'spark.executor.instances', value: '12' },
    { text: 'Increase the Kafka topic to 48 partitions so every core gets work', setting: 'minPartitions', value: '48' },
  ],
  metrics: {
    timeBehindSec: 860,
    timeBehindTrendSecPerMin: 38,
    drainEtaSec: null,
    backlog: 50_450_000,
    backlogUnit: 'offsets',
    arrivalRate: 58_700,
    processingRate: 41_200,
    batchDurationMs: 47_800,
    triggerIntervalMs: 30_000,
    stateRows: 0,
    breachAt: '2026-11-29T21:40:00.000Z',
  },
};

export const STATE_INCIDENT: Incident = {
  kind: 'state_growth',
  severity: 'warning',
  openedAtBatchId: 5120,
  openedAt: '2026-11-29T03:05:00.000Z',
  resolvedAtBatchId: null,
  resolvedAt: null,
  summary: 'payments-dedupe state grew from 12.1M to 48.9M rows in 6 h and is still growing',
  causes: [
    { code: 'unbounded_state', confidence: 0.9, evidence: 'dropDuplicates keeps 48.9M rows; no rows removed in 720 batches; no watermark set' },
    { code: 'state_store_memory', confidence: 0.35, evidence: 'state store uses 11.4 GiB' },
  ],
  advice: [
    { text: 'Add a watermark so old keys can be dropped', setting: 'withWatermark', value: '"eventTime", "2 hours"' },
    { text: 'Use dropDuplicatesWithinWatermark instead of dropDuplicates' },
  ],
  metrics: { stateRows: 48_900_000, stateBytes: 12_240_000_000, batchDurationMs: 8_400, triggerIntervalMs: 60_000 },
};

export function lagRecord(overrides: Partial<IncidentRecordView> = {}): IncidentRecordView {
  return {
    id: 'a1b2c3d4-orders.lag.1795940000000',
    queryId: 'a1b2c3d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
    queryName: 'orders-enrich',
    kind: 'lag',
    state: 'open',
    incident: LAG_INCIDENT,
    acknowledgedBy: null,
    acknowledgedAt: null,
    openedAt: Date.parse(LAG_INCIDENT.openedAt),
    resolvedAt: null,
    groupId: null,
    ...overrides,
  };
}

export function stateRecord(overrides: Partial<IncidentRecordView> = {}): IncidentRecordView {
  return {
    id: '9f8e7d6c-payments.state_growth.1795921500000',
    queryId: '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a',
    queryName: 'payments-dedupe',
    kind: 'state_growth',
    state: 'open',
    incident: STATE_INCIDENT,
    openedAt: Date.parse(STATE_INCIDENT.openedAt),
    ...overrides,
  };
}

export function streams(): StreamView[] {
  return [
    { queryId: '1111aaaa-0000-4000-8000-000000000001', name: 'clickstream-sessionize', health: 'ok', timeBehindSec: 4, batchDurationMs: 6_100, triggerMs: 30_000, stateRows: 2_400_000, lastProgressAt: NOW - 20_000 },
    { queryId: 'a1b2c3d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d', name: 'orders-enrich', health: 'critical', timeBehindSec: 860, batchDurationMs: 47_800, triggerMs: 30_000, stateRows: 0, lastProgressAt: NOW - 31_000, openIncidents: 1, runPageUrl: 'https://adb-1234567890123456.7.azuredatabricks.net/jobs/812/runs/99120' },
    { queryId: '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a', name: 'payments-dedupe', health: 'warning', timeBehindSec: 12, batchDurationMs: 8_400, triggerMs: 60_000, stateRows: 48_900_000, lastProgressAt: NOW - 50_000, openIncidents: 1 },
  ];
}
