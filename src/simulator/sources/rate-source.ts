/**
 * The `rate` source: it generates `rowsPerSecond` rows for every whole second elapsed, and its
 * offsets are those seconds (plain numbers, as `RateStreamV2` prints them).
 */

import type { RateSourceSpec } from '../spec.js';
import { sourceProgress, type SimSource, type SourceRenderContext } from './source.js';

export class RateSource implements SimSource {
  readonly kind = 'rate' as const;
  readonly description: string;
  readonly inputTasks: number;
  readonly rowsPerUnit = 1;
  cap: number | null = null;
  private readonly rowsPerSecond: number;
  private readonly startMs: number;
  private consumedSec = 0;
  private plannedStart = 0;
  private plannedEnd = 0;
  private nowSec = 0;

  constructor(spec: RateSourceSpec, startMs: number) {
    this.rowsPerSecond = spec.rowsPerSecond;
    this.inputTasks = spec.numPartitions ?? 8;
    this.startMs = startMs;
    this.description = `RateStreamV2[rowsPerSecond=${spec.rowsPerSecond}, rampUpTimeSeconds=0, numPartitions=${spec.numPartitions ?? 'default'}]`;
  }

  receive(_rows: number, timeMs: number): void {
    this.nowSec = Math.max(this.nowSec, Math.floor((timeMs - this.startMs) / 1_000));
  }

  availableRows(timeMs: number): number {
    const sec = Math.floor((timeMs - this.startMs) / 1_000);
    return Math.max(0, sec - this.consumedSec) * this.rowsPerSecond;
  }

  plan(timeMs: number): number {
    this.receive(0, timeMs);
    this.plannedStart = this.consumedSec;
    this.plannedEnd = this.nowSec;
    return (this.plannedEnd - this.plannedStart) * this.rowsPerSecond;
  }

  commit(): void {
    this.consumedSec = this.plannedEnd;
  }

  backlogRows(): number {
    return (this.nowSec - this.consumedSec) * this.rowsPerSecond;
  }

  arrivedRows(): number {
    return this.nowSec * this.rowsPerSecond;
  }

  consumedRows(): number {
    return this.consumedSec * this.rowsPerSecond;
  }

  render(ctx: SourceRenderContext): Record<string, unknown> {
    return sourceProgress(
      this.description,
      ctx.firstBatch ? null : this.plannedStart,
      this.plannedEnd,
      this.nowSec,
      ctx,
      undefined,
    );
  }
}
