/**
 * Cumulative arrivals over time, kept only as far back as the oldest unread row, so the simulator can
 * say when a given row arrived: the truth of "time behind" (age of the oldest unread row) and the
 * event times of the rows a batch reads.
 */
export class ArrivalLog {
  private times: number[] = [];
  private totals: number[] = [];

  record(timeMs: number, cumulativeRows: number): void {
    const n = this.times.length;
    if (n > 0 && this.totals[n - 1] === cumulativeRows) {
      // Nothing arrived: the previous point already says so; keep the list short in idle periods.
      if (n > 1 && this.totals[n - 2] === cumulativeRows) this.times[n - 1] = timeMs;
      else {
        this.times.push(timeMs);
        this.totals.push(cumulativeRows);
      }
      return;
    }
    this.times.push(timeMs);
    this.totals.push(cumulativeRows);
  }

  /** When row number `rowIndex` (0-based, cumulative) arrived; null when it has not arrived yet. */
  arrivalTimeOf(rowIndex: number): number | null {
    const n = this.totals.length;
    if (n === 0 || rowIndex >= this.totals[n - 1]!) return null;
    // First point whose total exceeds rowIndex; interpolate from the point before it.
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.totals[mid]! > rowIndex) hi = mid;
      else lo = mid + 1;
    }
    if (lo === 0) return this.times[0]!;
    const t0 = this.times[lo - 1]!;
    const a0 = this.totals[lo - 1]!;
    const t1 = this.times[lo]!;
    const a1 = this.totals[lo]!;
    return t0 + ((rowIndex + 0.5 - a0) / (a1 - a0)) * (t1 - t0);
  }

  /** Drops points no longer needed to date rows at or after `rowIndex`. */
  prune(rowIndex: number): void {
    let drop = 0;
    while (drop + 1 < this.totals.length && this.totals[drop + 1]! <= rowIndex) drop++;
    if (drop > 0) {
      this.times.splice(0, drop);
      this.totals.splice(0, drop);
    }
  }

  get size(): number {
    return this.times.length;
  }
}
