/**
 * Scores an engine run against a scenario's labels: each labelled incident is found when an incident
 * of its kind opened inside its window (from EARLY_TOLERANCE_REPORTS before the onset to
 * `maxDelayReports` after it), and its cause is right when the incident's highest-confidence cause
 * (as last reported) has the labelled code. Every other opening is a false alarm, unless the scenario
 * tolerates its kind.
 */

import type { Incident, IncidentKind } from '../../diagnosis/types.js';
import { EARLY_TOLERANCE_REPORTS, type LabelledRun, type ResolvedExpectation } from '../scenario.js';
import type { EngineRun, TimedChange } from './run-engine.js';

export interface Opening {
  kind: IncidentKind;
  index: number;
  atMs: number;
  /** The incident as last reported (opened, updated or resolved). */
  latest: Incident;
  /** Its summary when it opened (or re-opened): what made it open, which later updates rewrite. */
  openedSummary: string;
  topCause: string | null;
}

export interface ExpectationScore {
  expected: ResolvedExpectation;
  found: Opening | null;
  causeCorrect: boolean;
  /** Reports from onset to opening (negative when opened slightly early). */
  delayReports: number | null;
  /** From the onset report's trigger start to the end of the report that opened it, seconds. */
  delaySec: number | null;
  /** The static 600 s rule on the same data (lag only). */
  staticIndex: number | null;
  staticDelayReports: number | null;
  staticDelaySec: number | null;
}

export interface ScenarioScore {
  name: string;
  expectations: ExpectationScore[];
  falseAlarms: Opening[];
  tolerated: Opening[];
  parseErrors: number;
}

/** One incident across its updates and relapses: its kind and when (and at which batch) it opened. */
export function incidentKey(incident: Incident): string {
  return `${incident.kind}|${incident.openedAt}|${incident.openedAtBatchId ?? ''}`;
}

function topCauseOf(incident: Incident): string | null {
  if (incident.causes.length === 0) return null;
  const best = [...incident.causes].sort((a, b) => b.confidence - a.confidence)[0]!;
  return best.code;
}

/** An incident opening (or re-opening) after report `index`, at `atMs`, as it read then. */
export function openingOf(index: number, atMs: number, incident: Incident): Opening {
  return { kind: incident.kind, index, atMs, latest: incident, openedSummary: incident.summary, topCause: topCauseOf(incident) };
}

/** Every incident opened in the run, with its latest state. */
export function openings(changes: TimedChange[]): Opening[] {
  const byKey = new Map<string, Opening>();
  for (const { index, atMs, change } of changes) {
    const k = incidentKey(change.incident);
    const existing = byKey.get(k);
    if (change.type === 'opened' && !existing) {
      byKey.set(k, openingOf(index, atMs, change.incident));
    } else if (existing) {
      existing.latest = change.incident;
      existing.topCause = topCauseOf(change.incident);
    }
  }
  return [...byKey.values()].sort((a, b) => a.index - b.index);
}

export function scoreScenario(run: LabelledRun, engine: EngineRun): ScenarioScore {
  const opened = openings(engine.changes);
  const used = new Set<Opening>();
  const endOf = (index: number, fallbackMs: number) => run.batches[index]?.endMs ?? fallbackMs;
  const expectations = run.expected.map((expected): ExpectationScore => {
    const from = expected.onsetIndex - EARLY_TOLERANCE_REPORTS;
    const to = expected.onsetIndex + expected.maxDelayReports;
    const found =
      opened.find((o) => !used.has(o) && o.kind === expected.kind && o.index >= from && o.index <= to) ?? null;
    if (found) used.add(found);
    const staticIndex = expected.kind === 'lag' ? engine.staticRuleIndex : null;
    return {
      expected,
      found,
      causeCorrect: found !== null && (expected.topCause === undefined || found.topCause === expected.topCause),
      delayReports: found ? found.index - expected.onsetIndex : null,
      delaySec: found ? (endOf(found.index, found.atMs) - expected.onsetMs) / 1_000 : null,
      staticIndex,
      staticDelayReports: staticIndex !== null ? staticIndex - expected.onsetIndex : null,
      staticDelaySec: staticIndex !== null ? (endOf(staticIndex, run.nowMs) - expected.onsetMs) / 1_000 : null,
    };
  });
  const toleratedKinds = new Set((run.scenario.tolerated ?? []).map((t) => t.kind));
  const rest = opened.filter((o) => !used.has(o));
  return {
    name: run.scenario.name,
    expectations,
    falseAlarms: rest.filter((o) => !toleratedKinds.has(o.kind)),
    tolerated: rest.filter((o) => toleratedKinds.has(o.kind)),
    parseErrors: engine.parseErrors.length,
  };
}
