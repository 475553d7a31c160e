/**
 * One input of a query: a source, the arrival rate that feeds it, and the arrival log that dates its
 * rows. A query reads one channel, or several (the sides of a stream-stream join, a union).
 */

import { ArrivalLog } from './arrival-log.js';
import { expectedArrivals, type ArrivalRate } from './arrivals.js';
import type { SeededRandom } from './random.js';
import type { SimSource } from './sources/source.js';

export class InputChannel {
  private readonly log = new ArrivalLog();
  private arrivedUntilMs: number;
  private carry = 0;
  /** Rows the planned batch reads from this channel. */
  plannedRows = 0;
  /** Rows consumed before the planned batch (to date the rows it reads). */
  private consumedBefore = 0;

  constructor(
    readonly source: SimSource,
    readonly arrival: ArrivalRate,
    private readonly noise: number,
    startMs: number,
  ) {
    this.arrivedUntilMs = startMs;
    this.log.record(startMs, 0);
  }

  /** Integrates arrivals up to `toMs` (with noise) into the source. */
  advanceTo(toMs: number, random: SeededRandom): void {
    if (toMs <= this.arrivedUntilMs) return;
    const expected = expectedArrivals(this.arrival, this.arrivedUntilMs, toMs);
    const rows = expected * random.factor(this.noise) + this.carry;
    const whole = Math.max(0, Math.floor(rows));
    this.carry = Math.max(0, rows - whole);
    this.arrivedUntilMs = toMs;
    this.source.receive(whole, toMs);
    this.log.record(toMs, this.source.arrivedRows());
  }

  plan(timeMs: number): number {
    this.consumedBefore = this.source.consumedRows();
    this.plannedRows = this.source.plan(timeMs);
    return this.plannedRows;
  }

  /** Arrival times of the first and last row the planned batch reads (null when it reads none). */
  plannedArrivals(): { first: number; last: number } | null {
    if (this.plannedRows <= 0) return null;
    const first = this.log.arrivalTimeOf(this.consumedBefore);
    const last = this.log.arrivalTimeOf(this.consumedBefore + this.plannedRows - 1);
    return first === null || last === null ? null : { first, last };
  }

  commit(): void {
    this.source.commit();
    this.log.prune(this.source.consumedRows());
  }

  /** When the oldest row the planned batch leaves unread arrived; null when it leaves none. */
  oldestLeftUnreadAt(): number | null {
    const after = this.consumedBefore + this.plannedRows;
    return this.source.arrivedRows() > after ? this.log.arrivalTimeOf(after) : null;
  }

  backlogRows(): number {
    return this.source.backlogRows();
  }

  /** When the oldest unread row arrived; null when nothing waits. */
  oldestUnreadAt(): number | null {
    return this.source.backlogRows() > 0 ? this.log.arrivalTimeOf(this.source.consumedRows()) : null;
  }
}
