/**
 * Which progress rows were already read, among those the next read can return again (their
 * `ingested_at` is inside the re-read window). Per run it keeps batch-id ranges (runs count batches
 * up, so this is usually one range) and, for the newest batch id, the trigger times seen: idle
 * (no-data) progress events repeat a batch id with a new timestamp, and each one is a new row. The
 * set stays small and JSON-serializable however many rows pass.
 */

export interface SeenRun {
  /** Sorted, disjoint, inclusive batch-id ranges. */
  r: [number, number][];
  /** The newest batch id and the trigger times (epoch ms) of its rows. */
  f: { b: number; t: number[] } | null;
  /** Trigger times of rows without a batch id (Spark 2.1/2.2), newest last, capped. */
  n?: number[];
  /** Newest ingestion time (µs) of any row of the run. */
  last: number;
}

export type SeenState = Record<string, SeenRun>;

const MAX_TIMES = 200;

function pushCapped(list: number[], value: number): void {
  list.push(value);
  if (list.length > MAX_TIMES) list.shift();
}

export class SeenBatches {
  private readonly runs: Map<string, SeenRun>;

  constructor(state: SeenState = {}) {
    this.runs = new Map(
      Object.entries(state).map(([key, run]) => [
        key,
        { r: run.r.map(([lo, hi]) => [lo, hi] as [number, number]), f: run.f ? { b: run.f.b, t: run.f.t.slice() } : null, n: run.n?.slice(), last: run.last },
      ]),
    );
  }

  /** Records a row; returns false when it had been read already. */
  add(queryId: string, runId: string, batchId: number | null, eventMs: number, ingestedUs: number): boolean {
    const key = `${queryId}/${runId}`;
    let run = this.runs.get(key);
    if (!run) {
      run = { r: [], f: null, last: ingestedUs };
      this.runs.set(key, run);
    }
    if (batchId === null) {
      run.n ??= [];
      if (run.n.includes(eventMs)) return false;
      pushCapped(run.n, eventMs);
      run.last = Math.max(run.last, ingestedUs);
      return true;
    }
    const known = run.r.some(([lo, hi]) => batchId >= lo && batchId <= hi);
    if (known) {
      // A repeated batch id is new only as another trigger of the newest batch (idle events).
      if (!run.f || run.f.b !== batchId || run.f.t.includes(eventMs)) return false;
      pushCapped(run.f.t, eventMs);
      run.last = Math.max(run.last, ingestedUs);
      return true;
    }
    run.r.push([batchId, batchId]);
    run.r.sort((a, b) => a[0] - b[0]);
    const merged: [number, number][] = [];
    for (const range of run.r) {
      const previous = merged.at(-1);
      if (previous && range[0] <= previous[1] + 1) previous[1] = Math.max(previous[1], range[1]);
      else merged.push([range[0], range[1]]);
    }
    run.r = merged;
    if (!run.f || batchId > run.f.b) run.f = { b: batchId, t: [eventMs] };
    run.last = Math.max(run.last, ingestedUs);
    return true;
  }

  /** Forgets runs whose newest row was ingested before `cutoffUs`: no re-read can return them. */
  prune(cutoffUs: number): void {
    for (const [key, run] of this.runs) if (run.last < cutoffUs) this.runs.delete(key);
  }

  get size(): number {
    return this.runs.size;
  }

  toJSON(): SeenState {
    return Object.fromEntries(this.runs);
  }
}
