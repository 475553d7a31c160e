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
    this.startedMs = startMs;
    // One task per file up to the cluster's parallelism; the simulator bounds it by cores.
    this.inputTasks = Number.MAX_SAFE_INTEGER;
  }

  private filesArrived(): number {
    return Math.floor(this.rowsArrived / this.rowsPerUnit);
  }

  receive(rows: number): void {
    if (rows > 0) this.rowsArrived += Math.round(rows);
  }

  availableRows(): number {
    const files = this.filesArrived() - this.filesConsumed;
    return (this.cap === null ? files : Math.min(files, this.cap)) * this.rowsPerUnit;
  }

  plan(): number {
    this.filesAtPlan = this.filesArrived();
    this.plannedStart = this.filesConsumed;
    const waiting = this.filesAtPlan - this.filesConsumed;
    const files = this.cap === null ? waiting : Math.min(waiting, this.cap);
    this.plannedEnd = this.filesConsumed + files;
    return files * this.rowsPerUnit;
  }

  commit(): void {
    this.filesConsumed = this.plannedEnd;
  }

  backlogRows(): number {
    return this.rowsArrived - this.filesConsumed * this.rowsPerUnit;
  }

  arrivedRows(): number {
    return this.rowsArrived;
  }

  consumedRows(): number {
    return this.filesConsumed * this.rowsPerUnit;
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
    const outstanding = Math.max(0, (this.countedAtEnd ? this.filesArrived() : this.filesAtPlan) - this.plannedEnd);
    const metrics = sortedMap<string>([
      ['numBytesOutstanding', javaLongToString(outstanding * this.bytesPerFile)],
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
