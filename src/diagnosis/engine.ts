/**
 * The engine's entry points: `diagnose` runs a whole progress history (the CLI, tests, the eval)
 * through one `QueryTracker` per query id; the worker uses `QueryTracker` directly and keeps its
 * state in Redis between detect jobs.
 */
import type { Progress } from '../progress/types.js';
import { compareText } from '../util/compare-text.js';
import type { EngineOptions } from './engine-options.js';
import { QueryTracker } from './query-tracker.js';
import type { DiagnoseOutput, Health, IncidentChange, QueryReport } from './types.js';

export type { EngineOptions } from './engine-options.js';
export { resolveEngineOptions, DEFAULT_REPARTITION_THRESHOLD_MS, DEFAULT_RETENTION_MS } from './engine-options.js';

export interface DiagnoseOptions extends EngineOptions {
  /** The time of judgement for stalls, epoch ms. @defaultValue the latest batch end in the input */
  nowMs?: number;
  /** Called with every incident change as the history is fed in. */
  onChange?: (change: IncidentChange) => void;
}

/** Feeds progress (in input order, many queries interleaved) to one tracker per query id. */
export class Diagnosis {
  readonly trackers = new Map<string, QueryTracker>();
  private latestEndMs = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: DiagnoseOptions = {}) {}

  add(p: Progress): IncidentChange[] {
    let tracker = this.trackers.get(p.id);
    if (!tracker) {
      tracker = QueryTracker.create(p.id, p.name, this.options);
      this.trackers.set(p.id, tracker);
    }
    if (!p.timestampMissing) this.latestEndMs = Math.max(this.latestEndMs, p.timestampMs + p.batchDurationMs);
    const changes = tracker.observe(p);
    if (this.options.onChange) for (const change of changes) this.options.onChange(change);
    return changes;
  }

  /**
   * The time stalls are judged at: the option, else the latest batch end seen, or the newest query
   * clock when that is earlier: a report dated out of line with its batch (a row stamped 2099) does
   * not move its query's clock (QueryTracker.clockMs), and must not be "now" for every query either.
   */
  nowMs(): number {
    if (this.options.nowMs !== undefined) return this.options.nowMs;
    let clock = Number.NEGATIVE_INFINITY;
    for (const tracker of this.trackers.values()) clock = Math.max(clock, tracker.clockMs ?? Number.NEGATIVE_INFINITY);
    const latest = Math.min(this.latestEndMs, clock);
    return Number.isFinite(latest) ? latest : Number.isFinite(this.latestEndMs) ? this.latestEndMs : 0;
  }

  finish(): DiagnoseOutput {
    const now = this.nowMs();
    const queries: QueryReport[] = [];
    for (const tracker of this.trackers.values()) {
      const changes = tracker.tick(now);
      if (this.options.onChange) for (const change of changes) this.options.onChange(change);
      queries.push(tracker.report(now));
    }
    queries.sort(worstFirst);
    return { queries };
  }
}

export function diagnose(progress: Iterable<Progress>, options: DiagnoseOptions = {}): DiagnoseOutput {
  const diagnosis = new Diagnosis(options);
  for (const p of progress) diagnosis.add(p);
  return diagnosis.finish();
}

const HEALTH_RANK: Record<Health, number> = { critical: 0, warning: 1, ok: 2 };

function worstFirst(a: QueryReport, b: QueryReport): number {
  const byHealth = HEALTH_RANK[a.health] - HEALTH_RANK[b.health];
  if (byHealth !== 0) return byHealth;
  const byOpen = openCount(b) - openCount(a);
  if (byOpen !== 0) return byOpen;
  return compareText(a.name ?? a.id, b.name ?? b.id);
}

function openCount(report: QueryReport): number {
  return report.incidents.filter((incident) => incident.resolvedAt === null).length;
}
