/**
 * Numbers and labels as people read them in Slack: `1.2M rows`, `48s vs 30s trigger`, `🔴`.
 * Pure functions; every renderer uses these so the same number reads the same everywhere.
 */
import * as numbers from '../diagnosis/format.js';
import type { Health, IncidentKind } from '../diagnosis/types.js';
import { formatDuration } from '../util/duration.js';

export const KIND_LABEL: Record<IncidentKind, string> = {
  lag: 'Falling behind',
  state_growth: 'State growing without bound',
  slow_repartition: 'Slow state repartition',
  stalled: 'Stalled (no progress)',
  data_loss_risk: 'Data-loss risk (retention breach)',
  failed: 'Run failed',
  source_unreadable: 'Cannot read source',
};

export function kindLabel(kind: string): string {
  return (KIND_LABEL as Record<string, string>)[kind] ?? kind.replace(/_/g, ' ');
}

export const HEALTH_EMOJI: Record<Health, string> = { ok: '🟢', warning: '🟠', critical: '🔴' };

export function healthEmoji(health: string | null | undefined): string {
  return (HEALTH_EMOJI as Record<string, string>)[health ?? ''] ?? '⚪';
}

/** Rank for "worst first" sorting: critical < warning < ok < unknown. */
export function healthRank(health: string | null | undefined): number {
  return health === 'critical' ? 0 : health === 'warning' ? 1 : health === 'ok' ? 2 : 3;
}

/** `950`, `12.3K`, `4.57M`, `1.2B`: the engine's number style (src/diagnosis/format.ts), one everywhere. */
export function formatCount(value: number | null | undefined): string {
  if (value == null || !Number.isFinite(value)) return 'n/a';
  return numbers.count(value);
}

/** `3.1 GiB`: binary units, binary labels, as in the engine's text. */
export function formatBytes(value: number | null | undefined): string {
  if (value == null || !Number.isFinite(value)) return 'n/a';
  return numbers.bytes(value);
}

/** `12.6K rows/s`. */
export function formatRate(rowsPerSec: number | null | undefined): string {
  if (rowsPerSec == null || !Number.isFinite(rowsPerSec)) return 'n/a';
  return numbers.rate(rowsPerSec);
}

export function formatSeconds(sec: number | null | undefined): string {
  if (sec == null || !Number.isFinite(sec)) return 'n/a';
  return formatDuration(sec * 1000);
}

/** `+12s/min (growing)`, `-30s/min (draining)`, `steady`. */
export function formatTrend(secPerMin: number | null | undefined): string {
  if (secPerMin == null || !Number.isFinite(secPerMin)) return '';
  if (Math.abs(secPerMin) < 0.5) return 'steady';
  const sign = secPerMin > 0 ? '+' : '−';
  return `${sign}${formatSeconds(Math.abs(secPerMin))}/min (${secPerMin > 0 ? 'growing' : 'draining'})`;
}

/** `48s vs 30s trigger (160%)`. */
/** Past this many times the trigger a percentage (5519%) reads worse than a multiple (55×). */
const MULTIPLE_FROM = 10;

/** `48s vs 30s trigger (160%)`, or `9m 12s, 55× the 10s trigger` for a batch many triggers long. */
export function formatBatchVsTrigger(batchMs: number | null | undefined, triggerMs: number | null | undefined): string {
  if (batchMs == null || !Number.isFinite(batchMs)) return 'n/a';
  if (triggerMs == null || !Number.isFinite(triggerMs) || triggerMs <= 0) return formatDuration(batchMs);
  const ratio = batchMs / triggerMs;
  if (ratio >= MULTIPLE_FROM) return `${formatDuration(batchMs)}, ${Math.round(ratio)}× the ${formatDuration(triggerMs)} trigger`;
  return `${formatDuration(batchMs)} vs ${formatDuration(triggerMs)} trigger (${Math.round(ratio * 100)}%)`;
}

/** Accepts epoch ms or an ISO string; NaN when neither. */
export function toMs(value: number | string | Date | null | undefined): number {
  if (value == null) return Number.NaN;
  if (typeof value === 'number') return value;
  if (value instanceof Date) return value.getTime();
  const numeric = Number(value);
  if (value.trim() !== '' && Number.isFinite(numeric)) return numeric;
  return Date.parse(value);
}

/** `3h 05m` between two instants; `n/a` when either is unknown. */
export function formatSpan(fromMs: number, toMsValue: number): string {
  if (!Number.isFinite(fromMs) || !Number.isFinite(toMsValue)) return 'n/a';
  return formatDuration(Math.max(0, toMsValue - fromMs));
}
