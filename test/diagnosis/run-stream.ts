/** Test helper: a simulated stream (printed exactly as Spark does) through parser and tracker. */
import type { EngineOptions } from '../../src/diagnosis/engine.js';
import { QueryTracker } from '../../src/diagnosis/query-tracker.js';
import type { IncidentChange } from '../../src/diagnosis/types.js';
import { parseProgress } from '../../src/progress/parse-progress.js';
import { DEFAULT_START_MS, StreamSimulator, steppedRate, type SimulatedBatch, type StreamSpec } from '../../src/simulator/index.js';
import { drawScenario, simulateRandom, type Family, type LagLabel, type ReportingMode } from '../../src/simulator/random/index.js';

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

/** Trigger of `cappedNoBacklogSpec`, ms. */
export const CAPPED_TRIGGER_MS = 10_000;

/**
 * A Kafka query capped at 80,000 offsets a batch (8,000 rows/s at its 10 s trigger) on Spark
 * 3.0-era reports, which carry no backlog figure.
 */
export function cappedNoBacklogSpec(arrival: StreamSpec['arrival'], extra: Partial<StreamSpec> = {}): StreamSpec {
  return {
    name: 'payments_raw',
    arrival,
    arrivalNoise: 0.05,
    // 20,000 rows/s: a capped batch of 80,000 rows takes about 4.6 s of the 10 s trigger.
    processing: { rowsPerSecPerCore: 2_500, cores: 8, overheadMs: 600 },
    triggerMs: CAPPED_TRIGGER_MS,
    source: { kind: 'kafka', partitions: 8, maxOffsetsPerTrigger: 80_000 },
    platform: 'spark-3.0',
    ...extra,
  };
}

/** Cap of `cappedStepSpec`, offsets a batch over its 8 partitions (about 15,800 rows/s at its 2 s trigger, back to back). */
export const STEP_CAP = 60_000;
/** When `cappedStepSpec`'s input steps up. */
export const STEP_AT = START + 5 * MIN;

/**
 * A Kafka query on 8 partitions capped at STEP_CAP whose input steps at STEP_AT from 12,600 rows/s
 * (about 80 % of what the cap admits) to `rowsPerSecAfter`, with `arrivalNoise`, on `platform`'s reports.
 */
export function cappedStepSpec(rowsPerSecAfter: number, arrivalNoise: number, platform: StreamSpec['platform']): StreamSpec {
  return {
    name: 'orders_raw',
    arrival: steppedRate(12_600, [{ atMs: STEP_AT, rowsPerSec: rowsPerSecAfter }]),
    arrivalNoise,
    processing: { rowsPerSecPerCore: 3_000, cores: 16, overheadMs: 1_000 },
    triggerMs: 2_000,
    source: { kind: 'kafka', partitions: 8, maxOffsetsPerTrigger: STEP_CAP },
    platform,
  };
}

/**
 * A scenario drawn from the randomized corpus (its first query) through parser and tracker: the
 * indexes of the reports at which lag opened, and the query's lag labels (ground truth).
 */
export function drawnLagOpenings(seed: number, family: Family, mode: ReportingMode): { openings: number[]; labels: LagLabel[] } {
  const query = simulateRandom(drawScenario(seed, { family, mode })).queries[0]!;
  const tracker = QueryTracker.create('q', query.query.spec.name ?? null);
  const openings: number[] = [];
  query.batches.forEach((batch, index) => {
    const parsed = parseProgress(batch.progress as never);
    if (!parsed.ok) throw new Error(parsed.error);
    for (const change of tracker.observe(parsed.progress)) if (change.type === 'opened' && change.incident.kind === 'lag') openings.push(index);
  });
  return { openings, labels: query.labels.filter((l): l is LagLabel => l.kind === 'lag') };
}
