/**
 * The slice of the engine's QueryTracker (src/diagnosis/query-tracker.ts) the detect job uses,
 * behind a factory so tests and the bench can pass the real engine or their own.
 */
import type { IrregularReports } from '../src/diagnosis/query-tracker.js';
import type { IncidentChange, LiveFacts, QueryReport } from '../src/diagnosis/types.js';
import type { Progress } from '../src/progress/types.js';
import type { StreamSnapshot } from '../src/store/types.js';

export interface TrackerLike {
  observe(p: Progress): IncidentChange[];
  tick(nowMs: number, live?: LiveFacts): IncidentChange[];
  /** Open incidents whose figures moved since last told (the engine's; a stand-in may leave it out). */
  refreshFigures?(): IncidentChange[];
  snapshot(): StreamSnapshot;
  toState(): unknown;
  report?(nowMs?: number): QueryReport;
  /** Reports not taken as they came since this tracker was made (the engine's count; a stand-in may leave it out). */
  readonly irregular?: IrregularReports;
}

export interface TrackerFactory {
  create(queryId: string, name: string | null): TrackerLike;
  /** Rebuilds a tracker from `toState()` output; may throw on an incompatible state. */
  restore(state: unknown): TrackerLike;
}
