/** What each runtime prints differently: `batchDuration`, Databricks-only keys, Kafka backlog semantics, rate rounding. */

import type { Platform } from './spec.js';

export interface PlatformTraits {
  batchDuration: boolean;
  databricks: boolean;
  latestAfterBatch: boolean;
  roundRates: boolean;
  /** Sources print `latestOffset` and `metrics` (Spark 3.1+). */
  sourceBacklogKeys: boolean;
  /** State operators print only the Spark 3.0 keys (numRowsTotal, numRowsUpdated, memoryUsedBytes, customMetrics). */
  legacyStateOperators: boolean;
}

const MODERN = { sourceBacklogKeys: true, legacyStateOperators: false };

export const PLATFORMS: Record<Platform, PlatformTraits> = {
  'dbr-17.1': { batchDuration: true, databricks: true, latestAfterBatch: true, roundRates: false, ...MODERN },
  'dbr-17.0': { batchDuration: true, databricks: true, latestAfterBatch: false, roundRates: false, ...MODERN },
  'spark-3.5': { batchDuration: false, databricks: false, latestAfterBatch: false, roundRates: false, ...MODERN },
  'spark-4.0': { batchDuration: true, databricks: false, latestAfterBatch: false, roundRates: true, ...MODERN },
  'spark-3.0': {
    batchDuration: false,
    databricks: false,
    latestAfterBatch: false,
    roundRates: false,
    sourceBacklogKeys: false,
    legacyStateOperators: true,
  },
};
