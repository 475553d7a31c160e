/**
 * The set of (query, run, batch) rows already read whose `ingested_at` is still inside the re-read
 * window. Per run it stores batch-id ranges (runs count batches up, so this is usually one range) and
 * the newest ingestion time, so the set stays small and JSON-serializable however many rows pass.
 */

export interface SeenRun {
  /** Sorted, disjoint, inclusive batch-id ranges. */
  r: [number, number][];
  /** Ingestion times (µs) of rows without a batch id (Spark 2.1/2.2), newest last, capped. */
  n?: number[];
  /** Newest ingestion time (µs) of any row of the run. */
  last: number;
}

export type SeenState = Record<string, SeenRun>;

const MAX_NULL_BATCH = 500;

export class SeenBatches {
  private readonly runs: Map<string, SeenRun>;

  constructor(state: SeenState = {}) {
    this.runs = new Map(Object.entries(state).map(([key, run]) => [key, { r: run.r.map(([lo, hi]) => [lo, hi] as [number, number]), n: run.n?.slice(), last: run.last }]));
  }

  /** Records a row; returns false when it had been seen already. */
  add(queryId: string, runId: string, batchId: number | null, ingestedUs: number): boolean {
    const key = `${queryId}/${runId}`;
    let run = this.runs.get(key);
    if (!run) {
      run = { r: [], last: ingestedUs };
      this.runs.set(key, run);
    }
    if (batchId === null) {
      run.n ??= [];
      if (run.n.includes(ingestedUs)) return false;
      run.n.push(ingestedUs);
      if (run.n.length > MAX_NULL_BATCH) run.n.shift();
      run.last = Math.max(run.last, ingestedUs);
      return true;
    }
    if (run.r.some(([lo, hi]) => batchId >= lo && batchId <= hi)) return false;
    run.r.push([batchId, batchId]);
    run.r.sort((a, b) => a[0] - b[0]);
    const merged: [number, number][] = [];
    for (const range of run.r) {
      const previous = merged.at(-1);
      if (previous && range[0] <= previous[1] + 1) previous[1] = Math.max(previous[1], range[1]);
      else merged.push([range[0], range[1]]);
    }
    run.r = merged;
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
