/**
 * A deterministic progress source over the simulator, for pipeline tests: every process that builds
 * it with the same settings sees the same batches, so worker child processes and the test agree.
 * Batches become visible when their end time has passed on the given clock; the cursor is the count
 * of batches already returned per query.
 */
import { parseProgress } from '../../../src/progress/parse-progress.js';
import type { Progress } from '../../../src/progress/types.js';
import { StreamSimulator, constantRate, steppedRate, type StreamSpec } from '../../../src/simulator/index.js';
import type { PollResult, ProgressSource } from '../../../src/sources/source.js';

export interface SimSourceSettings {
  /** How many queries; the first `laggingQueries` fall behind (arrival steps above capacity). */
  queries: number;
  laggingQueries: number;
  /** Simulated start of all streams. */
  startMs: number;
  /** Batches generated per query. */
  batches: number;
  seed?: number;
}

export function queryIdOf(i: number): string {
  return `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
}

export function simSpec(i: number, settings: SimSourceSettings): StreamSpec {
  const lagging = i < settings.laggingQueries;
  // 8 cores × 2,500 rows/s ≈ 20,000 rows/s capacity; lagging queries jump to 40,000 rows/s after 3 minutes.
  const arrival = lagging ? steppedRate(12_000, [{ atMs: settings.startMs + 180_000, rowsPerSec: 40_000 }]) : constantRate(9_000);
  return {
    id: queryIdOf(i),
    name: `orders_${lagging ? 'lagging' : 'steady'}_${i}`,
    arrival,
    processing: { rowsPerSecPerCore: 2_500, cores: 8 },
    triggerMs: 10_000,
    source: { kind: 'kafka', topic: `orders${i}`, partitions: 8, maxOffsetsPerTrigger: 200_000 },
  };
}

/** All batches of every query, parsed, with the time each appears. */
export function simulateAll(settings: SimSourceSettings): { queryId: string; progress: Progress; endMs: number }[][] {
  const out: { queryId: string; progress: Progress; endMs: number }[][] = [];
  for (let i = 0; i < settings.queries; i++) {
    const sim = new StreamSimulator(simSpec(i, settings), { startMs: settings.startMs, seed: (settings.seed ?? 7) + i });
    const list: { queryId: string; progress: Progress; endMs: number }[] = [];
    for (let b = 0; b < settings.batches; b++) {
      const batch = sim.next();
      const parsed = parseProgress(JSON.parse(batch.json));
      if (!parsed.ok) throw new Error(parsed.error);
      list.push({ queryId: parsed.progress.id, progress: parsed.progress, endMs: batch.endMs });
    }
    out.push(list);
  }
  return out;
}

export class SimulatedSource implements ProgressSource {
  readonly name = 'progress_table' as const;
  private readonly all: ReturnType<typeof simulateAll>;
  constructor(
    settings: SimSourceSettings,
    private readonly now: () => number = Date.now,
  ) {
    this.all = simulateAll(settings);
  }

  /** Every batch visible at `atMs`. */
  visible(atMs: number): number {
    return this.all.reduce((n, list) => n + list.filter((b) => b.endMs <= atMs).length, 0);
  }

  liveness(): null {
    return null;
  }

  async poll(cursor: unknown): Promise<PollResult<unknown>> {
    const seen = (cursor && typeof cursor === 'object' ? cursor : {}) as Record<string, number>;
    const now = this.now();
    const next: Record<string, number> = { ...seen };
    const progress: PollResult<unknown>['progress'] = [];
    for (const list of this.all) {
      const from = seen[list[0]!.queryId] ?? 0;
      let to = from;
      while (to < list.length && list[to]!.endMs <= now) to++;
      for (let k = from; k < to; k++) progress.push({ progress: list[k]!.progress, origin: { source: 'progress_table', ref: `sim:${k}` }, warnings: [] });
      next[list[0]!.queryId] = to;
    }
    return { progress, cursor: next, warnings: [], signals: [], more: false };
  }
}
