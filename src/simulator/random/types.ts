/** What a randomized draw is: one or more simulated queries in one log, their families and the reporting mode. */

import type { StreamSpec } from '../spec.js';

/** Families that must raise lag (or, for `stall`, a stalled incident) when the truth says so. */
export const LAG_FAMILIES = ['step-overload', 'ramp-overload', 'capacity-drop', 'slow-catch-up'] as const;
/** Families whose truth never leaves the healthy range for longer than the catch-up budget: any opening is a false alarm. */
export const QUIET_FAMILIES = ['utilization', 'near-capacity', 'bursts', 'gc-spikes', 'restart-catch-up', 'idle-gaps'] as const;
/** Mixed families: a stall (labelled `stalled`, its catch-up quiet), several queries in one log. */
export const MIXED_FAMILIES = ['stall', 'interleaved'] as const;
export const FAMILIES = [...LAG_FAMILIES, ...QUIET_FAMILIES, ...MIXED_FAMILIES] as const;
export type Family = (typeof FAMILIES)[number];
/** Families a single query of an interleaved log is drawn from. */
export type QueryFamily = Exclude<Family, 'interleaved'>;

export function isQuietFamily(family: string): boolean {
  return (QUIET_FAMILIES as readonly string[]).includes(family);
}

/** How the progress reports show (or hide) the backlog; see reporting-modes.ts. */
export const REPORTING_MODES = [
  'dbr-17.1',
  'oss-planning',
  'latest-is-end',
  'no-metrics',
  'kinesis',
  'delta-files',
  'autoloader',
] as const;
export type ReportingMode = (typeof REPORTING_MODES)[number];

/**
 * Something that happens to a query at a known time, which the labels are resolved around:
 * - `overload`: from `atMs` the query cannot keep up (step, ramp start, capacity lost);
 * - `disruption`: processing stops or input spikes until `untilMs` (restart downtime, stall, burst,
 *   GC pause, idle gap); what piles up must drain within the catch-up budget after `untilMs`.
 * `atBatch` instead of `atMs` when the simulator event is placed by batchId (restarts, stalls, GC).
 */
export type ChangePoint =
  | { type: 'overload'; atMs: number; what: string }
  | { type: 'disruption'; atMs?: number; untilMs?: number; atBatch?: number; what: 'restart' | 'stall' | 'burst' | 'gc' | 'idle' };

export interface RandomQuery {
  family: QueryFamily;
  /** One line a person reads to know what was drawn. */
  description: string;
  spec: StreamSpec;
  seed: number;
  changes: ChangePoint[];
  /** The draw's parameters, for the dump and the worst-draws list. */
  params: Record<string, number | string | boolean | null>;
  /** Planned end of this query's run (epoch ms); a catch-up in progress is followed past it (see simulate.ts). */
  plannedEndMs: number;
  /** At most this many reports (unless a catch-up is being followed). */
  maxReports: number;
}

export interface RandomScenario {
  seed: number;
  family: Family;
  mode: ReportingMode;
  startMs: number;
  queries: RandomQuery[];
}
