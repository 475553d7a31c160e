/**
 * Numbers and labels as people read them in Slack: `1.2M rows`, `48s vs 30s trigger`, `🔴`.
 * Pure functions; every renderer uses these so the same number reads the same everywhere.
 */
import type { Health, IncidentKind, Severity } from '../diagnosis/types.js';
import { formatDuration } from '../util/duration.js';

export const KIND_LABEL: Record<IncidentKind, string> = {
  lag: 'Falling behind',
  state_growth: 'State growing without bound',
  slow_repartition: 'Slow state repartition',
  stalled: 'Stalled (no progress)',
  data_loss_risk: 'Data-loss risk (retention breach)',
  failed: 'Run failed',
};

export function kindLabel(kind: string): string {
  return (KIND_LABEL as Record<string, string>)[kind] ?? kind.replace(/_/g, ' ');
}

export const HEALTH_EMOJI: Record<Health, string> = { ok: '🟢', warning: '🟠', critical: '🔴' };

export function healthEmoji(health: string | null | undefined): string {
  return (HEALTH_EMOJI as Record<string, string>)[health ?? ''] ?? '⚪';
}

export function severityEmoji(severity: Severity): string {
  return severity === 'critical' ? '🔴' : '🟠';
}

/** Rank for "worst first" sorting: critical < warning < ok < unknown. */
export function healthRank(health: string | null | undefined): number {
  return health === 'critical' ? 0 : health === 'warning' ? 1 : health === 'ok' ? 2 : 3;
}

/** `950`, `12.3K`, `4.57M`, `1.2B`. */
export function formatCount(value: number | null | undefined): string {
  if (value == null || !Number.isFinite(value)) return 'n/a';
  const abs = Math.abs(value);
  const units: [number, string][] = [
    [1e12, 'T'],
    [1e9, 'B'],
    [1e6, 'M'],
    [1e3, 'K'],
  ];
  for (const [size, unit] of units) {
    if (abs >= size) {
      const scaled = value / size;
      return `${Math.abs(scaled) >= 100 ? scaled.toFixed(0) : Math.abs(scaled) >= 10 ? scaled.toFixed(1) : scaled.toFixed(2)}${unit}`;
    }
  }
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

export function formatBytes(value: number | null | undefined): string {
  if (value == null || !Number.isFinite(value)) return 'n/a';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let scaled = value;
  let index = 0;
  while (Math.abs(scaled) >= 1024 && index < units.length - 1) {
    scaled /= 1024;
    index += 1;
  }
  return `${index === 0 ? scaled.toFixed(0) : scaled.toFixed(1)} ${units[index]}`;
}

export function formatRate(rowsPerSec: number | null | undefined): string {
  if (rowsPerSec == null || !Number.isFinite(rowsPerSec)) return 'n/a';
  return `${formatCount(rowsPerSec)} rows/s`;
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
export function formatBatchVsTrigger(batchMs: number | null | undefined, triggerMs: number | null | undefined): string {
  if (batchMs == null || !Number.isFinite(batchMs)) return 'n/a';
  if (triggerMs == null || !Number.isFinite(triggerMs) || triggerMs <= 0) return formatDuration(batchMs);
  return `${formatDuration(batchMs)} vs ${formatDuration(triggerMs)} trigger (${Math.round((batchMs / triggerMs) * 100)}%)`;
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
