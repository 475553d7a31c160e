/**
 * Streams inside the stand-in: each is a batch generator (normally the simulator) played against the
 * scaled clock. A batch that ends at simulated time t is written at t into the progress table (as the
 * listener would), or into its pipeline's event log (`stream_progress` + `flow_progress`), and its job
 * keeps a RUNNING run. Some rows (or a pipeline flow's events) can be written late, to exercise the
 * reader's cursor.
 */
import type { EventLog } from './event-log.js';
import type { JobRuns } from './job-runs.js';
import type { ProgressTable } from './progress-table.js';

/** What the stand-in needs from a simulator. */
export interface BatchGenerator {
  next(): { json: string; endMs: number; progress: Record<string, unknown> };
}

export interface StreamOptions {
  generator: BatchGenerator;
  /** Progress table the listener writes to (`catalog.schema.table`); ignored for pipeline streams. */
  table?: string;
  /** The job whose run hosts the stream; a RUNNING run is started for it. */
  jobId?: number;
  /** Makes this a pipeline flow: progress goes to the pipeline's event log instead of a table. */
  pipelineId?: string;
  /** Fraction of rows (a pipeline flow: of batches' events) made visible late (0..1). @defaultValue 0 */
  lateFraction?: number;
  /** How late such rows or events become visible. @defaultValue 30_000 */
  lateByMs?: number;
}

interface Stream {
  key: string;
  options: StreamOptions;
  pending: ReturnType<BatchGenerator['next']> | null;
  written: number;
  stopped: boolean;
  runId?: number;
  random: () => number;
}

export interface StreamStatus {
  key: string;
  written: number;
  stopped: boolean;
  runId?: number;
}

/** Deterministic PRNG so late rows fall in the same places on every run. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sumSourceMetric(progress: Record<string, unknown>, names: string[]): number | undefined {
  let total: number | undefined;
  for (const source of (progress.sources as Record<string, unknown>[] | undefined) ?? []) {
    const metrics = (source?.metrics ?? {}) as Record<string, unknown>;
    for (const name of names) {
      const value = Number(metrics[name]);
      if (metrics[name] !== undefined && Number.isFinite(value)) total = (total ?? 0) + value;
    }
  }
  return total;
}

/** Bounds the catch-up work of one tick (a clock jumped far ahead). */
const MAX_BATCHES_PER_TICK = 50_000;

export class StreamDriver {
  private readonly streams = new Map<string, Stream>();
  private seed = 7;

  constructor(
    private readonly tables: Map<string, ProgressTable>,
    private readonly eventLog: EventLog,
    private readonly jobs: JobRuns,
  ) {}

  add(key: string, options: StreamOptions, nowMs: number): void {
    if (this.streams.has(key)) throw new Error(`stream ${key} already exists`);
    if (!options.pipelineId && (!options.table || !this.tables.has(options.table))) {
      throw new Error(`stream ${key}: unknown progress table ${options.table ?? '(none)'}`);
    }
    if (options.pipelineId && !this.eventLog.has(options.pipelineId)) throw new Error(`stream ${key}: unknown pipeline ${options.pipelineId}`);
    const stream: Stream = { key, options, pending: null, written: 0, stopped: false, random: mulberry32(this.seed++) };
    if (options.jobId !== undefined) {
      stream.runId = (this.jobs.activeRun(options.jobId) ?? this.jobs.startRun(options.jobId, nowMs)).run_id;
    }
    this.streams.set(key, stream);
  }

  /** Stops a stream; with `failure`, its job run ends FAILED with that state message. */
  stop(key: string, nowMs: number, failure?: string): void {
    const stream = this.streams.get(key);
    if (!stream || stream.stopped) return;
    stream.stopped = true;
    if (stream.runId !== undefined) {
      const run = this.jobs.get(stream.runId);
      if (run && run.end_time === 0) this.jobs.endRun(stream.runId, nowMs, failure ? 'FAILED' : 'CANCELED', failure ?? 'Run cancelled.');
    }
  }

  status(): StreamStatus[] {
    return [...this.streams.values()].map((stream) => ({ key: stream.key, written: stream.written, stopped: stream.stopped, runId: stream.runId }));
  }

  /** Writes every batch that has ended by `nowMs`. Returns how many were written. */
  tick(nowMs: number): number {
    let written = 0;
    for (const stream of this.streams.values()) {
      if (stream.stopped) continue;
      try {
        for (let guard = 0; guard < MAX_BATCHES_PER_TICK; guard += 1) {
          stream.pending ??= stream.options.generator.next();
          if (stream.pending.endMs > nowMs) break;
          this.publish(stream, stream.pending);
          stream.pending = null;
          stream.written += 1;
          written += 1;
        }
      } catch {
        // A faulty generator stops its own stream only; the others keep advancing.
        stream.stopped = true;
      }
    }
    this.eventLog.reveal(nowMs);
    return written;
  }

  private publish(stream: Stream, batch: ReturnType<BatchGenerator['next']>): void {
    const { options } = stream;
    const late = (options.lateFraction ?? 0) > 0 && stream.random() < options.lateFraction!;
    const lateByMs = late ? (options.lateByMs ?? 30_000) : 0;
    if (options.pipelineId) {
      this.publishToEventLog(options.pipelineId, batch, lateByMs);
      return;
    }
    this.tables.get(options.table!)!.insert(batch.json, batch.endMs, {
      ingestedAtMs: batch.endMs,
      visibleAfterMs: lateByMs,
    });
  }

  /** A batch's `stream_progress` and `flow_progress`, stamped when it ended, in the log `lateByMs` later. */
  private publishToEventLog(pipelineId: string, batch: ReturnType<BatchGenerator['next']>, lateByMs: number): void {
    // Event-log progress lacks the top-level row counts and rates (reference §2c).
    const { numInputRows: _rows, inputRowsPerSecond: _in, processedRowsPerSecond: _out, ...progress } = batch.progress;
    const flowName = typeof progress.name === 'string' ? progress.name : String(progress.id);
    const origin = { flow_name: flowName, flow_id: String(progress.id), update_id: String(progress.runId) };
    const append = (event: Record<string, unknown>) =>
      lateByMs > 0 ? this.eventLog.appendLate(pipelineId, event, batch.endMs, batch.endMs + lateByMs) : this.eventLog.append(pipelineId, event, batch.endMs);
    append({
      event_type: 'stream_progress',
      message: `Completed a streaming update of '${flowName}'.`,
      level: 'INFO',
      maturity_level: 'EVOLVING',
      origin,
      details: { stream_progress: { progress } },
    });
    const backlogBytes = sumSourceMetric(batch.progress, ['numBytesOutstanding', 'estimatedTotalBytesBehindLatest']);
    const backlogFiles = sumSourceMetric(batch.progress, ['numFilesOutstanding']);
    const metrics: Record<string, number> = {};
    if (typeof batch.progress.numInputRows === 'number') metrics.num_output_rows = batch.progress.numInputRows;
    if (backlogBytes !== undefined) metrics.backlog_bytes = backlogBytes;
    if (backlogFiles !== undefined) metrics.backlog_files = backlogFiles;
    append({
      event_type: 'flow_progress',
      message: `Flow '${flowName}' is RUNNING.`,
      level: 'METRICS',
      maturity_level: 'STABLE',
      origin,
      details: { flow_progress: { status: 'RUNNING', metrics } },
    });
  }
}
