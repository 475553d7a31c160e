/**
 * The part of a random query every family shares: trigger, source parallelism, cluster, input
 * noise, reporting mode and admission cap, and the rate the query can sustain (measured from the
 * simulator itself, so the load factors a family asks for are true ones).
 */

import type { SeededRandom } from '../random.js';
import type { StreamSpec } from '../spec.js';
import { StreamSimulator } from '../stream-simulator.js';
import { modeSource } from './reporting-modes.js';
import type { ReportingMode } from './types.js';

/** Sink commit time the simulator charges every batch (its default), ms. */
const SINK_COMMIT_MS = 250;
const HOUR = 3_600_000;

export interface QuerySetup {
  /** The spec without arrival and events; families add them. */
  spec: Omit<StreamSpec, 'arrival'>;
  triggerMs: number;
  /** Rows/s the query sustains: min(processing capacity, what the admission cap lets through). */
  sustainable: number;
  /** Busy-time processing capacity, rows/s. */
  capacity: number;
  capped: boolean;
  /** Expected time between reports at the family's base load, ms. */
  intervalMs: number;
  /** Planned run length, ms: 1–4 simulated hours ÷ the interval, held within 150–400 reports. */
  plannedMs: number;
  maxReports: number;
  params: Record<string, number | string | boolean | null>;
}

export const uniform = (r: SeededRandom, a: number, b: number): number => a + (b - a) * r.next();
export const logUniform = (r: SeededRandom, a: number, b: number): number => Math.exp(uniform(r, Math.log(a), Math.log(b)));

const NAMES = ['orders_agg', 'clicks_bronze', 'payments_silver', 'telemetry_rollup', 'sessions', 'inventory_cdc', 'ads_events'];

/**
 * Draws the shared part of a query running at `baseLoad` of what it can sustain. `capped`
 * undefined = drawn (about a third of the cappable sources get a cap).
 */
export function drawSetup(
  random: SeededRandom,
  mode: ReportingMode,
  baseLoad: number,
  startMs: number,
  options: { noiseMax?: number; capped?: boolean } = {},
): QuerySetup {
  const triggerMs = random.next() < 0.15 ? 0 : Math.round(logUniform(random, 1_000, 300_000) / 1_000) * 1_000;
  // Kafka partitions 1–200; Kinesis shards 1–32 (each shard prints a long position object, and
  // streams beyond a few dozen shards are rare behind one query).
  const units = Math.max(1, Math.round(logUniform(random, 1, mode === 'kinesis' ? 32 : 200)));
  const cores = [2, 4, 8, 16, 32][random.int(5)]!;
  const rowsPerSecPerCore = Math.round(logUniform(random, 300, 5_000));
  const overheadMs = Math.round(uniform(random, 300, 2_000));
  const noise = uniform(random, 0, options.noiseMax ?? 0.15);
  const fixedMs = overheadMs + SINK_COMMIT_MS;
  const isFiles = mode === 'delta-files' || mode === 'autoloader';
  const capacityEstimate = rowsPerSecPerCore * (isFiles ? cores : Math.min(cores, units));
  const estInterval = triggerMs > 0 ? triggerMs : fixedMs / (1 - Math.min(0.97, baseLoad));
  const filesPerInterval = Math.round(logUniform(random, 3, 200));
  const rowsPerFile = Math.max(1, Math.round((capacityEstimate * baseLoad * (estInterval / 1_000)) / filesPerInterval));
  const ms = modeSource(mode, random, units, rowsPerFile);
  const capped = ms.cappable && (options.capped ?? random.next() < 0.35);
  const capShare = uniform(random, 0.4, 0.9);
  if (capped) {
    // A cap that binds below the processing capacity: the query's limit is what it admits.
    const capRows = (capacityEstimate * Math.max(triggerMs, 2 * fixedMs) * capShare) / 1_000;
    if (ms.source.kind === 'kafka') ms.source.maxOffsetsPerTrigger = Math.max(1, Math.round(capRows));
    else if (ms.source.kind === 'delta' || ms.source.kind === 'autoloader') {
      ms.source.maxFilesPerTrigger = Math.max(1, Math.round(capRows / rowsPerFile));
    }
  }
  const spec: Omit<StreamSpec, 'arrival'> = {
    id: random.uuid(),
    name: NAMES[random.int(NAMES.length)]!,
    arrivalNoise: noise,
    processing: { rowsPerSecPerCore, cores, overheadMs, shuffles: false },
    triggerMs,
    source: ms.source,
    platform: ms.platform,
  };
  // Half the file-source draws count the files waiting after the batch, as Auto Loader's
  // asynchronous listing does: by the id's first hex digit, so no other draw moves.
  if ((ms.source.kind === 'delta' || ms.source.kind === 'autoloader') && Number.parseInt(spec.id!.charAt(0), 16) % 2 === 1) {
    ms.source.backlogCountedAt = 'end';
  }
  const probe = new StreamSimulator({ ...spec, arrival: 0 }, { startMs, seed: 1 }).next().truth;
  const sustainable = probe.sustainableRowsPerSec;
  const capacity = probe.capacityRowsPerSec;
  const busy = (baseLoad * sustainable) / capacity;
  // A batch reads one trigger's worth of input; when that takes longer than the trigger the query
  // runs back to back and settles at d = fixed / (1 − busy) (the back-to-back regime).
  const backToBackMs = fixedMs / Math.max(0.03, 1 - busy);
  const intervalMs = triggerMs > 0 && fixedMs + busy * triggerMs <= triggerMs ? triggerMs : Math.max(triggerMs, backToBackMs);
  const durationMs = uniform(random, 1, 4) * HOUR;
  const maxReports = Math.min(400, Math.max(150, Math.round(durationMs / intervalMs)));
  const plannedMs = maxReports * intervalMs;
  return {
    spec,
    triggerMs,
    sustainable,
    capacity,
    capped,
    intervalMs,
    plannedMs,
    maxReports,
    params: {
      platform: ms.platform,
      source: ms.source.kind,
      triggerMs,
      units: ms.source.kind === 'kafka' || ms.source.kind === 'kinesis' ? units : null,
      cores,
      rowsPerSecPerCore,
      overheadMs,
      noise: Math.round(noise * 1_000) / 1_000,
      capped,
      sustainable: Math.round(sustainable),
      capacity: Math.round(capacity),
      baseLoad: Math.round(baseLoad * 1_000) / 1_000,
    },
  };
}
