/**
 * `drawScenario(seed)`: one random draw, deterministic by seed. The family and the reporting mode
 * are drawn first, so forcing them (`--only`, `--mode`) leaves the rest of a seed's draw unchanged
 * when the forced values equal the drawn ones.
 */

import { SeededRandom } from '../random.js';
import { DEFAULT_START_MS } from '../spec.js';
import { capacityDrop, rampOverload, slowCatchUp, stepOverload } from './families-overload.js';
import { bursts, gcSpikes, idleGaps, nearCapacity, restartCatchUp, stall, utilization } from './families-quiet.js';
import { FAMILIES, REPORTING_MODES, type Family, type QueryFamily, type RandomQuery, type RandomScenario, type ReportingMode } from './types.js';

type FamilyDraw = (random: SeededRandom, mode: ReportingMode, startMs: number) => Omit<RandomQuery, 'seed'>;

const DRAWS: Record<QueryFamily, FamilyDraw> = {
  'step-overload': stepOverload,
  'ramp-overload': rampOverload,
  'capacity-drop': capacityDrop,
  'slow-catch-up': slowCatchUp,
  utilization,
  'near-capacity': nearCapacity,
  bursts,
  'gc-spikes': gcSpikes,
  'restart-catch-up': restartCatchUp,
  'idle-gaps': idleGaps,
  stall,
};

/** The lagging query of an interleaved log, and what runs beside it. */
const INTERLEAVED_LEAD: QueryFamily[] = ['step-overload', 'ramp-overload', 'capacity-drop'];
const INTERLEAVED_OTHERS: QueryFamily[] = ['utilization', 'near-capacity', 'bursts', 'step-overload'];

export interface DrawOptions {
  family?: Family;
  mode?: ReportingMode;
  /**
   * Delta and Auto Loader files whose rows vary by up to this share of their mean either way (0 to
   * 0.9), as real files do; set after the draw, so the rest of it is unchanged. A file cap then
   * reads a different number of rows in each batch. @defaultValue 0 (every file the same size)
   */
  fileSizeSpread?: number;
}

export function drawScenario(seed: number, options: DrawOptions = {}): RandomScenario {
  const random = new SeededRandom(seed);
  const drawnFamily = FAMILIES[random.int(FAMILIES.length)]!;
  const drawnMode = REPORTING_MODES[random.int(REPORTING_MODES.length)]!;
  const family = options.family ?? drawnFamily;
  const mode = options.mode ?? drawnMode;
  // Starts spread over a day so the timestamps differ between draws.
  const startMs = DEFAULT_START_MS + random.int(24 * 60) * 60_000;
  const make = (f: QueryFamily, k: number): RandomQuery => ({ ...DRAWS[f](random, mode, startMs), seed: seed * 8 + k });
  let queries: RandomQuery[];
  if (family === 'interleaved') {
    const count = 2 + random.int(3);
    queries = [make(INTERLEAVED_LEAD[random.int(INTERLEAVED_LEAD.length)]!, 0)];
    for (let k = 1; k < count; k++) queries.push(make(INTERLEAVED_OTHERS[random.int(INTERLEAVED_OTHERS.length)]!, k));
    // Active queries have distinct names (Spark refuses a second one with the same name).
    const seen = new Set<string>();
    queries.forEach((q, k) => {
      if (q.spec.name && seen.has(q.spec.name)) q.spec = { ...q.spec, name: `${q.spec.name}_${k}` };
      if (q.spec.name) seen.add(q.spec.name);
    });
  } else {
    queries = [make(family, 0)];
  }
  const spread = options.fileSizeSpread ?? 0;
  if (spread > 0) queries = queries.map((q) => withFileSizeSpread(q, spread));
  return { seed, family, mode, startMs, queries };
}

/** `query` with its files varying in size by `spread` when it reads a file source. */
function withFileSizeSpread(query: RandomQuery, spread: number): RandomQuery {
  const { source } = query.spec;
  if (source.kind !== 'delta' && source.kind !== 'autoloader') return query;
  return { ...query, spec: { ...query.spec, source: { ...source, rowsPerFileSpread: spread } } };
}
