/**
 * Runs a random draw: every query's simulator up to its planned end or report count, following a
 * catch-up in progress past that end (never cut a run in the middle of one, or its label would be
 * undecided), then the labels from the truth, and the queries' reports merged into one log.
 */

import type { SimulatedBatch } from '../simulated-batch.js';
import { SimulatorTimeError } from '../spec-validation.js';
import { StreamSimulator } from '../stream-simulator.js';
import { CATCH_UP_BUDGET_MS } from './deadline.js';
import { labelQuery, type QueryLabel } from './labels.js';
import type { RandomQuery, RandomScenario } from './types.js';

/** Hard bound on reports per query, whatever a catch-up needs (keeps 1,000 draws in minutes). */
const MAX_REPORTS_HARD = 3_000;
/** Reports followed after a disruption ends even once drained, so the run ends on a healthy stretch. */
const HEALTHY_TAIL_REPORTS = 40;
/** Past the budget, a little more so the label sees the budget run out. */
const FOLLOW_MARGIN_MS = 5 * 60_000;

export interface SimulatedQuery {
  query: RandomQuery;
  batches: SimulatedBatch[];
  labels: QueryLabel[];
  /** The time this query is judged at (ticks run up to it): the planned end, or the last report when cut by count. */
  nowMs: number;
}

export interface SimulatedRandom {
  scenario: RandomScenario;
  queries: SimulatedQuery[];
  /** Every report of every query, ordered by the time it was printed (a batch's end). */
  log: { query: number; index: number; batch: SimulatedBatch }[];
}

function simulateQuery(query: RandomQuery, startMs: number): SimulatedQuery {
  const sim = new StreamSimulator(query.spec, { startMs, seed: query.seed });
  const batches: SimulatedBatch[] = [];
  let healthyMax = 0;
  let disruptionEndMs = -Infinity;
  let healthyStreak = 0;
  let nowMs = query.plannedEndMs;
  const byBatch = new Map(query.changes.flatMap((c) => (c.type === 'disruption' && c.atBatch !== undefined ? [[c.atBatch, c.what] as const] : [])));
  for (const c of query.changes) if (c.type === 'disruption' && c.untilMs !== undefined) disruptionEndMs = Math.max(disruptionEndMs, c.untilMs);
  while (batches.length < MAX_REPORTS_HARD) {
    let batch: SimulatedBatch;
    try {
      batch = sim.next();
    } catch (error) {
      if (error instanceof SimulatorTimeError) break;
      throw error;
    }
    const t = batch.truth;
    const what = t.kind === 'data' && !t.retried ? byBatch.get(t.batchId) : undefined;
    if (what !== undefined) disruptionEndMs = Math.max(disruptionEndMs, what === 'restart' ? t.startMs : batch.endMs);
    healthyStreak = t.timeBehindSec > healthyMax ? 0 : healthyStreak + 1;
    // Followed until a report ends past the budget (then labels.ts can decide drained or not), and
    // for a few healthy reports after a drain, so a run never ends in the middle of its tail.
    const lastEndMs = batches[batches.length - 1]?.endMs ?? startMs;
    const catchingUp =
      healthyStreak <= HEALTHY_TAIL_REPORTS &&
      lastEndMs <= disruptionEndMs + CATCH_UP_BUDGET_MS + FOLLOW_MARGIN_MS;
    const pastPlan = batch.endMs > query.plannedEndMs || batches.length >= query.maxReports;
    if (pastPlan && !catchingUp) {
      // Cut by time: judged at the planned end (this report is not printed yet). Cut by count: at the last report.
      nowMs = batch.endMs > query.plannedEndMs ? Math.max(query.plannedEndMs, batches[batches.length - 1]?.endMs ?? startMs) : (batches[batches.length - 1]?.endMs ?? startMs);
      break;
    }
    batches.push(batch);
    nowMs = batch.endMs;
    // The healthy range the catch-up is followed against: the first fifth of the planned run.
    if (batch.endMs < startMs + 0.2 * (query.plannedEndMs - startMs)) healthyMax = Math.max(healthyMax, t.timeBehindSec);
  }
  return { query, batches, labels: labelQuery(batches, query.changes), nowMs };
}

export function simulateRandom(scenario: RandomScenario): SimulatedRandom {
  const queries = scenario.queries.map((q) => simulateQuery(q, scenario.startMs));
  const log = queries
    .flatMap((q, query) => q.batches.map((batch, index) => ({ query, index, batch })))
    .sort((a, b) => a.batch.endMs - b.batch.endMs || a.query - b.query);
  return { scenario, queries, log };
}
