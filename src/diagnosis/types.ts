/**
 * The diagnosis contract: what the engine reports and what every later part (CLI, Redis store,
 * Slack rendering, digests) consumes. The JSON shape of `DiagnoseOutput` is the exact contract of
 * `streamdoctor diagnose --format json`; extra fields live only on the in-process types.
 */

export type IncidentKind =
  | 'lag'
  | 'state_growth'
  | 'slow_repartition'
  | 'stalled'
  | 'data_loss_risk'
  /** From job runs / pipeline state (src/diagnosis/host-signals.ts), not from progress. */
  | 'failed'
  /** StreamDoctor cannot read a progress source (credentials, warehouse, table): jobs/source-health.ts. */
  | 'source_unreadable';

export type Severity = 'warning' | 'critical';
export type Health = 'ok' | 'warning' | 'critical';

export type CauseCode =
  | 'insufficient_capacity'
  | 'rate_limit_too_low'
  | 'oversized_batches'
  | 'kafka_partition_bound'
  | 'too_few_shuffle_partitions'
  | 'unbounded_state'
  | 'state_store_memory'
  | 'slow_state_commit'
  | 'slow_sink'
  | 'large_state_repartition'
  /** Lag that is the residue of a stall or a restart after downtime, draining too slowly. */
  | 'catching_up'
  | (string & {});

export interface Cause {
  code: CauseCode;
  /** 0..1, causes are ranked by it, highest first. */
  confidence: number;
  /** Numbers from the data that support the cause, in one sentence. */
  evidence: string;
}

export interface Advice {
  text: string;
  /** The Spark / source option this advice sets, e.g. `maxOffsetsPerTrigger`. */
  setting?: string;
  /** The value to set, as it would be written in code, e.g. `"180000"`. */
  value?: string;
  /**
   * Capacity advice: the throughput the query needs as a multiple of today's (load factor plus
   * headroom), and the load factor it came from, so apps can say it in workers of a known cluster.
   */
  throughputFactor?: number;
  loadFactor?: number;
}

/**
 * Key numbers of an incident, for Slack messages, digests and the text report. Every field is
 * optional because sources differ in what they report.
 */
export interface IncidentMetrics {
  /** Seconds of data waiting at the source (backlog / arrival rate). */
  timeBehindSec?: number;
  /** Growth of time behind, seconds per minute of wall time (negative when draining). */
  timeBehindTrendSecPerMin?: number;
  /** Seconds until the backlog drains at the current rates; null = not draining. */
  drainEtaSec?: number | null;
  /** Backlog in source units (offsets, files or bytes) and which unit. */
  backlog?: number;
  backlogUnit?: 'offsets' | 'files' | 'bytes' | 'ms';
  /** Rows/s arriving at the source and processed by the query. */
  arrivalRate?: number;
  processingRate?: number;
  /** Latest batch duration and the trigger interval (known or inferred), ms. */
  batchDurationMs?: number;
  triggerIntervalMs?: number;
  /** Total state rows and bytes over all stateful operators. */
  stateRows?: number;
  stateBytes?: number;
  /** State-repartition duration (ms) and the state size it moved. */
  repartitionMs?: number;
  /** ISO time of the forecast retention breach (data_loss_risk). */
  breachAt?: string | null;
  /** Seconds since the last progress event (stalled). */
  silentSec?: number;
}

export interface Incident {
  kind: IncidentKind;
  severity: Severity;
  openedAtBatchId: number | null;
  openedAt: string;
  resolvedAtBatchId: number | null;
  resolvedAt: string | null;
  /** One line, plain text (renderers escape it). */
  summary: string;
  causes: Cause[];
  advice: Advice[];
  /** In-process only: not part of the CLI JSON contract, but kept in the store and used by Slack. */
  metrics?: IncidentMetrics;
  /**
   * In-process only: times this incident came back within the relapse cool-down after resolving,
   * and when it last did (the same incident re-opened: same Slack message, a line in its thread).
   */
  relapses?: number;
  relapsedAt?: string;
  /**
   * In-process only: the disruption this lag is the aftermath of (a stall, a restart after
   * downtime), with the stalled incident's `openedAt` when one was reported.
   */
  aftermath?: AftermathInfo;
  /**
   * In-process only: the time of the batch the summary and metrics describe, ISO. Later than
   * `openedAt` once the figures of an open incident were told again (QueryTracker.refreshFigures).
   */
  figuresAt?: string;
}

export interface AftermathInfo {
  what: 'stall' | 'restart';
  /** When the disruption began (the hung batch's start, or the previous run's last batch end), ISO. */
  startedAt: string;
  /** How long it lasted, ms (the hung batch, or the downtime). */
  durationMs: number;
  /** `openedAt` of the stalled incident reported for it, when there was one. */
  stallOpenedAt?: string;
}

export interface QueryReport {
  id: string;
  name: string | null;
  health: Health;
  /** Open incidents first, then resolved ones, newest first within each group. */
  incidents: Incident[];
}

/** Exactly what `streamdoctor diagnose --format json` prints. */
export interface DiagnoseOutput {
  queries: QueryReport[];
}

/** An incident's lifecycle step, emitted by the engine as progress is fed in. */
export interface IncidentChange {
  type: 'opened' | 'updated' | 'resolved';
  queryId: string;
  queryName: string | null;
  incident: Incident;
}

/** The latest key numbers of one query, for status tables and the stream registry. */
export interface QuerySnapshot {
  id: string;
  name: string | null;
  health: Health;
  /** Seconds of data waiting at the source after the latest batch (null when unknown). */
  timeBehindSec: number | null;
  batchDurationMs: number | null;
  /** Trigger interval, ms: as configured, else inferred (0 = back to back); null before any batch. */
  triggerMs: number | null;
  stateRows: number | null;
  /** ISO time the latest progress report arrived for (its batch end). */
  lastProgressAt: string | null;
  lastBatchId: number | null;
  /** Rows/s arriving and processed, recent. */
  arrivalRate: number | null;
  processingRate: number | null;
  /** Kinds of the incidents open now. */
  openIncidents: IncidentKind[];
  /**
   * True when `timeBehindSec` is estimated from files (Auto Loader: outstanding files ÷ files
   * arriving per second, plus the batch's duration: they are listed at planning) rather than read
   * from offsets.
   */
  timeBehindEstimated?: boolean;
  /** Delta / Auto Loader `numFilesOutstanding` after the latest batch (null for other sources). */
  filesWaiting?: number | null;
  /** Growth of `filesWaiting`, files per minute (negative when draining; null when unknown). */
  filesWaitingTrendPerMin?: number | null;
  /**
   * True when the reports carry no backlog figure (no latest offsets, no source metrics: Spark
   * 3.0-era Kafka) and the query reads the same capped count every batch: how far behind it is
   * cannot be read, and lag shows only once the cap has bound for `capBoundBatches` batches after
   * reads rose into it (for the catch-up budget after a restart or a slow batch; after a restart,
   * sooner when the backlog estimated from the run before it will not drain within it), or
   * `capBoundBatches` batches after the first slow one when the batches at the cap admit clearly
   * less than arrived before (capacity lost).
   */
  backlogUnreported?: boolean;
}

/** What is known about a query beside its progress, for judging silence (`QueryTracker.tick`). */
export interface LiveFacts {
  /**
   * Start of the query's job run that is active now, epoch ms (job runs). A run that began after the
   * latest report is a restart still planning or running its first batch: silence counts from its
   * start, with the patience of a run without history.
   * @defaultValue unknown (silence counts from the latest report)
   */
  runStartedAtMs?: number | null;
}
