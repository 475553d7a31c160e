/**
 * Plays labelled simulator scenarios as live streams in the local Databricks. A scenario is written
 * for a fixed simulated start; it is shifted so that it starts at the stand-in's "now", which keeps
 * progress timestamps current for the bot (arrival-rate functions are shifted with it).
 */
import { StreamSimulator, type Scenario, type StreamSpec } from '../../simulator/index.js';
import type { LocalDatabricks } from './local-databricks.js';

export interface ScenarioStreamOptions {
  /** Job hosting the stream (created as a continuous job when unknown). */
  jobId?: number;
  /** Pipeline that hosts it instead of a job (progress goes to its event log). */
  pipelineId?: string;
  /** @defaultValue the first progress table */
  table?: string;
  /** Fraction of rows written late. @defaultValue 0 */
  lateFraction?: number;
}

export interface PlayedStream {
  key: string;
  scenario: string;
  queryId: string;
  name: string | null;
  jobId: number | null;
  pipelineId: string | null;
}

export function shiftSpec(spec: StreamSpec, offsetMs: number): StreamSpec {
  const arrival = spec.arrival;
  return typeof arrival === 'function' ? { ...spec, arrival: (timeMs: number) => arrival(timeMs - offsetMs) } : { ...spec };
}

export function playScenario(local: LocalDatabricks, scenario: Scenario, options: ScenarioStreamOptions = {}): PlayedStream {
  const startMs = local.clock.now();
  const simulator = new StreamSimulator(shiftSpec(scenario.spec, startMs - scenario.startMs), { startMs, seed: scenario.seed });
  const key = `scenario:${scenario.name}`;
  local.addStream(key, {
    generator: simulator,
    table: options.table,
    jobId: options.pipelineId ? undefined : options.jobId,
    pipelineId: options.pipelineId,
    lateFraction: options.lateFraction,
  });
  return {
    key,
    scenario: scenario.name,
    queryId: simulator.id,
    name: simulator.name,
    jobId: options.pipelineId ? null : (options.jobId ?? null),
    pipelineId: options.pipelineId ?? null,
  };
}
