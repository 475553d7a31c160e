/**
 * Must-stay-quiet families: busy but healthy queries, and short disruptions whose backlog truly
 * drains well within the catch-up budget. Parameters are bounded by the physics so the drain time
 * (backlog ÷ spare rate) stays under half the budget; labels.ts checks it against the truth.
 */

import { constantRate, withBursts, withIdleGaps } from '../arrivals.js';
import type { SeededRandom } from '../random.js';
import type { SimEvent, StreamSpec } from '../spec.js';
import { StreamSimulator } from '../stream-simulator.js';
import { CATCH_UP_BUDGET_MS } from './deadline.js';
import { drawSetup, uniform } from './setup.js';
import type { ChangePoint, RandomQuery, ReportingMode } from './types.js';

const MIN = 60_000;
const SEC = 1_000;
/** Drains are drawn to finish within this (half the catch-up budget), so the family is quiet by a margin. */
const DRAIN_MAX_MS = 15 * MIN;
const pct = (x: number) => `${Math.round(x * 100)} %`;

/** The first batchId starting `afterMs` after the spec's first restart resumed, and when (null: not within 3,000 reports). */
function batchAfter(spec: StreamSpec, startMs: number, afterMs: number): { batchId: number; atMs: number } | null {
  const sim = new StreamSimulator(spec, { startMs, seed: 1 });
  let resumedAt: number | null = null;
  for (let i = 0; i < 3_000; i++) {
    const t = sim.next().truth;
    if (t.firstOfRun && t.index > 0) resumedAt = t.startMs;
    if (resumedAt !== null && t.kind === 'data' && t.startMs >= resumedAt + afterMs) return { batchId: t.batchId + 1, atMs: t.endMs };
  }
  return null;
}

type Drawn = Omit<RandomQuery, 'seed'>;

export function utilization(random: SeededRandom, mode: ReportingMode, startMs: number): Drawn {
  const base = uniform(random, 0.3, 0.9);
  const s = drawSetup(random, mode, base, startMs);
  return {
    family: 'utilization',
    description: `steady input at ${pct(base)} of what the query sustains, noise ${pct(Number(s.params.noise))}`,
    spec: { ...s.spec, arrival: base * s.sustainable },
    changes: [],
    params: s.params,
    plannedEndMs: startMs + s.plannedMs,
    maxReports: s.maxReports,
  };
}

export function nearCapacity(random: SeededRandom, mode: ReportingMode, startMs: number): Drawn {
  const base = uniform(random, 0.88, 0.95);
  const s = drawSetup(random, mode, base, startMs, { noiseMax: 0.05 });
  return {
    family: 'near-capacity',
    description: `steady input at ${pct(base)} of what the query sustains`,
    spec: { ...s.spec, arrival: base * s.sustainable },
    changes: [],
    params: s.params,
    plannedEndMs: startMs + s.plannedMs,
    maxReports: s.maxReports,
  };
}

export function bursts(random: SeededRandom, mode: ReportingMode, startMs: number): Drawn {
  const base = uniform(random, 0.3, 0.75);
  const s = drawSetup(random, mode, base, startMs);
  const count = 1 + random.int(4);
  const spare = 1 - base;
  const drainLimitMs = Math.min(DRAIN_MAX_MS, 6 * s.intervalMs);
  const list: { atMs: number; durationMs: number; extraRowsPerSec: number }[] = [];
  const changes: ChangePoint[] = [];
  for (let i = 0; i < count; i++) {
    // Bursts in separate slices of the middle of the run, so each drains before the next.
    const slice = (0.6 * s.plannedMs) / count;
    const atMs = startMs + Math.round(0.2 * s.plannedMs + slice * i + slice * uniform(random, 0, 0.3));
    const durationMs = Math.round(Math.min(10 * MIN, Math.max(5 * SEC, s.intervalMs * uniform(random, 0.5, 3))));
    // Excess (base + extra − 1) × duration must drain at the spare rate within the limit.
    const extraMax = Math.min(3, spare + (spare * drainLimitMs) / durationMs);
    const extra = uniform(random, Math.min(0.2, extraMax), extraMax);
    list.push({ atMs, durationMs, extraRowsPerSec: extra * s.sustainable });
    changes.push({ type: 'disruption', atMs, untilMs: atMs + durationMs, what: 'burst' });
  }
  return {
    family: 'bursts',
    description: `${count} burst(s) on ${pct(base)} load, each draining within ${Math.round(drainLimitMs / SEC)} s`,
    spec: { ...s.spec, arrival: withBursts(constantRate(base * s.sustainable), list) },
    changes,
    params: { ...s.params, bursts: list.map((b) => `${new Date(b.atMs).toISOString()}+${b.durationMs}ms×${(b.extraRowsPerSec / s.sustainable).toFixed(2)}`).join(' ') },
    plannedEndMs: startMs + s.plannedMs,
    maxReports: s.maxReports,
  };
}

export function gcSpikes(random: SeededRandom, mode: ReportingMode, startMs: number): Drawn {
  const base = uniform(random, 0.3, 0.8);
  const s = drawSetup(random, mode, base, startMs);
  const count = 3 + random.int(8);
  const events: SimEvent[] = [];
  const used = new Set<number>();
  for (let i = 0; i < count; i++) {
    const atBatch = 20 + random.int(Math.max(1, Math.round(s.maxReports * 0.8) - 20));
    if (used.has(atBatch)) continue;
    used.add(atBatch);
    events.push({ type: 'gc', atBatch, pauseMs: Math.round(uniform(random, 3, 30) * SEC) });
  }
  return {
    family: 'gc-spikes',
    description: `${events.length} GC pauses of 3–30 s on ${pct(base)} load`,
    spec: { ...s.spec, arrival: base * s.sustainable, events },
    changes: events.map((e) => ({ type: 'disruption', atBatch: e.atBatch, what: 'gc' })),
    params: { ...s.params, gc: events.map((e) => `${e.atBatch}:${e.type === 'gc' ? e.pauseMs : 0}ms`).join(' ') },
    plannedEndMs: startMs + s.plannedMs,
    maxReports: s.maxReports,
  };
}

export function restartCatchUp(random: SeededRandom, mode: ReportingMode, startMs: number): Drawn {
  const downtimeMs = Math.round(uniform(random, 1, 15) * MIN);
  // Drain time downtime × load / (1 − load) stays under DRAIN_MAX_MS.
  const maxLoad = Math.min(0.8, DRAIN_MAX_MS / (DRAIN_MAX_MS + downtimeMs));
  const base = uniform(random, Math.min(0.2, maxLoad), maxLoad);
  const s = drawSetup(random, mode, base, startMs);
  const count = 1 + random.int(2);
  const first = Math.max(30, Math.round(s.maxReports * (count === 1 ? uniform(random, 0.25, 0.5) : uniform(random, 0.2, 0.35))));
  const events: SimEvent[] = [{ type: 'restart', atBatch: first, downtimeMs }];
  let plannedEndMs = startMs + s.plannedMs;
  let maxReports = s.maxReports;
  if (count === 2) {
    // The second restart comes once the first has long drained (a budget after it resumed): batch
    // counts run fast during a catch-up, so its batchId is found by running the first part.
    const second = batchAfter({ ...s.spec, arrival: base * s.sustainable, events: [...events] }, startMs, CATCH_UP_BUDGET_MS);
    if (second !== null) {
      events.push({ type: 'restart', atBatch: second.batchId, downtimeMs });
      // Run long enough to see the second catch-up too.
      plannedEndMs = Math.max(plannedEndMs, second.atMs + downtimeMs + 20 * MIN);
      maxReports = Math.max(maxReports, second.batchId + 100);
    }
  }
  return {
    family: 'restart-catch-up',
    description: `${events.length} restart(s) after ${Math.round(downtimeMs / MIN)} min down on ${pct(base)} load`,
    spec: { ...s.spec, arrival: base * s.sustainable, events },
    changes: events.map((e) => ({ type: 'disruption', atBatch: e.atBatch, what: 'restart' })),
    params: { ...s.params, downtimeMs, restarts: events.map((e) => e.atBatch).join(' ') },
    plannedEndMs,
    maxReports,
  };
}

export function idleGaps(random: SeededRandom, mode: ReportingMode, startMs: number): Drawn {
  const base = uniform(random, 0.3, 0.85);
  const s = drawSetup(random, mode, base, startMs);
  const count = 1 + random.int(3);
  const gaps: { atMs: number; durationMs: number }[] = [];
  for (let i = 0; i < count; i++) {
    const slice = (0.6 * s.plannedMs) / count;
    const atMs = startMs + Math.round(0.2 * s.plannedMs + slice * i);
    gaps.push({ atMs, durationMs: Math.round(Math.min(0.8 * slice, uniform(random, 5, 60) * MIN)) });
  }
  return {
    family: 'idle-gaps',
    description: `${count} idle gap(s) in ${pct(base)} load`,
    spec: { ...s.spec, arrival: withIdleGaps(constantRate(base * s.sustainable), gaps) },
    changes: gaps.map((g) => ({ type: 'disruption', atMs: g.atMs, untilMs: g.atMs + g.durationMs, what: 'idle' })),
    params: { ...s.params, gaps: gaps.map((g) => `${new Date(g.atMs).toISOString()}+${Math.round(g.durationMs / SEC)}s`).join(' ') },
    plannedEndMs: startMs + s.plannedMs,
    maxReports: s.maxReports,
  };
}

export function stall(random: SeededRandom, mode: ReportingMode, startMs: number): Drawn {
  // Draw the setup first at a nominal load: the stall length depends on the interval.
  const nominal = uniform(random, 0.15, 0.6);
  const s = drawSetup(random, mode, nominal, startMs);
  // Many minutes, and at least 6 report intervals: clearly longer than any batch of this query.
  const durationMs = Math.round(Math.min(60 * MIN, Math.max(10 * MIN, 6 * s.intervalMs, uniform(random, 10, 40) * MIN)));
  // The stalled batch's backlog (duration × load) drains at the spare rate within DRAIN_MAX_MS.
  const base = Math.min(nominal, DRAIN_MAX_MS / (DRAIN_MAX_MS + durationMs));
  const atBatch = Math.max(30, Math.round(s.maxReports * uniform(random, 0.3, 0.5)));
  return {
    family: 'stall',
    description: `batch ${atBatch} hangs for ${Math.round(durationMs / MIN)} min on ${pct(base)} load, then catches up`,
    spec: { ...s.spec, arrival: base * s.sustainable, events: [{ type: 'stall', atBatch, durationMs }] },
    changes: [{ type: 'disruption', atBatch, what: 'stall' }],
    params: { ...s.params, baseLoad: Math.round(base * 1_000) / 1_000, stallMs: durationMs, atBatch },
    plannedEndMs: startMs + s.plannedMs,
    maxReports: s.maxReports,
  };
}
