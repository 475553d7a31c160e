/** Test helper: a simulated stream (printed exactly as Spark does) through parser and tracker. */
import type { EngineOptions } from '../../src/diagnosis/engine.js';
import { QueryTracker } from '../../src/diagnosis/query-tracker.js';
import type { IncidentChange } from '../../src/diagnosis/types.js';
import { parseProgress } from '../../src/progress/parse-progress.js';
import { DEFAULT_START_MS, StreamSimulator, type SimulatedBatch, type StreamSpec } from '../../src/simulator/index.js';

export const START = DEFAULT_START_MS;
export const MIN = 60_000;

export interface StreamRun {
  tracker: QueryTracker;
  /** Every change with the 0-based index of the report that caused it. */
  changes: (IncidentChange & { index: number })[];
  lastEndMs: number;
  json: string[];
  /** The simulated batches, with their ground truth. */
  batches: SimulatedBatch[];
  /** The tracker's time behind after each report, s (null when unknown); only with `recordTimeBehind`. */
  timeBehind: (number | null)[];
}

export function runStream(spec: StreamSpec, reports: number, options: EngineOptions = {}, seed = 11, recordTimeBehind = false): StreamRun {
  const sim = new StreamSimulator(spec, { startMs: START, seed });
  const tracker = QueryTracker.create(spec.id ?? 'query', spec.name ?? null, options);
  const changes: StreamRun['changes'] = [];
  const json: string[] = [];
  const batches: SimulatedBatch[] = [];
  const timeBehind: (number | null)[] = [];
  let lastEndMs = START;
  for (let index = 0; index < reports; index += 1) {
    const batch = sim.next();
    json.push(batch.json);
    batches.push(batch);
    const parsed = parseProgress(JSON.parse(batch.json));
    if (!parsed.ok) throw new Error(parsed.error);
    for (const change of tracker.observe(parsed.progress)) changes.push({ ...change, index });
    // A snapshot per report costs: only the tests that read it pay for it.
    if (recordTimeBehind) timeBehind.push(tracker.snapshot().timeBehindSec);
    lastEndMs = batch.endMs;
  }
  return { tracker, changes, lastEndMs, json, batches, timeBehind };
}

export const opened = (run: StreamRun, kind?: string) =>
  run.changes.filter((c) => c.type === 'opened' && (kind === undefined || c.incident.kind === kind));
