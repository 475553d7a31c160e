/**
 * Families that lose ground: a step or a ramp of input past what the query sustains, capacity lost
 * for a while (and often back), and a restart whose backlog cannot drain within the catch-up budget.
 * Overloads are drawn 5–60 % past the sustainable rate: the deadline rule (deadline.ts) is strict
 * from 10 %, lenient below.
 */

import { rampRate, steppedRate } from '../arrivals.js';
import type { SeededRandom } from '../random.js';
import { CATCH_UP_BUDGET_MS } from './deadline.js';
import { drawSetup, uniform } from './setup.js';
import type { RandomQuery, ReportingMode } from './types.js';

const MIN = 60_000;
const pct = (x: number) => `${Math.round(x * 100)} %`;

/** When the change happens: 20–40 % into the planned run (at least 30 reports of healthy history). */
function changeAt(random: SeededRandom, startMs: number, plannedMs: number): number {
  return startMs + Math.round(plannedMs * uniform(random, 0.2, 0.4));
}

export function stepOverload(random: SeededRandom, mode: ReportingMode, startMs: number): Omit<RandomQuery, 'seed'> {
  const base = uniform(random, 0.4, 0.85);
  const overload = uniform(random, 0.05, 0.6);
  const s = drawSetup(random, mode, base, startMs);
  const at = changeAt(random, startMs, s.plannedMs);
  return {
    family: 'step-overload',
    description: `input steps from ${pct(base)} to ${pct(1 + overload)} of what the query sustains`,
    spec: { ...s.spec, arrival: steppedRate(base * s.sustainable, [{ atMs: at, rowsPerSec: (1 + overload) * s.sustainable }]) },
    changes: [{ type: 'overload', atMs: at, what: 'input step' }],
    params: { ...s.params, overload: Math.round(overload * 1_000) / 1_000, changeAt: new Date(at).toISOString() },
    plannedEndMs: startMs + s.plannedMs,
    maxReports: s.maxReports,
  };
}

export function rampOverload(random: SeededRandom, mode: ReportingMode, startMs: number): Omit<RandomQuery, 'seed'> {
  const base = uniform(random, 0.4, 0.8);
  const overload = uniform(random, 0.05, 0.6);
  const s = drawSetup(random, mode, base, startMs);
  const at = changeAt(random, startMs, s.plannedMs);
  const rampMs = Math.round(s.plannedMs * uniform(random, 0.1, 0.3));
  return {
    family: 'ramp-overload',
    description: `input ramps from ${pct(base)} to ${pct(1 + overload)} of what the query sustains over ${Math.round(rampMs / MIN)} min`,
    spec: { ...s.spec, arrival: rampRate(base * s.sustainable, (1 + overload) * s.sustainable, at, at + rampMs) },
    changes: [{ type: 'overload', atMs: at, what: 'input ramp' }],
    params: { ...s.params, overload: Math.round(overload * 1_000) / 1_000, changeAt: new Date(at).toISOString(), rampMs },
    plannedEndMs: startMs + s.plannedMs,
    maxReports: s.maxReports,
  };
}

export function capacityDrop(random: SeededRandom, mode: ReportingMode, startMs: number): Omit<RandomQuery, 'seed'> {
  const base = uniform(random, 0.4, 0.75);
  const overload = uniform(random, 0.05, 0.6);
  const s = drawSetup(random, mode, base, startMs);
  const at = changeAt(random, startMs, s.plannedMs);
  const recovers = random.next() < 0.7;
  const lostMs = Math.round(s.plannedMs * uniform(random, 0.15, 0.35));
  const arrival = base * s.sustainable;
  // Executors lost: the busy-time capacity falls so the input is `1 + overload` of it.
  const perCore = s.spec.processing.rowsPerSecPerCore;
  const lowered = Math.max(1, Math.round((perCore * arrival) / ((1 + overload) * s.capacity)));
  return {
    family: 'capacity-drop',
    description: `capacity falls so the input is ${pct(1 + overload)} of it${recovers ? `, back after ${Math.round(lostMs / MIN)} min` : ''}`,
    spec: {
      ...s.spec,
      arrival,
      events: [
        { type: 'change', atBatch: 0, atMs: at, rowsPerSecPerCore: lowered },
        ...(recovers ? [{ type: 'change' as const, atBatch: 0, atMs: at + lostMs, rowsPerSecPerCore: perCore }] : []),
      ],
    },
    changes: [{ type: 'overload', atMs: at, what: 'capacity lost' }],
    params: {
      ...s.params,
      overload: Math.round(overload * 1_000) / 1_000,
      changeAt: new Date(at).toISOString(),
      recoversAfterMs: recovers ? lostMs : null,
    },
    plannedEndMs: startMs + s.plannedMs,
    maxReports: s.maxReports,
  };
}

export function slowCatchUp(random: SeededRandom, mode: ReportingMode, startMs: number): Omit<RandomQuery, 'seed'> {
  const base = uniform(random, 0.8, 0.93);
  const s = drawSetup(random, mode, base, startMs);
  // Downtime whose backlog needs 2–4 × the budget to drain at the spare rate (1 − load).
  const drainFactor = uniform(random, 2, 4);
  const downtimeMs = Math.min(60 * MIN, Math.round((drainFactor * CATCH_UP_BUDGET_MS * (1 - base)) / base));
  const atBatch = Math.max(30, Math.round(s.maxReports * uniform(random, 0.25, 0.4)));
  return {
    family: 'slow-catch-up',
    description: `restart after ${Math.round(downtimeMs / MIN)} min down at ${pct(base)} load: the backlog needs about ${(drainFactor * 30).toFixed(0)} min to drain`,
    spec: { ...s.spec, arrival: base * s.sustainable, events: [{ type: 'restart', atBatch, downtimeMs }] },
    changes: [{ type: 'disruption', atBatch, what: 'restart' }],
    params: { ...s.params, downtimeMs, atBatch },
    plannedEndMs: startMs + s.plannedMs,
    maxReports: s.maxReports,
  };
}
