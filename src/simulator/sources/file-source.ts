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
  /** Each file's size varies by up to this share of rowsPerUnit either way (0: all equal). */
  private readonly spread: number;
  private readonly sizeSeed: number;
  /**
   * Cumulative rows at the end of file `base + i`, for the files not yet read; `baseRows` ends file
   * `base − 1` (what was read), so the list holds only what is waiting.
   */
  private ends: number[] = [];
  private base = 0;
  private baseRows = 0;
  private arrivedCount = 0;

  constructor(spec: FileSourceSpec, random: SeededRandom, startMs: number) {
    this.kind = spec.kind;
    const path = spec.path ?? 's3://acme-lake/bronze/events';
    this.description = spec.kind === 'delta' ? `DeltaSource[${path}]` : `CloudFilesSource[${path}]`;
    this.rowsPerUnit = Math.max(1, spec.rowsPerFile ?? 5_000);
    this.bytesPerFile = spec.bytesPerFile ?? 8 * 1024 * 1024;
    this.cap = spec.maxFilesPerTrigger === undefined ? 1_000 : spec.maxFilesPerTrigger;
    this.filesPerVersion = Math.max(1, spec.filesPerVersion ?? 10);
    this.countedAtEnd = spec.backlogCountedAt === 'end';
    this.spread = spec.rowsPerFileSpread ?? 0;
    this.reservoirId = random.uuid();
    // From the id already drawn: no draw of its own, so equal files leave a seed's stream as it was.
    this.sizeSeed = parseInt(this.reservoirId.slice(0, 8), 16);
    this.startedMs = startMs;
    // One task per file up to the cluster's parallelism; the simulator bounds it by cores.
    this.inputTasks = Number.MAX_SAFE_INTEGER;
  }

  /** Rows of file `index`: rowsPerUnit, varied by `spread` (a hash of the index, so reruns agree). */
  private fileRows(index: number): number {
    if (this.spread === 0) return this.rowsPerUnit;
    let h = (index * 2654435761 + this.sizeSeed) >>> 0;
    h = Math.imul(h ^ (h >>> 16), 2246822507) >>> 0;
    h = Math.imul(h ^ (h >>> 13), 3266489909) >>> 0;
    const u = ((h ^ (h >>> 16)) >>> 0) / 2 ** 32;
    return Math.max(1, Math.round(this.rowsPerUnit * (1 + this.spread * (2 * u - 1))));
  }

  /** Cumulative rows at the end of file `index` (from `base − 1` on; −1 ends at 0 rows). */
  private endRows(index: number): number {
    if (index < this.base) return index < 0 ? 0 : this.baseRows;
    while (this.ends.length <= index - this.base) {
      const prev = this.ends.length === 0 ? this.baseRows : this.ends[this.ends.length - 1]!;
      this.ends.push(prev + this.fileRows(this.base + this.ends.length));
    }
    return this.ends[index - this.base]!;
  }

  private filesArrived(): number {
    while (this.endRows(this.arrivedCount) <= this.rowsArrived) this.arrivedCount += 1;
    return this.arrivedCount;
  }

  /** Rows of files [from, to), `from` at least `base`. */
  private rowsOf(from: number, to: number): number {
    return to <= from ? 0 : this.endRows(to - 1) - this.endRows(from - 1);
  }

  receive(rows: number): void {
    if (rows > 0) this.rowsArrived += Math.round(rows);
  }

  availableRows(): number {
    const files = this.filesArrived() - this.filesConsumed;
    return this.rowsOf(this.filesConsumed, this.filesConsumed + (this.cap === null ? files : Math.min(files, this.cap)));
  }

  plan(): number {
    this.filesAtPlan = this.filesArrived();
    this.plannedStart = this.filesConsumed;
    const waiting = this.filesAtPlan - this.filesConsumed;
    const files = this.cap === null ? waiting : Math.min(waiting, this.cap);
    this.plannedEnd = this.filesConsumed + files;
    return this.rowsOf(this.plannedStart, this.plannedEnd);
  }

  commit(): void {
    this.filesConsumed = this.plannedEnd;
    // What was read is only its total now.
    this.baseRows = this.endRows(this.filesConsumed - 1);
    this.ends.splice(0, Math.max(0, this.filesConsumed - this.base));
    this.base = Math.max(this.base, this.filesConsumed);
  }

  backlogRows(): number {
    return this.rowsArrived - this.consumedRows();
  }

  arrivedRows(): number {
    return this.rowsArrived;
  }

  consumedRows(): number {
    return this.endRows(this.filesConsumed - 1);
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
    const bytes = Math.round((this.rowsOf(this.plannedEnd, Math.max(listed, this.plannedEnd)) / this.rowsPerUnit) * this.bytesPerFile);
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
