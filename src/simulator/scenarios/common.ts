/** Shared building blocks of the scenario corpus: time units, a start time, typical clusters. */

import { DEFAULT_START_MS, type ProcessingSpec } from '../spec.js';

export const SEC = 1_000;
export const MIN = 60_000;
export const HOUR = 3_600_000;
export const START_MS = DEFAULT_START_MS;

/**
 * 8 cores at 2,500 rows/s each: 20,000 rows/s when every core is busy (a 16-partition topic and 200
 * shuffle partitions never limit it), 1.2 s of fixed work per batch.
 */
export function standardCluster(overrides: Partial<ProcessingSpec> = {}): ProcessingSpec {
  return { rowsPerSecPerCore: 2_500, cores: 8, overheadMs: 1_200, ...overrides };
}

/** Full-cluster throughput of `standardCluster()` with a stateless plan, rows/s. */
export const STANDARD_CAPACITY = 20_000;
