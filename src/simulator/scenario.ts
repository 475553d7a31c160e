/**
 * A labelled scenario: a simulated stream, how many reports to take, the engine options a user would
 * pass, and the incidents that must be found (or none: a must-not-fire case). Onsets are not typed
 * in by hand: each is resolved from the simulator's truth by a documented rule (`OnsetRule`).
 */

import type { CauseCode, IncidentKind } from '../diagnosis/types.js';
import type { StreamSpec } from './spec.js';
import { StreamSimulator, type SimulatedBatch } from './stream-simulator.js';

/**
 * How the onset of a labelled incident is found in the truth series (report indices are 0-based
 * positions in the scenario's output):
 * - `time-behind`: a change (a time after the start, or a batchId) makes the query lose ground. Its
 *   healthy range is the largest true time behind among reports that ended before the change; the
 *   onset is the first report at or after the change whose true time behind exceeds that range.
 * - `overload`: a gradual change (a ramp): the first report from which the true load factor
 *   (arrival rate ÷ the rate the query can sustain) stays above 1 to the end of the run.
 * - `overrun`: a slow drift (state, GC) rather than a step: the first report from which every later
 *   batch runs longer than the trigger interval.
 * - `first-of-run`: the first report of the run that starts with batch `batchId` (after a restart).
 * - `first-data`: the first report that read data (state grows from the start).
 * - `repartition`: the first report whose batch ran a state repartition.
 * - `stall`: the report that never came: index = number of reports taken; judged at `now`.
 * - `retention-forecast`: the first report at or after the change where the true time behind,
 *   extrapolated at its true growth (least squares over the last 10 reports), reaches the retention
 *   within `horizonMs` (default half the retention, at least 24 h).
 */
export type OnsetRule =
  | { rule: 'time-behind'; changeAfterMs?: number; changeAtBatch?: number }
  | { rule: 'overload' }
  | { rule: 'overrun'; triggerMs: number }
  | { rule: 'first-of-run'; batchId: number }
  | { rule: 'first-data' }
  | { rule: 'repartition' }
  | { rule: 'stall' }
  | { rule: 'retention-forecast'; changeAfterMs?: number; changeAtBatch?: number; horizonMs?: number };

export interface ExpectedIncident {
  kind: IncidentKind;
  /** Code of the highest-confidence cause; omitted when the kind carries no cause (stalled). */
  topCause?: CauseCode;
  onset: OnsetRule;
  /** The incident must open at most this many reports after the onset (and at most 2 before). */
  maxDelayReports: number;
}

/** Engine options a user would pass for this stream (`--trigger`, `--cores`, `--retention`). */
export interface ScenarioEngineOptions {
  triggerMs?: number;
  cores?: number;
  retentionMs?: number;
  repartitionThresholdMs?: number;
}

export interface Scenario {
  name: string;
  description: string;
  spec: StreamSpec;
  seed: number;
  /** Simulated start, epoch ms. */
  startMs: number;
  /** Number of reports (progress events) to take. */
  batches: number;
  engine: ScenarioEngineOptions;
  /** `now` = end of the last report + this (for stalls and forecasts judged after the data). */
  nowAfterLastMs?: number;
  /** Empty: a must-not-fire scenario. */
  expected: ExpectedIncident[];
  /** Kinds that may open without counting as false alarms, each with the reason. */
  tolerated?: { kind: IncidentKind; reason: string }[];
}

export interface ResolvedExpectation extends ExpectedIncident {
  onsetIndex: number;
  /** Trigger start of the onset report (or the time the missing report was due, for stalls). */
  onsetMs: number;
}

export interface LabelledRun {
  scenario: Scenario;
  batches: SimulatedBatch[];
  expected: ResolvedExpectation[];
  /** The `now` the scenario is judged at. */
  nowMs: number;
}

/** The earliest a labelled incident may open, in reports before its onset (onset rules are discrete). */
export const EARLY_TOLERANCE_REPORTS = 2;

const DEFAULT_HORIZON_MS = 24 * 3_600_000;

/** Runs the scenario's simulator for its report count (deterministic by seed). */
export function simulateScenario(scenario: Scenario): SimulatedBatch[] {
  const sim = new StreamSimulator(scenario.spec, { startMs: scenario.startMs, seed: scenario.seed });
  return sim.take(scenario.batches);
}

function changeIndex(run: SimulatedBatch[], startMs: number, afterMs?: number, atBatch?: number): number {
  const i = run.findIndex((b) =>
    atBatch !== undefined
      ? b.truth.kind === 'data' && b.truth.batchId >= atBatch
      : b.truth.startMs >= startMs + (afterMs ?? 0),
  );
  return i < 0 ? run.length : i;
}

function slopePerSec(points: { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((a, p) => a + p.x, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/** Resolves an onset rule against the truth; throws when the rule finds nothing (a broken scenario). */
export function resolveOnset(
  scenario: Scenario,
  run: SimulatedBatch[],
  onset: OnsetRule,
  retentionMs: number,
): { index: number; ms: number } {
  const at = (index: number) => ({ index, ms: run[index]?.truth.startMs ?? NaN });
  switch (onset.rule) {
    case 'time-behind': {
      const change = changeIndex(run, scenario.startMs, onset.changeAfterMs, onset.changeAtBatch);
      const healthyMax = Math.max(0, ...run.slice(0, change).map((b) => b.truth.timeBehindSec));
      const i = run.findIndex((b, j) => j >= change && b.truth.timeBehindSec > healthyMax);
      if (i >= 0) return at(i);
      break;
    }
    case 'overload': {
      let i = run.length;
      while (i > 0 && run[i - 1]!.truth.loadFactor > 1) i--;
      if (i < run.length) return at(i);
      break;
    }
    case 'overrun': {
      let i = run.length;
      while (i > 0 && run[i - 1]!.truth.endMs - run[i - 1]!.truth.startMs > onset.triggerMs) i--;
      if (i < run.length) return at(i);
      break;
    }
    case 'first-of-run': {
      const i = run.findIndex((b) => b.truth.batchId === onset.batchId && b.truth.firstOfRun);
      if (i >= 0) return at(i);
      break;
    }
    case 'first-data': {
      const i = run.findIndex((b) => b.truth.kind === 'data' && b.truth.rows > 0);
      if (i >= 0) return at(i);
      break;
    }
    case 'repartition': {
      const i = run.findIndex((b) => b.truth.repartitionMs > 0);
      if (i >= 0) return at(i);
      break;
    }
    case 'stall': {
      const last = run[run.length - 1];
      if (last) return { index: run.length, ms: last.endMs };
      break;
    }
    case 'retention-forecast': {
      const change = changeIndex(run, scenario.startMs, onset.changeAfterMs, onset.changeAtBatch);
      // What on-call people want (a warning days ahead on a 7-day topic), not what an engine does.
      const horizon = onset.horizonMs ?? Math.max(DEFAULT_HORIZON_MS, retentionMs / 2);
      for (let i = Math.max(change, 1); i < run.length; i++) {
        const window = run.slice(Math.max(0, i - 9), i + 1).map((b) => ({ x: b.endMs / 1_000, y: b.truth.timeBehindSec }));
        const slope = slopePerSec(window);
        const behind = run[i]!.truth.timeBehindSec;
        if (slope > 0 && behind + slope * (horizon / 1_000) >= retentionMs / 1_000) return at(i);
      }
      break;
    }
  }
  throw new Error(`streamdoctor_scenario_onset: scenario "${scenario.name}" has no onset for rule ${onset.rule}`);
}

/** Simulates a scenario and resolves its labels: the corpus test and `npm run eval` start here. */
export function labelScenario(scenario: Scenario): LabelledRun {
  const batches = simulateScenario(scenario);
  const retentionMs = scenario.engine.retentionMs ?? 7 * 24 * 3_600_000;
  const expected = scenario.expected.map((e) => {
    const { index, ms } = resolveOnset(scenario, batches, e.onset, retentionMs);
    return { ...e, onsetIndex: index, onsetMs: ms };
  });
  const lastEnd = batches[batches.length - 1]?.endMs ?? scenario.startMs;
  return { scenario, batches, expected, nowMs: lastEnd + (scenario.nowAfterLastMs ?? 0) };
}
