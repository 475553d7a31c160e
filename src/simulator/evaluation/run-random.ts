/**
 * Feeds a random draw's log through the path a user's data takes, as the worker does: each report's
 * JSON is parsed by `parseProgress`, routed by query id to that query's own `QueryTracker`
 * (several queries are interleaved in one log), observed and ticked at its end, and every tracker
 * is ticked every 60 s of simulated time through the gaps between its reports (so a batch that
 * hangs is judged while it hangs) and on to the time the draw is judged at. Ticks carry what the
 * worker learns from job runs: the start of the query's current run, once a runs poll has seen it.
 */

import { QueryTracker } from '../../diagnosis/query-tracker.js';
import type { LiveFacts } from '../../diagnosis/types.js';
import { parseProgress } from '../../progress/parse-progress.js';
import type { SimulatedRandom } from '../random/simulate.js';
import type { TimedChange } from './run-engine.js';
import { StaticBacklogRule } from './static-backlog-rule.js';

/** The worker's detect schedule: trackers are ticked this often. */
export const TICK_MS = 60_000;


export interface RandomQueryRun {
  /**
   * Changes with `index` = this query's report index they were emitted at; ticks in the gap before
   * report i carry i (what was known by the time report i arrived), ticks after the last report n.
   */
  changes: TimedChange[];
  /** Per report: whether the static 600 s rule fires after it. */
  staticFires: boolean[];
  parseErrors: { index: number; error: string }[];
}

interface QueryState {
  tracker: QueryTracker | null;
  /** Start of each run of the query (the first batch of a run starts when the run does). */
  runStarts: number[];
  rule: StaticBacklogRule;
  /** Last time this tracker was ticked or fed. */
  lastMs: number;
  run: RandomQueryRun;
}

/** Grid times (multiples of TICK_MS from `originMs`) strictly between `fromMs` and `toMs`. */
function* ticksBetween(originMs: number, fromMs: number, toMs: number): Generator<number> {
  let t = originMs + (Math.floor((fromMs - originMs) / TICK_MS) + 1) * TICK_MS;
  for (; t < toMs; t += TICK_MS) yield t;
}

/**
 * What the worker knows of the query's job at `atMs`: the newest run start a job-runs poll has seen.
 * The clock polls job runs on the tick's grid, just before the tick, so a run is known from the first
 * grid time at or after its start.
 */
function liveAt(origin: number, state: QueryState, atMs: number): LiveFacts {
  let runStartedAtMs: number | null = null;
  for (const start of state.runStarts) {
    const knownAt = origin + Math.ceil((start - origin) / TICK_MS) * TICK_MS;
    if (knownAt <= atMs) runStartedAtMs = start;
  }
  return { runStartedAtMs };
}

export function runRandomEngine(sim: SimulatedRandom): RandomQueryRun[] {
  const origin = sim.scenario.startMs;
  const states: QueryState[] = sim.queries.map((q) => ({
    tracker: null,
    runStarts: q.batches.filter((b) => b.truth.firstOfRun).map((b) => b.truth.startMs),
    rule: new StaticBacklogRule(),
    lastMs: origin,
    run: { changes: [], staticFires: [], parseErrors: [] },
  }));
  // Routing by the id in the report, as the worker does; the log's query number only names the result.
  const byId = new Map<string, QueryState>();
  for (const entry of sim.log) {
    const result = parseProgress(JSON.parse(entry.batch.json));
    const fallback = states[entry.query]!;
    if (!result.ok) {
      fallback.run.parseErrors.push({ index: entry.index, error: result.error });
      fallback.run.staticFires[entry.index] = false;
      continue;
    }
    const p = result.progress;
    let state = byId.get(p.id);
    if (!state) {
      state = fallback;
      byId.set(p.id, state);
    }
    const end = entry.batch.endMs;
    const push = (atMs: number, changes: ReturnType<QueryTracker['tick']>) => {
      for (const change of changes) state!.run.changes.push({ index: entry.index, atMs, change });
    };
    if (state.tracker) for (const t of ticksBetween(origin, state.lastMs, end)) push(t, state.tracker.tick(t, liveAt(origin, state, t)));
    state.tracker ??= QueryTracker.create(p.id, p.name, {});
    push(end, state.tracker.observe(p));
    push(end, state.tracker.tick(end, liveAt(origin, state, end)));
    state.lastMs = end;
    state.run.staticFires[entry.index] = state.rule.observe(p);
  }
  sim.queries.forEach((q, i) => {
    const state = states[i]!;
    if (!state.tracker) return;
    const index = q.batches.length;
    const at = [...ticksBetween(origin, state.lastMs, q.nowMs)];
    if (q.nowMs > state.lastMs) at.push(q.nowMs);
    for (const t of at) for (const change of state.tracker.tick(t, liveAt(origin, state, t))) state.run.changes.push({ index, atMs: t, change });
  });
  return states.map((s) => s.run);
}
