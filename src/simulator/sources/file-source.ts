/**
 * Delta table source and Auto Loader (`cloudFiles`): input arrives as whole files, admission is
 * `maxFilesPerTrigger`, and the backlog shows as `numFilesOutstanding` / `numBytesOutstanding`
 * as listed at planning, or after the batch (`backlogCountedAt`).
 */

import { javaLongToString } from '../java-format.js';
import type { SeededRandom } from '../random.js';
import type { FileSourceSpec } from '../spec.js';
import { sortedMap, sourceProgress, type SimSource, type SourceRenderContext } from './source.js';

export class FileSource implements SimSource {
  readonly kind: 'delta' | 'autoloader';
  readonly description: string;
  readonly inputTasks: number;
  cap: number | null;
  readonly rowsPerUnit: number;
  private readonly bytesPerFile: number;
  private readonly filesPerVersion: number;
  private readonly reservoirId: string;
  private readonly startedMs: number;
  private rowsArrived = 0;
  private filesConsumed = 0;
  private plannedStart = 0;
  private plannedEnd = 0;
  private filesAtPlan = 0;
  private readonly countedAtEnd: boolean;
  /**
   * Each file's rows vary by up to this share of `rowsPerUnit` either way (0: all equal), following
   * `wave`: a zero-sum pattern of SIZE_PERIOD files, so the rows of any run of files have a closed
   * form and a backlog of millions of files costs no more than one of a few.
   */
  private readonly spread: number;
  /** Sum of the size deviations of the first `k` files of each period, k = 0 … SIZE_PERIOD (0 at both ends). */
  private readonly wave: number[];

  constructor(spec: FileSourceSpec, random: SeededRandom, startMs: number) {
    this.kind = spec.kind;
    const path = spec.path ?? 's3://acme-lake/bronze/events';
    this.description = spec.kind === 'delta' ? `DeltaSource[${path}]` : `CloudFilesSource[${path}]`;
    this.rowsPerUnit = Math.max(1, spec.rowsPerFile ?? 5_000);
    this.bytesPerFile = spec.bytesPerFile ?? 8 * 1024 * 1024;
    this.cap = spec.maxFilesPerTrigger === undefined ? 1_000 : spec.maxFilesPerTrigger;
    this.filesPerVersion = Math.max(1, spec.filesPerVersion ?? 10);
    this.countedAtEnd = spec.backlogCountedAt === 'end';
    this.reservoirId = random.uuid();
    this.spread = spec.rowsPerFileSpread ?? 0;
    // From the id already drawn: no draw of its own, so equal files leave a seed's stream as it was.
    this.wave = this.spread > 0 ? sizeWave(parseInt(this.reservoirId.slice(0, 8), 16)) : [];
    this.startedMs = startMs;
    // One task per file up to the cluster's parallelism; the simulator bounds it by cores.
    this.inputTasks = Number.MAX_SAFE_INTEGER;
  }

  /** Rows of files [0, k): each `rowsPerUnit`, varied by `spread` along `wave`. */
  private rowsBefore(k: number): number {
    return Math.round(this.rowsPerUnit * (k + this.spread * this.wave[k % SIZE_PERIOD]!));
  }

  /** Rows of files [from, to). */
  private rowsOf(from: number, to: number): number {
    if (this.spread === 0) return (to - from) * this.rowsPerUnit;
    return this.rowsBefore(to) - this.rowsBefore(from);
  }

  private filesArrived(): number {
    const whole = Math.floor(this.rowsArrived / this.rowsPerUnit);
    if (this.spread === 0) return whole;
    // Within a few files of it: the wave's sums stay within a few files' worth.
    let k = whole;
    while (k > 0 && this.rowsBefore(k) > this.rowsArrived) k -= 1;
    while (this.rowsBefore(k + 1) <= this.rowsArrived) k += 1;
    return k;
  }

  receive(rows: number): void {
    if (rows > 0) this.rowsArrived += Math.round(rows);
  }

  availableRows(): number {
    const files = this.filesArrived() - this.filesConsumed;
    const admitted = this.cap === null ? files : Math.min(files, this.cap);
    return this.rowsOf(this.filesConsumed, this.filesConsumed + (this.spread === 0 ? admitted : Math.floor(admitted)));
  }

  plan(): number {
    this.filesAtPlan = this.filesArrived();
    this.plannedStart = this.filesConsumed;
    const waiting = this.filesAtPlan - this.filesConsumed;
    const files = this.cap === null ? waiting : Math.min(waiting, this.cap);
    // Whole files (a cap restarts may set is not checked to be one).
    this.plannedEnd = this.filesConsumed + (this.spread === 0 ? files : Math.floor(files));
    return this.rowsOf(this.plannedStart, this.plannedEnd);
  }

  commit(): void {
    this.filesConsumed = this.plannedEnd;
  }

  backlogRows(): number {
    return this.rowsArrived - this.consumedRows();
  }

  arrivedRows(): number {
    return this.rowsArrived;
  }

  consumedRows(): number {
    return this.spread === 0 ? this.filesConsumed * this.rowsPerUnit : this.rowsBefore(this.filesConsumed);
  }

  private offset(files: number): Record<string, unknown> {
    if (this.kind === 'autoloader') {
      return {
        seqNum: files,
        sourceVersion: 1,
        lastBackfillStartTimeMs: this.startedMs,
        lastBackfillFinishTimeMs: this.startedMs + 4_211,
      };
    }
    return {
      sourceVersion: 1,
      reservoirId: this.reservoirId,
      reservoirVersion: Math.floor(files / this.filesPerVersion),
      index: (files % this.filesPerVersion) - 1,
      isStartingVersion: false,
    };
  }

  render(ctx: SourceRenderContext): Record<string, unknown> {
    // Rendered once the batch ended: the files that arrived while it ran are listed by then.
    const listed = this.countedAtEnd ? this.filesArrived() : this.filesAtPlan;
    const outstanding = Math.max(0, listed - this.plannedEnd);
    // Bytes follow each file's rows.
    const bytes = this.spread === 0 ? outstanding * this.bytesPerFile : Math.round((this.rowsOf(this.plannedEnd, this.plannedEnd + outstanding) / this.rowsPerUnit) * this.bytesPerFile);
    const metrics = sortedMap<string>([
      ['numBytesOutstanding', javaLongToString(bytes)],
      ['numFilesOutstanding', javaLongToString(outstanding)],
    ]);
    return sourceProgress(
      this.description,
      ctx.firstBatch ? null : this.offset(this.plannedStart),
      this.offset(this.plannedEnd),
      null,
      ctx,
      metrics,
    );
  }
}

/** Files in one period of the size pattern (a prime: no cap or batch lines up with it). */
const SIZE_PERIOD = 97;

/**
 * Running sums of SIZE_PERIOD size deviations in [−1, 1] that add up to 0 over the period, drawn
 * from `seed` by a hash: wave[k] is the sum of the first k (wave[0] = wave[SIZE_PERIOD] = 0).
 */
function sizeWave(seed: number): number[] {
  const raw: number[] = [];
  for (let i = 0; i < SIZE_PERIOD; i += 1) {
    let h = (Math.imul(i + 1, 2654435761) + seed) >>> 0;
    h = Math.imul(h ^ (h >>> 16), 2246822507) >>> 0;
    h = Math.imul(h ^ (h >>> 13), 3266489909) >>> 0;
    raw.push((((h ^ (h >>> 16)) >>> 0) / 2 ** 32) * 2 - 1);
  }
  const mean = raw.reduce((a, b) => a + b, 0) / SIZE_PERIOD;
  const centred = raw.map((v) => v - mean);
  const scale = Math.max(...centred.map(Math.abs));
  const wave = [0];
  for (const v of centred) wave.push(wave[wave.length - 1]! + v / scale);
  wave[SIZE_PERIOD] = 0;
  return wave;
}
