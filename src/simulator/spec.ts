/**
 * What a simulated streaming query is: its input, its capacity, its trigger, its source, state and
 * sink, the platform that prints its progress, and the events of its life (restarts, retries, stalls,
 * GC pauses). Defaults are documented where each option is declared; `resolveSpec` applies them.
 */

import type { ArrivalRate } from './arrivals.js';

/** Which runtime prints the progress: decides `batchDuration`, Databricks-only keys, Kafka backlog semantics. */
export type Platform =
  /**
   * Databricks Runtime 17.1+: latest Kafka offsets read after each batch, so what arrived while the
   * batch ran shows as behind under steady input. Modelled as read at the batch's end: λ × d
   * offsets behind. Not the reference's "about λ × max(T, d)" (detection.md), on purpose: the
   * Databricks page it rests on says only that 17.1+ fetches the latest offsets "after each
   * micro-batch completes", and a batch planned at its start reads up to the offsets available
   * then, so at completion exactly what arrived during the batch (λ × d) is unread; the rows that
   * arrive in the idle T − d before the next trigger are only in the next batch, whose own report
   * again shows λ × d. λ × max(T, d) is the backlog just before the next plan, which no progress
   * report prints (it would take a planner that reads against offsets prefetched at the previous
   * batch's end, which nothing documents). With T ≤ d the two agree. The consistency tests check
   * behind = truth backlog = λ × d; the engine's steady-state allowances (about one interval
   * behind) cover both readings.
   */
  | 'dbr-17.1'
  /** Databricks Runtime ≤ 17.0: latest Kafka offsets read at planning; an uncapped batch reads 0 behind. */
  | 'dbr-17.0'
  /** Open-source Spark 3.5: no `batchDuration`, no Databricks keys, planning-time latest offsets. */
  | 'spark-3.5'
  /** Open-source Spark 4.0: `batchDuration` present, rates rounded to one decimal. */
  | 'spark-4.0'
  /**
   * Spark 2.4 / 3.0-era reports: no `batchDuration`, no Databricks keys, sources without a
   * `latestOffset` key and without `metrics` (both came in Spark 3.1), state operators with only
   * `numRowsTotal`, `numRowsUpdated`, `memoryUsedBytes` and `customMetrics`. The backlog is
   * invisible in the report: only batch durations, rates and offsets read say a query falls behind.
   */
  | 'spark-3.0';

export interface KafkaSourceSpec {
  kind: 'kafka';
  /** @defaultValue "events" */
  topic?: string;
  /** @defaultValue 8 */
  partitions?: number;
  /** Kafka `minPartitions`: splits offset ranges into more Spark tasks. @defaultValue undefined (one task per partition) */
  minPartitions?: number;
  /** `maxOffsetsPerTrigger`; null = uncapped. @defaultValue null */
  maxOffsetsPerTrigger?: number | null;
  /** Relative skew of partition shares (0 = even). @defaultValue 0.1 */
  skew?: number;
  /** First offset of every partition. @defaultValue 1000000 */
  startingOffset?: number;
  /** Average record size for `estimatedTotalBytesBehindLatest`. @defaultValue 450 */
  bytesPerRow?: number;
  /**
   * Print `latestOffset` equal to `endOffset` (the planning-time view of an uncapped batch) while the
   * `*OffsetsBehindLatest` / `estimatedTotalBytesBehindLatest` metrics keep the platform's reading
   * (on `dbr-17.1`: the real backlog after the batch). Some connectors and runtimes print exactly
   * that, so the offsets say 0 behind while the metrics say otherwise. @defaultValue false
   */
  latestOffsetAsEnd?: boolean;
}

/**
 * The Databricks Kinesis connector (`KinesisV2[stream]`): offsets are a list of shard positions,
 * `latestOffset` is null, and the backlog is time, not records: `avgMsBehindLatest`,
 * `maxMsBehindLatest`, `minMsBehindLatest` (strings). Modelled from the truth: a shard's ms behind is
 * the age, when the batch ends, of the oldest record the batch left unread (0 when it read all).
 */
export interface KinesisSourceSpec {
  kind: 'kinesis';
  /** @defaultValue "events" */
  stream?: string;
  /** Open shards; one Spark task each. @defaultValue 4 */
  shards?: number;
  /** Average record size, for `numProcessedBytes`. @defaultValue 450 */
  bytesPerRow?: number;
}

export interface FileSourceSpec {
  kind: 'delta' | 'autoloader';
  /** Table path or input directory in the description. @defaultValue "s3://acme-lake/bronze/events" */
  path?: string;
  /** Rows per arriving file (their mean when `rowsPerFileSpread` is set). @defaultValue 5000 */
  rowsPerFile?: number;
  /** Each file's rows vary by up to this share of `rowsPerFile` either way (0 to 0.9). @defaultValue 0 */
  rowsPerFileSpread?: number;
  /** Bytes per arriving file. @defaultValue 8388608 (8 MiB) */
  bytesPerFile?: number;
  /** `maxFilesPerTrigger`; Delta and Auto Loader default to 1000. @defaultValue 1000 */
  maxFilesPerTrigger?: number | null;
  /** Files per upstream Delta commit (drives `reservoirVersion`/`index`). @defaultValue 10 */
  filesPerVersion?: number;
  /**
   * When the files waiting are counted: `planning`, the files the batch left; `end`, after the batch
   * (Auto Loader's asynchronous listing, a Delta table's newest version), so what arrived while it
   * ran is waiting too: a standing backlog of about one batch duration of input. @defaultValue "planning"
   */
  backlogCountedAt?: 'planning' | 'end';
}

export interface RateSourceSpec {
  kind: 'rate';
  /** Rows per second the rate source generates (λ is ignored for this source). */
  rowsPerSecond: number;
  /** @defaultValue 8 */
  numPartitions?: number;
}

export type SourceSpec = KafkaSourceSpec | FileSourceSpec | RateSourceSpec | KinesisSourceSpec;

export interface ExtraSourceSpec {
  source: KafkaSourceSpec | FileSourceSpec;
  /** Arrival rate of this input, rows/s: a number or a function of simulated time. */
  arrival: number | ArrivalRate;
  /** @defaultValue 0.05 */
  arrivalNoise?: number;
}

export interface StateSpec {
  /** @defaultValue "stateStoreSave" */
  operator?: 'stateStoreSave' | 'dedupe' | 'symmetricHashJoin';
  /** RocksDB or the default in-memory HDFS-backed provider. @defaultValue "rocksdb" */
  provider?: 'rocksdb' | 'hdfs';
  /** Event-time delay of `withWatermark` plus the window length: keys older than this expire. null = no watermark. @defaultValue null */
  watermarkMs?: number | null;
  /** Fraction of input rows that create a new state key. @defaultValue 0.2 */
  newKeysPerRow?: number;
  /** Fraction of input rows that update an existing key. @defaultValue 0.3 */
  updatesPerRow?: number;
  /** State bytes per key. @defaultValue 200 */
  bytesPerRow?: number;
  /** Keys already in state when the simulation starts. @defaultValue 0 */
  initialRows?: number;
  /** State commit time per batch, ms. @defaultValue 40 */
  commitBaseMs?: number;
  /** Extra commit time per million updated keys, ms. @defaultValue 300 */
  commitMsPerMillionUpdated?: number;
  /** Extra commit time per GB of state (snapshot upload, compaction), ms. @defaultValue 0 */
  commitMsPerGb?: number;
  /** Batch time that grows with the total state (lookups, in-memory snapshot copies), ms per million keys. @defaultValue 20 */
  msPerMillionRows?: number;
  /** GC pause per GB of in-memory state on the HDFS provider, ms per batch. @defaultValue 4000 */
  gcMsPerGb?: number;
  /**
   * GC time per GB of in-memory state per million rows processed (HDFS provider): with a large live
   * heap every allocation costs more collection work, so throughput falls as the state grows.
   * @defaultValue 0
   */
  gcMsPerGbPerMillionRows?: number;
  /** Repartition time per GB of state, ms. @defaultValue 30000 */
  repartitionMsPerGb?: number;
  /** Fixed part of a repartition, ms. @defaultValue 20000 */
  repartitionBaseMs?: number;
}

export interface SinkSpec {
  /** @defaultValue "delta" */
  kind?: 'delta' | 'foreachBatch' | 'kafka' | 'console';
  /** @defaultValue a realistic description for the kind */
  description?: string;
  /**
   * Write throughput of the sink, rows/s. The write time is part of `addBatch`, and on Databricks it
   * also shows in `commitBatch` (the sink-side time of the batch), so a slow sink is visible as
   * `commitBatch` dominating `addBatch`. @defaultValue Infinity
   */
  writeRowsPerSec?: number;
  /** Time to commit the written data (Databricks `commitBatch`), ms. @defaultValue 250 */
  commitMs?: number;
}

export interface ProcessingSpec {
  /** Rows per second one core processes in busy time. */
  rowsPerSecPerCore: number;
  /** Cores of the cluster. @defaultValue 8 */
  cores?: number;
  /** Fixed per-batch time outside the data work (planning, WAL, commit log), ms. @defaultValue 1200 */
  overheadMs?: number;
  /** Relative noise of the processing time. @defaultValue 0.04 */
  noise?: number;
  /** Shuffle partitions (`spark.sql.shuffle.partitions`) when the plan shuffles. @defaultValue 200 */
  shufflePartitions?: number;
  /** Whether the plan has a shuffle stage (always true with state). @defaultValue true when `state` is set */
  shuffles?: boolean;
}

export type SimEvent =
  /** The run stops after batch `atBatch − 1`; after `downtimeMs` a new run (new runId) starts with batch `atBatch`. */
  | {
      type: 'restart';
      atBatch: number;
      downtimeMs: number;
      /** New `maxOffsetsPerTrigger` (Kafka) or `maxFilesPerTrigger` (files); null removes the cap. */
      cap?: number | null;
      /** New `spark.sql.streaming.stateStore.partitions`: triggers a state repartition before the first batch. */
      stateStorePartitions?: number;
      /** New core count. */
      cores?: number;
    }
  /** Batch `atBatch` is reported, then the run fails before its commit; it restarts and reruns the same batchId. */
  | { type: 'retry'; atBatch: number; downtimeMs?: number }
  /** Batch `atBatch` hangs for `durationMs` (a stuck task or sink) before it completes. */
  | { type: 'stall'; atBatch: number; durationMs: number }
  /** A GC pause inside batch `atBatch`. */
  | { type: 'gc'; atBatch: number; pauseMs: number }
  /**
   * From batch `atBatch` on, the running query's environment changes without a restart: a sink that
   * slows down, state commits that slow down (throttled checkpoint storage), fewer healthy executors.
   */
  | {
      type: 'change';
      atBatch: number;
      /**
       * Apply at the first batch that starts at or after this time (epoch ms) instead, whatever its
       * batchId: executors come and go by the clock, not by batch count. @defaultValue undefined (use `atBatch`)
       */
      atMs?: number;
      sinkWriteRowsPerSec?: number;
      sinkCommitMs?: number;
      stateCommitMsPerMillionUpdated?: number;
      stateCommitMsPerGb?: number;
      stateNewKeysPerRow?: number;
      rowsPerSecPerCore?: number;
    };

export interface StreamSpec {
  /** Query id (stable across restarts). @defaultValue a UUID drawn from the seed */
  id?: string;
  /** @defaultValue null */
  name?: string | null;
  /** Arrival rate, rows/s: a number or a function of simulated time (epoch ms). */
  arrival: number | ArrivalRate;
  /** Relative noise of arrivals per interval. @defaultValue 0.05 */
  arrivalNoise?: number;
  processing: ProcessingSpec;
  /** Processing-time trigger interval, ms; 0 = back-to-back (the default trigger). @defaultValue 0 */
  triggerMs?: number;
  source: SourceSpec;
  /**
   * More inputs read by the same query (the other side of a stream-stream join, a union), each
   * with its own arrival rate; `sources[]` lists them after the main one. @defaultValue none
   */
  extraSources?: ExtraSourceSpec[];
  state?: StateSpec;
  sink?: SinkSpec;
  /** @defaultValue "dbr-17.1" */
  platform?: Platform;
  /**
   * `spark.sql.streaming.noDataMicroBatches.enabled`: a stateful query with a watermark runs one
   * micro-batch without data when its watermark has moved, to evict expired state. @defaultValue true
   */
  noDataMicroBatches?: boolean;
  /** `spark.sql.streaming.noDataProgressEventInterval`, ms. @defaultValue 10000 */
  noDataProgressEventIntervalMs?: number;
  events?: SimEvent[];
}

export interface SimulatorOptions {
  /** Simulated start time, epoch ms. @defaultValue 2026-09-14T10:00:00.000Z */
  startMs?: number;
  /** PRNG seed. @defaultValue 1 */
  seed?: number;
}

export const DEFAULT_START_MS = Date.UTC(2026, 8, 14, 10, 0, 0);

export type ResolvedState = Required<Omit<StateSpec, 'watermarkMs'>> & { watermarkMs: number | null };
export type ResolvedSink = Required<SinkSpec>;
export type ResolvedProcessing = Required<ProcessingSpec>;

export function resolveState(state: StateSpec): ResolvedState {
  return {
    operator: state.operator ?? 'stateStoreSave',
    provider: state.provider ?? 'rocksdb',
    watermarkMs: state.watermarkMs ?? null,
    newKeysPerRow: state.newKeysPerRow ?? 0.2,
    updatesPerRow: state.updatesPerRow ?? 0.3,
    bytesPerRow: state.bytesPerRow ?? 200,
    initialRows: state.initialRows ?? 0,
    commitBaseMs: state.commitBaseMs ?? 40,
    commitMsPerMillionUpdated: state.commitMsPerMillionUpdated ?? 300,
    commitMsPerGb: state.commitMsPerGb ?? 0,
    msPerMillionRows: state.msPerMillionRows ?? 20,
    gcMsPerGb: state.gcMsPerGb ?? 4000,
    gcMsPerGbPerMillionRows: state.gcMsPerGbPerMillionRows ?? 0,
    repartitionMsPerGb: state.repartitionMsPerGb ?? 30_000,
    repartitionBaseMs: state.repartitionBaseMs ?? 20_000,
  };
}

const SINK_DESCRIPTIONS: Record<NonNullable<SinkSpec['kind']>, string> = {
  delta: 'DeltaSink[s3://acme-lake/silver/events]',
  foreachBatch: 'ForeachBatchSink',
  kafka: 'org.apache.spark.sql.kafka010.KafkaSourceProvider$KafkaTable@5c3fe3b1',
  console: 'org.apache.spark.sql.execution.streaming.ConsoleTable$@7687f0e2',
};

export function resolveSink(sink: SinkSpec | undefined): ResolvedSink {
  const kind = sink?.kind ?? 'delta';
  return {
    kind,
    description: sink?.description ?? SINK_DESCRIPTIONS[kind],
    writeRowsPerSec: sink?.writeRowsPerSec ?? Infinity,
    commitMs: sink?.commitMs ?? 250,
  };
}

export function resolveProcessing(p: ProcessingSpec, hasState: boolean): ResolvedProcessing {
  return {
    rowsPerSecPerCore: p.rowsPerSecPerCore,
    cores: p.cores ?? 8,
    overheadMs: p.overheadMs ?? 1_200,
    noise: p.noise ?? 0.04,
    shufflePartitions: p.shufflePartitions ?? 200,
    shuffles: p.shuffles ?? hasState,
  };
}
