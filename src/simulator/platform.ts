/** What each runtime prints differently: `batchDuration`, Databricks-only keys, Kafka backlog semantics, rate rounding. */

import type { Platform } from './spec.js';

export interface PlatformTraits {
  batchDuration: boolean;
  databricks: boolean;
  latestAfterBatch: boolean;
  roundRates: boolean;
}

export const PLATFORMS: Record<Platform, PlatformTraits> = {
  'dbr-17.1': { batchDuration: true, databricks: true, latestAfterBatch: true, roundRates: false },
  'dbr-17.0': { batchDuration: true, databricks: true, latestAfterBatch: false, roundRates: false },
  'spark-3.5': { batchDuration: false, databricks: false, latestAfterBatch: false, roundRates: false },
  'spark-4.0': { batchDuration: true, databricks: false, latestAfterBatch: false, roundRates: true },
};
