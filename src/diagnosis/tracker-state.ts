/**
 * The serialized state of a `QueryTracker`: what the worker stores in Redis per query between
 * detect jobs. JSON-safe and bounded (a fixed ring of features, a few incidents): ≤ 24 KB.
 */
import { StreamDoctorError } from '../util/errors.js';
import type { Disruption } from './aftermath.js';
import type { CapBound } from './cap-binding.js';
import type { QueryFacts } from './batch-features.js';
import type { SerializedFeatures } from './feature-ring.js';
import type { WatermarkWatch } from './detectors/detector.js';
import type { Incident, IncidentKind } from './types.js';

export const TRACKER_STATE_VERSION = 1;
export const TRACKER_STATE_MAX_BYTES = 24 * 1024;

export interface OpenIncidentState {
  incident: Incident;
  /** Detector memory while open (e.g. the level before the episode). */
  memo: Record<string, number>;
  /** Consecutive batches judged back to normal. */
  clearStreak: number;
  /** Batch end of the first of those clear batches, epoch ms (the hold period runs from it). */
  clearSinceMs?: number;
}

/** What a recently resolved incident leaves behind so a relapse can re-open it. */
export interface CoolingIncidentState {
  resolvedAtMs: number;
  /** The tracker's batch count at the resolution; absent in states saved before it was kept. */
  resolvedAtBatch?: number;
  memo: Record<string, number>;
}

export interface TrackerState {
  v: typeof TRACKER_STATE_VERSION;
  id: string;
  name: string | null;
  ring: SerializedFeatures[];
  facts: QueryFacts | null;
  runId: string | null;
  /** End of the latest report of any kind (idle reports included), epoch ms. */
  lastSeenMs: number | null;
  batches: number;
  open: Partial<Record<IncidentKind, OpenIncidentState>>;
  /** Resolved incidents, oldest first, bounded. */
  resolved: Incident[];
  watermark?: WatermarkWatch;
  /** Input rows of the latest report of any kind. */
  lastReportRows?: number;
  /** Most rows any batch of the current run but its first read (absent in older states: taken from the ring). */
  runMaxRows?: number;
  /** Batches in a row that read data with Kafka's latest offsets at their end, up to 3 (query-tracker.ts). */
  planningZeros?: number;
  /** Incidents resolved within the relapse cool-down, by kind (their records are in `resolved`). */
  cooling?: Partial<Record<IncidentKind, CoolingIncidentState>>;
  /** The newest stall or restart after downtime while its catch-up may be under way. */
  disruption?: Disruption | null;
  /** A Kafka cap binding with no backlog figure, while it lasts (cap-binding.ts). */
  capBound?: CapBound | null;
}

export class TrackerStateError extends StreamDoctorError {
  constructor(message: string) {
    super('streamdoctor_invalid_tracker_state', message);
  }
}
