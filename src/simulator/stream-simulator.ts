/**
 * A deterministic discrete-time model of one Structured Streaming query. `next()` advances simulated
 * time to the end of the next reported trigger (a micro-batch, or a no-data progress event) and
 * returns its progress exactly as Spark / Databricks prints it, plus the truth behind it.
 *
 * The physics of micro-batches: a batch reads what is available at its start
 * (up to the admission cap), runs for d = overhead + work, and the next trigger starts at the next
 * multiple of the trigger interval or, if the batch overran, as soon as it ends.
 */

import type { ArrivalRate } from './arrivals.js';
import { InputChannel } from './input-channel.js';
import { sparkTimestamp } from './java-format.js';
import { SeededRandom } from './random.js';
import { FileSource } from './sources/file-source.js';
import { KafkaSource } from './sources/kafka-source.js';
import { KinesisSource } from './sources/kinesis-source.js';
import { RateSource } from './sources/rate-source.js';
import { sortedMap, type SimSource } from './sources/source.js';
import { toSparkJson } from './spark-json.js';
import {
  DEFAULT_START_MS,
  resolveProcessing,
  resolveSink,
  resolveState,
  type ResolvedProcessing,
  type ResolvedSink,
  type SimEvent,
  type SimulatorOptions,
  type StreamSpec,
} from './spec.js';
import { SimulatorSpecError, SimulatorTimeError, validateSpec } from './spec-validation.js';
import { StateStoreModel, type StateBatchResult } from './state-store-model.js';
import type { RawProgress } from '../progress/types.js';
import { batchDurations } from './batch-durations.js';
import { PLATFORMS, type PlatformTraits } from './platform.js';
import type { BatchTruth, SimulatedBatch } from './simulated-batch.js';

export type { BatchTruth, SimulatedBatch };

/** Delay between an event happening and its row arriving at the source. */
const EVENT_TO_ARRIVAL_MS = 1_500;
/** Share of the per-row work done before the shuffle when the plan shuffles. */
const MAP_SIDE_SHARE = 0.5;
/** Idle polling step in the back-to-back regime (Spark polls every 10 ms; coarser here to stay cheap). */
const IDLE_POLL_MS = 100;
/** Bound on trigger checks per `next()` call so a pathological spec cannot spin forever. */
const MAX_TRIGGERS_PER_CALL = 1_000_000;
/** 9999-12-31: beyond it timestamps cannot be printed in Spark's format. */
const MAX_TIME_MS = Date.UTC(9999, 11, 31);

/** The keys a Spark 3.0 `StateOperatorProgress` prints, in its order. */
const LEGACY_STATE_KEYS = ['numRowsTotal', 'numRowsUpdated', 'memoryUsedBytes', 'customMetrics'];

function legacyStateOperator(op: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of LEGACY_STATE_KEYS) if (op[key] !== undefined) out[key] = op[key];
  return out;
}

export class StreamSimulator {
  readonly id: string;
  readonly name: string | null;
  private readonly random: SeededRandom;
  /** The query's inputs: the main source first, then any extra sources. */
  private readonly channels: InputChannel[];
  private readonly processing: ResolvedProcessing;
  private readonly sink: ResolvedSink;
  private readonly traits: PlatformTraits;
  private readonly triggerMs: number;
  private readonly noDataIntervalMs: number;
  private readonly state: StateStoreModel | null;
  private readonly events: SimEvent[];
  private readonly eventsDone = new Set<SimEvent>();

  private runId: string;
  private nowMs: number;
  private batchId = 0;
  private reportIndex = 0;
  private firstBatchEver = true;
  private lastTriggerStartMs = -1;
  private lastProgressEventMs: number;
  private firstOfRun = true;
  private pendingRepartitionMs = 0;
  private retrying: { rows: number[]; state: StateBatchResult | null } | null = null;
  private maxEventMs: number | null = null;
  /** The watermark the last micro-batch ran with (drives Spark's no-data micro-batches). */
  private lastBatchWatermarkMs: number | null = null;
  private readonly noDataMicroBatches: boolean;

  constructor(spec: StreamSpec, options: SimulatorOptions = {}) {
    validateSpec(spec);
    const startMs = options.startMs ?? DEFAULT_START_MS;
    this.random = new SeededRandom(options.seed ?? 1);
    this.id = spec.id ?? this.random.uuid();
    this.name = spec.name ?? null;
    this.runId = this.random.uuid();
    const toRate = (a: number | ArrivalRate): ArrivalRate => (typeof a === 'number' ? () => a : a);
    const makeSource = (source: StreamSpec['source']): SimSource =>
      source.kind === 'kafka'
        ? new KafkaSource(source, this.random)
        : source.kind === 'rate'
          ? new RateSource(source, startMs)
          : source.kind === 'kinesis'
            ? new KinesisSource(source, this.random)
            : new FileSource(source, this.random, startMs);
    const main = spec.source;
    this.channels = [
      new InputChannel(
        makeSource(main),
        main.kind === 'rate' ? () => main.rowsPerSecond : toRate(spec.arrival),
        main.kind === 'rate' ? 0 : (spec.arrivalNoise ?? 0.05),
        startMs,
      ),
      ...(spec.extraSources ?? []).map(
        (extra) => new InputChannel(makeSource(extra.source), toRate(extra.arrival), extra.arrivalNoise ?? 0.05, startMs),
      ),
    ];
    this.processing = resolveProcessing(spec.processing, spec.state !== undefined);
    this.sink = resolveSink(spec.sink);
    this.traits = PLATFORMS[spec.platform ?? 'dbr-17.1'];
    this.triggerMs = Math.max(0, spec.triggerMs ?? 0);
    this.noDataIntervalMs = spec.noDataProgressEventIntervalMs ?? 10_000;
    this.noDataMicroBatches = spec.noDataMicroBatches ?? true;
    this.state = spec.state
      ? new StateStoreModel(resolveState(spec.state), this.processing.shufflePartitions, startMs)
      : null;
    this.events = [...(spec.events ?? [])];
    this.nowMs = startMs;
    this.lastProgressEventMs = startMs;
  }

  /** Simulated time: the earliest start of the next trigger, epoch ms. */
  get timeMs(): number {
    return this.nowMs;
  }

  /** The batchId the next micro-batch will carry. */
  get nextBatchId(): number {
    return this.batchId;
  }

  /** Advances to the end of the next reported trigger and returns its progress and truth. */
  next(): SimulatedBatch {
    for (let guard = 0; guard < MAX_TRIGGERS_PER_CALL; guard++) {
      if (!(this.nowMs < MAX_TIME_MS)) throw new SimulatorTimeError(this.nowMs);
      this.applyRestart();
      const start = this.nowMs;
      this.advanceArrivals(start);
      // Batch 0 always runs (it fixes the starting offsets), even with no rows, as in Spark.
      const hasData =
        this.firstBatchEver || this.retrying !== null || this.channels.some((c) => c.source.availableRows(start) > 0);
      if (hasData || this.watermarkMoved()) return this.runBatch(start);
      const idle = this.idleTrigger(start);
      if (idle) return idle;
    }
    throw new SimulatorSpecError([
      `no progress reported within ${MAX_TRIGGERS_PER_CALL} trigger checks: no input arrives and noDataProgressEventIntervalMs is too long to report idleness`,
    ]);
  }

  /** Runs `count` batches (bounded) and returns them. */
  take(count: number): SimulatedBatch[] {
    const out: SimulatedBatch[] = [];
    for (let i = 0; i < count; i++) out.push(this.next());
    return out;
  }

  private eventFor<T extends SimEvent['type']>(type: T, batchId: number): Extract<SimEvent, { type: T }> | undefined {
    return this.events.find((e) => e.type === type && e.atBatch === batchId && !this.eventsDone.has(e)) as
      | Extract<SimEvent, { type: T }>
      | undefined;
  }

  private applyRestart(): void {
    const restart = this.eventFor('restart', this.batchId);
    if (!restart || this.retrying) return;
    this.eventsDone.add(restart);
    this.nowMs += restart.downtimeMs;
    this.newRun();
    if (restart.cap !== undefined) this.main.cap = restart.cap;
    if (restart.cores !== undefined) this.processing.cores = restart.cores;
    if (
      restart.stateStorePartitions !== undefined &&
      this.state &&
      restart.stateStorePartitions !== this.state.partitions
    ) {
      // The repartition runs before the first batch of the new run, and shows in that batch's durationMs.
      this.pendingRepartitionMs = this.state.repartitionMs();
      this.state.partitions = restart.stateStorePartitions;
      this.processing.shufflePartitions = restart.stateStorePartitions;
      this.nowMs += this.pendingRepartitionMs;
    }
  }

  private applyChange(startMs: number): void {
    const change = this.events.find(
      (e): e is Extract<SimEvent, { type: 'change' }> =>
        e.type === 'change' &&
        !this.eventsDone.has(e) &&
        (e.atMs !== undefined ? startMs >= e.atMs : e.atBatch === this.batchId),
    );
    if (!change) return;
    this.eventsDone.add(change);
    if (change.sinkWriteRowsPerSec !== undefined) this.sink.writeRowsPerSec = change.sinkWriteRowsPerSec;
    if (change.sinkCommitMs !== undefined) this.sink.commitMs = change.sinkCommitMs;
    if (change.rowsPerSecPerCore !== undefined) this.processing.rowsPerSecPerCore = change.rowsPerSecPerCore;
    if (this.state && change.stateCommitMsPerMillionUpdated !== undefined) {
      this.state.spec.commitMsPerMillionUpdated = change.stateCommitMsPerMillionUpdated;
    }
    if (this.state && change.stateCommitMsPerGb !== undefined) this.state.spec.commitMsPerGb = change.stateCommitMsPerGb;
    if (this.state && change.stateNewKeysPerRow !== undefined) this.state.spec.newKeysPerRow = change.stateNewKeysPerRow;
  }

  private newRun(): void {
    this.runId = this.random.uuid();
    this.firstOfRun = true;
    this.lastTriggerStartMs = -1;
  }

  /** The main source (restarts change its cap). */
  private get main(): SimSource {
    return this.channels[0]!.source;
  }

  private advanceArrivals(toMs: number): void {
    for (const channel of this.channels) channel.advanceTo(toMs, this.random);
  }

  /** Nominal arrival rate over all inputs at `timeMs`, rows/s. */
  private arrivalAt(timeMs: number): number {
    return this.channels.reduce((sum, c) => sum + c.arrival(timeMs), 0);
  }

  /** Stage parallelism caps the cluster: read tasks, and shuffle partitions when the plan shuffles. */
  private perRowMs(includeSink = true): number {
    const p = this.processing;
    const inputTasks = this.channels.reduce((sum, c) => sum + c.source.inputTasks, 0);
    const readTasks = Math.max(1, Math.min(p.cores, inputTasks));
    const rate = p.rowsPerSecPerCore;
    let ms: number;
    if (p.shuffles) {
      const shuffleTasks = Math.max(1, Math.min(p.cores, p.shufflePartitions));
      ms = (MAP_SIDE_SHARE / (rate * readTasks) + (1 - MAP_SIDE_SHARE) / (rate * shuffleTasks)) * 1_000;
    } else {
      ms = (1 / (rate * readTasks)) * 1_000;
    }
    if (includeSink && Number.isFinite(this.sink.writeRowsPerSec)) ms += 1_000 / this.sink.writeRowsPerSec;
    if (includeSink && this.state) {
      // Commit time per updated key is charged by the state model; counted here only for capacity.
      const s = this.state.spec;
      const updatedPerRow = Math.min(1, s.newKeysPerRow + s.updatesPerRow);
      ms += (updatedPerRow * s.commitMsPerMillionUpdated) / 1e6;
      if (s.provider === 'hdfs') ms += ((this.state.bytes / 1024 ** 3) * s.gcMsPerGbPerMillionRows) / 1e6;
    }
    return ms;
  }

  private fixedMs(): number {
    let ms = this.processing.overheadMs + this.sink.commitMs;
    if (this.state) {
      const s = this.state.spec;
      const gb = this.state.bytes / 1024 ** 3;
      ms += s.commitBaseMs + gb * s.commitMsPerGb + (this.state.rows / 1e6) * s.msPerMillionRows;
      if (s.provider === 'hdfs') ms += gb * s.gcMsPerGb;
    }
    return ms;
  }

  private nextTriggerMs(startMs: number, endMs: number): number {
    if (this.triggerMs <= 0) return endMs + 3;
    const aligned = Math.floor(startMs / this.triggerMs) * this.triggerMs + this.triggerMs;
    return Math.max(aligned, endMs);
  }

  private runBatch(startMs: number): SimulatedBatch {
    const retried = this.retrying !== null;
    const firstOfRun = this.firstOfRun;
    this.applyChange(startMs);
    const perChannel = this.retrying ? this.retrying.rows : this.channels.map((c) => c.plan(startMs));
    const rows = perChannel.reduce((a, b) => a + b, 0);
    const p = this.processing;
    const overhead = p.overheadMs * this.random.factor(p.noise / 2);
    const computeMs = rows * this.perRowMs(false) * this.random.factor(p.noise);

    // Event times of the rows read: they arrived between the earliest and the latest of these points.
    const spans = this.channels.map((c) => c.plannedArrivals()).filter((x) => x !== null);
    const firstRowAt = spans.length > 0 ? Math.min(...spans.map((x) => x.first)) : null;
    const lastRowAt = spans.length > 0 ? Math.max(...spans.map((x) => x.last)) : null;
    const maxEventMs = lastRowAt !== null ? lastRowAt - EVENT_TO_ARRIVAL_MS : null;
    const watermarkMs = this.currentWatermarkMs();
    this.lastBatchWatermarkMs = watermarkMs;
    let stateResult: StateBatchResult | null = null;
    if (this.state) {
      const minEventMs = firstRowAt !== null ? firstRowAt - EVENT_TO_ARRIVAL_MS : startMs;
      stateResult = this.retrying?.state ?? this.state.apply(rows, minEventMs, maxEventMs ?? startMs, watermarkMs);
    }
    const gc = this.eventFor('gc', this.batchId);
    const gcPauseMs = (gc?.pauseMs ?? 0) + (stateResult?.gcMs ?? 0);
    if (gc) this.eventsDone.add(gc);
    const stall = this.eventFor('stall', this.batchId);
    if (stall) this.eventsDone.add(stall);
    const stallMs = stall?.durationMs ?? 0;
    const stateMs = stateResult ? stateResult.workMs + stateResult.commitMs : 0;
    const sinkWriteMs = Number.isFinite(this.sink.writeRowsPerSec) ? (rows / this.sink.writeRowsPerSec) * 1_000 : 0;
    const sinkCommitMs = this.sink.commitMs * this.random.factor(p.noise * 2) + sinkWriteMs * this.random.factor(p.noise);

    const repartitionMs = this.pendingRepartitionMs;
    this.pendingRepartitionMs = 0;
    const { entries: durations, triggerExecutionMs } = batchDurations({
      overheadMs: overhead,
      addBatchMs: computeMs + stateMs + gcPauseMs + stallMs + sinkCommitMs,
      commitBatchMs: this.traits.databricks ? sinkCommitMs : null,
      repartitionMs,
    });
    const batchDurationMs = triggerExecutionMs + 1;
    const endMs = startMs + batchDurationMs;
    this.advanceArrivals(endMs);

    const eventTime = this.eventTime(firstRowAt, lastRowAt, watermarkMs);
    if (maxEventMs !== null) this.maxEventMs = Math.max(this.maxEventMs ?? maxEventMs, maxEventMs);

    const progress = this.render({
      startMs,
      batchDurationMs,
      rows: perChannel,
      durations,
      eventTime,
      firstBatch: this.firstBatchEver,
    });

    // A retry event: this batch is reported, then the run fails before its commit is durable; the
    // restarted run replays the same offset range under the same batchId.
    const retry = retried ? undefined : this.eventFor('retry', this.batchId);
    const capacity = 1_000 / this.perRowMs();
    const admission = this.admissionRate();
    const arrivalRate = this.arrivalAt(startMs);
    const truthBatchId = this.batchId;
    if (retry) {
      this.eventsDone.add(retry);
      this.retrying = { rows: perChannel, state: stateResult };
      this.nowMs = endMs + (retry.downtimeMs ?? 30_000);
      this.newRun();
      this.lastProgressEventMs = endMs;
    } else {
      for (const channel of this.channels) channel.commit();
      this.retrying = null;
      this.firstBatchEver = false;
      this.batchId += 1;
      this.firstOfRun = false;
      this.lastTriggerStartMs = startMs;
      this.lastProgressEventMs = endMs;
      this.nowMs = this.nextTriggerMs(startMs, endMs);
    }
    const truth = this.truth({
      kind: 'data',
      batchId: truthBatchId,
      firstOfRun,
      retried,
      startMs,
      endMs,
      rows,
      arrivalRate,
      capacity,
      admission,
      gcPauseMs,
      repartitionMs,
      stallMs,
    });
    return { progress, json: toSparkJson(progress), endMs, truth };
  }

  /**
   * The most rows per second the admission caps let through: full batches every max(T, their
   * duration); null when any input is uncapped.
   */
  private admissionRate(): number | null {
    if (this.channels.some((c) => c.source.cap === null || c.source.kind === 'rate')) return null;
    const capRows = this.channels.reduce((sum, c) => sum + c.source.cap! * c.source.rowsPerUnit, 0);
    const d = this.fixedMs() + capRows * this.perRowMs();
    return capRows / (Math.max(this.triggerMs, d) / 1_000);
  }

  /** λ / admitted rate of the most overloaded capped input (0 when all are uncapped). */
  private cappedLoad(atMs: number): number {
    let worst = 0;
    for (const c of this.channels) {
      if (c.source.cap === null || c.source.kind === 'rate') continue;
      const capRows = c.source.cap * c.source.rowsPerUnit;
      const d = this.fixedMs() + capRows * this.perRowMs();
      const admitted = capRows / (Math.max(this.triggerMs, d) / 1_000);
      worst = Math.max(worst, c.arrival(atMs) / admitted);
    }
    return worst;
  }

  private currentWatermarkMs(): number | null {
    const w = this.state?.spec.watermarkMs ?? null;
    if (w === null) return null;
    return this.maxEventMs === null ? 0 : Math.max(0, this.maxEventMs - w);
  }

  private eventTime(
    firstRowAt: number | null,
    lastRowAt: number | null,
    watermarkMs: number | null,
  ): Record<string, string> | undefined {
    if (watermarkMs === null) return undefined;
    const entries: [string, string][] = [['watermark', sparkTimestamp(watermarkMs)]];
    if (firstRowAt !== null && lastRowAt !== null) {
      const min = firstRowAt - EVENT_TO_ARRIVAL_MS;
      const max = lastRowAt - EVENT_TO_ARRIVAL_MS;
      entries.push(['avg', sparkTimestamp((min + max) / 2)], ['max', sparkTimestamp(max)], ['min', sparkTimestamp(min)]);
    }
    return sortedMap(entries);
  }

  /**
   * Spark runs a micro-batch without new data when a stateful query's watermark has moved since its
   * last batch (`spark.sql.streaming.noDataMicroBatches.enabled`), so expired state is evicted and
   * emitted; that batch takes a batchId like any other.
   */
  private watermarkMoved(): boolean {
    if (!this.noDataMicroBatches || !this.state || this.state.spec.watermarkMs === null) return false;
    const current = this.currentWatermarkMs();
    return current !== null && current !== this.lastBatchWatermarkMs;
  }

  private idleTrigger(startMs: number): SimulatedBatch | null {
    // Idle triggers take a few ms, sometimes 0 (then processedRowsPerSecond is 0/0 and omitted).
    const triggerMs = this.random.int(5);
    const endMs = startMs + triggerMs;
    const due = endMs - this.lastProgressEventMs >= this.noDataIntervalMs;
    let batch: SimulatedBatch | null = null;
    if (due) {
      for (const channel of this.channels) channel.plan(startMs);
      this.state?.idle();
      const progress = this.render({
        startMs,
        batchDurationMs: triggerMs,
        rows: this.channels.map(() => 0),
        durations: [
          ['latestOffset', Math.max(0, triggerMs - 1)],
          ['triggerExecution', triggerMs],
        ],
        eventTime: this.eventTime(null, null, this.currentWatermarkMs()),
        firstBatch: this.firstBatchEver,
      });
      this.lastProgressEventMs = endMs;
      const truth = this.truth({
        kind: 'no-data',
        batchId: this.batchId,
        firstOfRun: this.firstOfRun,
        retried: false,
        startMs,
        endMs,
        rows: 0,
        arrivalRate: this.arrivalAt(startMs),
        capacity: 1_000 / this.perRowMs(),
        admission: this.admissionRate(),
        gcPauseMs: 0,
        repartitionMs: 0,
        stallMs: 0,
      });
      batch = { progress, json: toSparkJson(progress), endMs, truth };
    }
    this.firstOfRun = false;
    this.lastTriggerStartMs = startMs;
    this.nowMs = this.triggerMs > 0 ? this.nextTriggerMs(startMs, endMs) : endMs + IDLE_POLL_MS;
    return batch;
  }

  private rate(rows: number, seconds: number): number | undefined {
    const value = rows / seconds;
    if (!Number.isFinite(value)) return undefined;
    return this.traits.roundRates ? Math.round(value * 10) / 10 : value;
  }

  private render(b: {
    startMs: number;
    batchDurationMs: number;
    /** Rows read from each input channel. */
    rows: number[];
    durations: [string, number][];
    eventTime: Record<string, string> | undefined;
    firstBatch: boolean;
  }): RawProgress {
    const sinceLast =
      this.lastTriggerStartMs >= 0 && b.startMs > this.lastTriggerStartMs
        ? (b.startMs - this.lastTriggerStartMs) / 1_000
        : Infinity;
    // Top-level rows and rates are the sums over the sources, as Spark computes them.
    const total = b.rows.reduce((a, x) => a + x, 0);
    const inputRate = this.rate(total, sinceLast);
    const processedRate = this.rate(total, b.batchDurationMs / 1_000);
    const out: RawProgress = {
      id: this.id,
      runId: this.runId,
      name: this.name,
      timestamp: sparkTimestamp(b.startMs),
      batchId: this.batchId,
    };
    if (this.traits.batchDuration) out.batchDuration = b.batchDurationMs;
    out.numInputRows = total;
    if (inputRate !== undefined) out.inputRowsPerSecond = inputRate;
    if (processedRate !== undefined) out.processedRowsPerSecond = processedRate;
    const durationMs = sortedMap(b.durations);
    if (durationMs) out.durationMs = durationMs;
    if (b.eventTime) out.eventTime = b.eventTime;
    const stateOperator = this.state?.render();
    out.stateOperators = stateOperator ? [stateOperator] : [];
    out.sources = this.channels.map((channel, i) => {
      const source = channel.source.render({
        rows: b.rows[i] ?? 0,
        inputRowsPerSecond: this.rate(b.rows[i] ?? 0, sinceLast),
        processedRowsPerSecond: this.rate(b.rows[i] ?? 0, b.batchDurationMs / 1_000),
        firstBatch: b.firstBatch,
        latestAfterBatch: this.traits.latestAfterBatch,
        databricks: this.traits.databricks,
        reportMs: b.startMs + b.batchDurationMs,
        oldestUnreadAtMs: channel.oldestLeftUnreadAt(),
      });
      if (!this.traits.sourceBacklogKeys) {
        delete source.latestOffset;
        delete source.metrics;
      }
      return source;
    });
    if (this.traits.legacyStateOperators) out.stateOperators = (out.stateOperators as Record<string, unknown>[]).map(legacyStateOperator);
    const outputRows =
      this.sink.kind === 'delta' || this.sink.kind === 'foreachBatch'
        ? -1
        : stateOperator
          ? (stateOperator.numRowsUpdated as number)
          : total;
    out.sink = { description: this.sink.description, numOutputRows: outputRows };
    return out;
  }

  private truth(t: {
    kind: 'data' | 'no-data';
    batchId: number;
    firstOfRun: boolean;
    retried: boolean;
    startMs: number;
    endMs: number;
    rows: number;
    arrivalRate: number;
    capacity: number;
    admission: number | null;
    gcPauseMs: number;
    repartitionMs: number;
    stallMs: number;
  }): BatchTruth {
    const backlogRows = this.channels.reduce((sum, c) => sum + c.backlogRows(), 0);
    const waiting = this.channels.map((c) => c.oldestUnreadAt()).filter((x) => x !== null);
    const oldest = waiting.length > 0 ? Math.min(...waiting) : null;
    const sustainable = t.admission === null ? t.capacity : Math.min(t.capacity, t.admission);
    // With several inputs, one capped input can fall behind while the total stays within the cluster.
    const load = Math.max(sustainable > 0 ? t.arrivalRate / sustainable : Infinity, this.cappedLoad(t.startMs));
    return {
      index: this.reportIndex++,
      kind: t.kind,
      batchId: t.batchId,
      runId: this.runId,
      firstOfRun: t.firstOfRun,
      retried: t.retried,
      startMs: t.startMs,
      endMs: t.endMs,
      rows: t.rows,
      arrivalRate: t.arrivalRate,
      capacityRowsPerSec: t.capacity,
      admissionRowsPerSec: t.admission,
      sustainableRowsPerSec: sustainable,
      loadFactor: load,
      backlogRows,
      timeBehindSec: oldest === null ? 0 : Math.max(0, (t.endMs - oldest) / 1_000),
      stateRows: this.state?.rows ?? 0,
      stateBytes: this.state?.bytes ?? 0,
      gcPauseMs: t.gcPauseMs,
      repartitionMs: t.repartitionMs,
      stallMs: t.stallMs,
    };
  }
}
