/**
 * Normalized Progress shaped like a Kafka → Delta query on Databricks with one stateful
 * aggregation (field values as Spark prints them).
 */
import type { Incident } from '../../src/diagnosis/types.js';
import type { Progress } from '../../src/progress/types.js';

export function kafkaProgress(queryId: string, batchId: number, startMs: number, overrides: Partial<Progress> = {}): Progress {
  const timestampMs = startMs + batchId * 10_000;
  const ts = new Date(timestampMs).toISOString();
  const rows = 48_000 + (batchId % 7) * 1_000;
  return {
    id: queryId,
    runId: 'a1b2c3d4-0000-4000-8000-00000000run1',
    name: 'orders_enrichment',
    timestampMs,
    timestamp: ts,
    batchId,
    batchDurationMs: 8_200,
    numInputRows: rows,
    inputRowsPerSecond: rows / 10,
    processedRowsPerSecond: rows / 8.2,
    durationMs: { addBatch: 7_310, getBatch: 12, latestOffset: 35, queryPlanning: 140, triggerExecution: 8_200, walCommit: 310 },
    eventTime: { max: ts, min: ts, avg: ts, watermark: new Date(timestampMs - 600_000).toISOString() },
    stateOperators: [
      {
        operatorName: 'stateStoreSave',
        numRowsTotal: 1_250_000 + batchId * 100,
        numRowsUpdated: 9_800,
        numRowsRemoved: 120,
        commitTimeMs: 410,
        memoryUsedBytes: 312_000_000,
        numRowsDroppedByWatermark: 0,
        numShufflePartitions: 200,
        numStateStoreInstances: 200,
        customMetrics: { rocksdbBytesCopied: 1_020_400, rocksdbCommitFlushLatency: 88, rocksdbSstFileSize: 204_800_000 },
      },
    ],
    sources: [
      {
        description: 'KafkaV2[Subscribe[orders]]',
        kind: 'kafka',
        numInputRows: rows,
        inputRowsPerSecond: rows / 10,
        processedRowsPerSecond: rows / 8.2,
        startOffset: { orders: { '0': 1_000_000 + batchId * 16_000, '1': 998_000 + batchId * 16_000, '2': 1_003_000 + batchId * 16_000 } },
        endOffset: { orders: { '0': 1_016_000 + batchId * 16_000, '1': 1_014_000 + batchId * 16_000, '2': 1_019_000 + batchId * 16_000 } },
        latestOffset: { orders: { '0': 1_050_000 + batchId * 16_000, '1': 1_048_000 + batchId * 16_000, '2': 1_053_000 + batchId * 16_000 } },
        metrics: { avgOffsetsBehindLatest: 34_000, maxOffsetsBehindLatest: 34_000, minOffsetsBehindLatest: 34_000, estimatedTotalBytesBehindLatest: 329_881_600 },
      },
    ],
    sink: { description: 'DeltaSink[s3://lake/orders_enriched]', numOutputRows: rows },
    ...overrides,
  };
}

export function lagIncident(openedAt: string, overrides: Partial<Incident> = {}): Incident {
  return {
    kind: 'lag',
    severity: 'warning',
    openedAtBatchId: 41,
    openedAt,
    resolvedAtBatchId: null,
    resolvedAt: null,
    summary: 'orders_enrichment is 6 min behind and falling further behind by 40 s per minute',
    causes: [{ code: 'insufficient_capacity', confidence: 0.8, evidence: 'batches take 14.2 s for a 10 s trigger' }],
    advice: [{ text: 'Cap each batch so it fits the trigger', setting: 'maxOffsetsPerTrigger', value: '180000' }],
    metrics: { timeBehindSec: 360, timeBehindTrendSecPerMin: 40, batchDurationMs: 14_200, triggerIntervalMs: 10_000 },
    ...overrides,
  };
}

/** A tracker state of roughly `bytes` serialized size (the engine bounds its own at 24 KB). */
export function bulkyTrackerState(bytes: number): unknown {
  const window: number[][] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const row = [i, 1_700_000_000_000 + i * 10_000, 8_200 + (i % 13) * 17, 48_000 + i, 34_000 + i * 3, 1_250_000 + i * 100];
    window.push(row);
    size += JSON.stringify(row).length + 1;
  }
  return { version: 1, queryId: 'q', window };
}
