/**
 * Engine options (the contract in engine.ts re-exports `EngineOptions`) and the tuning constants
 * the detectors share. Defaults are documented where each option is declared.
 */

export interface EngineOptions {
  /** Processing-time trigger interval, ms, when known. @defaultValue inferred from the gaps between batch starts */
  triggerMs?: number;
  /** Cores of the cluster; enables the partition-count causes. @defaultValue undefined (those causes are not judged) */
  cores?: number;
  /** Kafka topic retention, ms, for data-loss forecasts. @defaultValue 604_800_000 (7 days) */
  retentionMs?: number;
  /** A state repartition (`controlBatch.REPARTITION`) longer than this is slow. @defaultValue 600_000 (10 minutes) */
  repartitionThresholdMs?: number;
  /**
   * `data_loss_risk` warns when the oldest unread Kafka data is forecast to reach the retention
   * within this horizon, ms. It scales with the retention so a 7-day topic warns days ahead (time
   * to add capacity or raise retention.ms during working hours), not on its last day.
   * @defaultValue max(24 h, retentionMs / 2) (3.5 days for the 7-day default)
   */
  dataLossHorizonMs?: number;
}

export interface ResolvedEngineOptions {
  triggerMs: number | null;
  cores: number | null;
  retentionMs: number;
  repartitionThresholdMs: number;
  dataLossHorizonMs: number;
}

export const DEFAULT_RETENTION_MS = 7 * 86_400_000;
export const DEFAULT_REPARTITION_THRESHOLD_MS = 10 * 60_000;

/** The default `dataLossHorizonMs`: half the retention, at least a day. */
export function defaultDataLossHorizonMs(retentionMs: number): number {
  return Math.max(MIN_DATA_LOSS_HORIZON_MS, retentionMs / 2);
}
export const MIN_DATA_LOSS_HORIZON_MS = 24 * 3_600_000;

export function resolveEngineOptions(options: EngineOptions = {}): ResolvedEngineOptions {
  const positive = (value: number | undefined): number | null =>
    typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
  const retentionMs = positive(options.retentionMs) || DEFAULT_RETENTION_MS;
  return {
    triggerMs: positive(options.triggerMs),
    cores: positive(options.cores) && options.cores! >= 1 ? Math.floor(options.cores!) : null,
    retentionMs,
    repartitionThresholdMs: positive(options.repartitionThresholdMs) || DEFAULT_REPARTITION_THRESHOLD_MS,
    dataLossHorizonMs: positive(options.dataLossHorizonMs) || defaultDataLossHorizonMs(retentionMs),
  };
}

/** Tuning shared by the detectors; each value says why it is what it is where it is declared. */
export const TUNING = {
  /** Per-batch features kept per query. */
  ringSize: 48,
  /** Batches in the lag trend window (Mann–Kendall, Theil–Sen). */
  lagWindow: 8,
  /** Time behind must reach this multiple of its level at the start of the window to open lag. */
  lagGrowthRatio: 1.4,
  /**
   * A creep (overrunning, lengthening batches) opens lag only once time behind passes this many
   * trigger intervals: near capacity (ρ ≈ 0.93–0.95) noise makes short creeps with time behind up
   * to ~1.4 × T. At 1.3 a few such draws in every thousand opened lag; past 1.4 slow ramps that
   * overrun the trigger are found too late.
   */
  creepBacklogTriggers: 1.4,
  /** Batches the "back to normal" condition must hold before an incident resolves. */
  clearBatches: 3,
  /**
   * Lag resolves only after the query has been healthy for a hold period: `clearBatches` batches
   * and this much wall time, or `holdMaxBatches` batches when the trigger is short (a 1 s trigger
   * must not wait 120 batches). One episode with a noisy tail stays one incident.
   */
  lagHoldMs: 120_000,
  holdMaxBatches: 8,
  /**
   * A relapse this soon after an incident resolved re-opens that incident (same Slack message, a
   * line in its thread) instead of opening a new one: Alertmanager's `keep_firing_for` in reverse.
   */
  relapseCooldownMs: 30 * 60_000,
  /**
   * Or within this many batches, whichever is longer: on a 5-minute trigger 30 minutes are six
   * batches, fewer than a mild episode takes to show again after a premature "back to normal".
   */
  relapseCooldownBatches: 12,
  /**
   * An open incident's figures are told again (its alert edited in place, no thread line) once
   * they moved (told-figures.ts) and at least this long after they were last told: an alert open
   * for hours shows numbers of the last quarter hour, and is edited at most four times an hour.
   */
  refreshFiguresMs: 15 * 60_000,
  /** Time behind above which a slowly draining backlog is lag on its own, s. */
  lagLevelSec: 600,
  /**
   * With no backlog figure at all, a capped query whose reads rose out of a steady state into the
   * cap and stayed there this many batches, and at least `capBoundMinMs`, is falling behind (see
   * cap-binding.ts): a burst that drains is allowed to pin the cap this long (8 batches of a 1 s
   * trigger are 8 s: a burst of a few seconds). So at a 1 s trigger lag opens after about 10
   * batches, from 2 s on after 8. A minute missed the 8-batch deadline of every capped overload at
   * 1–3 s triggers and kept no false alarm away on the scenario draws.
   */
  capBoundBatches: 8,
  capBoundMinMs: 10_000,
  /** A backlog that takes longer than this to drain is an incident (Flink's catch-up budget), s. */
  catchUpBudgetSec: 1800,
  /** Time behind at which lag becomes critical, s. */
  criticalTimeBehindSec: 1800,
  /** State-growth window, batches. */
  stateWindow: 16,
  /** Silence longer than this many cadences (and at least stallMinMs) with data waiting is a stall: six missed reports is past any jitter of a healthy query. */
  stallFactor: 6,
  stallMinMs: 5 * 60_000,
  /** The stall threshold while a run has too few reports to know its cadence, at least, ms. */
  stallUnsureMs: 20 * 60_000,
  /** A retention breach forecast this close is critical (page someone), ms. */
  dataLossCriticalMs: 6 * 3_600_000,
  /**
   * Time behind past this fraction of the retention and still rising warns whatever the forecast
   * says (a slow rise the linear forecast puts far away can speed up).
   */
  dataLossUsedFraction: 0.5,
  /** Time behind past this fraction of the retention is critical. */
  dataLossNearFraction: 0.8,
  /** Assumed repartition cost when the query has none of its own: fixed part and per GB of state. */
  repartitionBaseMs: 20_000,
  repartitionMsPerGb: 30_000,
  /** A repartition this many times slower than predicted is slow even under the threshold. */
  repartitionSlowFactor: 4,
} as const;
