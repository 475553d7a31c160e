/** The key numbers of an incident as mrkdwn fields (`*Time behind*\n12m 30s …`). */
import type { IncidentMetrics } from '../../diagnosis/types.js';
import { formatDuration } from '../../util/duration.js';
import {
  formatBatchVsTrigger,
  formatBytes,
  formatCount,
  formatRate,
  formatSeconds,
  formatTrend,
  toMs,
} from '../format.js';
import { slackDate } from '../mrkdwn.js';

export interface MetricFieldOptions {
  /**
   * Show what the numbers say of the future (drain ETA, trend, retention breach). A resolved
   * incident's are from its last reading while open and no longer hold.
   * @defaultValue true
   */
  forecasts?: boolean;
}

/** A stream's latest figures (the stored snapshot: `StreamSnapshot`), read when someone asks now. */
export interface LiveFigures {
  timeBehindSec: number | null;
  timeBehindEstimated?: boolean;
  batchDurationMs: number | null;
  triggerMs: number | null;
  arrivalRate?: number | null;
  processingRate?: number | null;
  filesWaiting?: number | null;
  stateRows: number | null;
}

/** The latest figures as mrkdwn fields, in the incident fields' words, so the two read side by side. */
export function liveFields(live: LiveFigures): string[] {
  const fields: string[] = [];
  if (live.timeBehindSec != null) fields.push(`*Time behind*\n${formatSeconds(live.timeBehindSec)}${live.timeBehindEstimated ? ' (estimated from files)' : ''}`);
  if (live.batchDurationMs != null) fields.push(`*Batch duration*\n${formatBatchVsTrigger(live.batchDurationMs, live.triggerMs)}`);
  const rates = ratesField(live.arrivalRate, live.processingRate);
  if (rates) fields.push(rates);
  if (live.filesWaiting != null) fields.push(`*Files waiting*\n${formatCount(live.filesWaiting)} files`);
  if (live.stateRows != null && live.stateRows > 0) fields.push(`*State rows*\n${formatCount(live.stateRows)}`);
  return fields;
}

export function metricFields(metrics: IncidentMetrics | undefined, nowMs: number, options: MetricFieldOptions = {}): string[] {
  if (!metrics) return [];
  const forecasts = options.forecasts ?? true;
  const fields: string[] = [];
  if (metrics.timeBehindSec != null) {
    const trend = forecasts ? formatTrend(metrics.timeBehindTrendSecPerMin) : '';
    // Files-based time behind (Auto Loader) is an estimate: outstanding files ÷ files arriving.
    const estimated = metrics.backlogUnit === 'files' ? ' (estimated from files)' : '';
    fields.push(`*Time behind*\n${formatSeconds(metrics.timeBehindSec)}${estimated}${trend ? ` · ${trend}` : ''}`);
  }
  if (metrics.breachAt && forecasts) {
    const breachMs = toMs(metrics.breachAt);
    if (Number.isFinite(breachMs)) {
      const inMs = breachMs - nowMs;
      fields.push(
        `*Retention breach*\n${inMs > 0 ? `in ~${formatDuration(inMs)}` : 'now'} (${slackDate(breachMs)})`,
      );
    }
  }
  if (metrics.drainEtaSec !== undefined && forecasts) {
    fields.push(
      `*Drain ETA*\n${metrics.drainEtaSec == null ? 'not draining at current rates' : `~${formatSeconds(metrics.drainEtaSec)}`}`,
    );
  }
  if (metrics.batchDurationMs != null) {
    fields.push(`*Batch duration*\n${formatBatchVsTrigger(metrics.batchDurationMs, metrics.triggerIntervalMs)}`);
  }
  const rates = ratesField(metrics.arrivalRate, metrics.processingRate);
  if (rates) fields.push(rates);
  if (metrics.backlog != null && metrics.backlogUnit === 'files') {
    // Delta does not say how long its files have waited: say what is known, plainly.
    const unknown = metrics.timeBehindSec == null ? ' · time behind unknown for this source' : '';
    fields.push(`*Files waiting*\n${formatCount(metrics.backlog)} files${unknown}`);
  } else if (metrics.backlog != null) {
    const unit = metrics.backlogUnit === 'bytes' ? '' : ` ${metrics.backlogUnit ?? ''}`;
    const value = metrics.backlogUnit === 'bytes' ? formatBytes(metrics.backlog) : formatCount(metrics.backlog);
    fields.push(`*Backlog*\n${value}${unit}`.trimEnd());
  }
  if (metrics.stateRows != null && (metrics.stateRows > 0 || (metrics.stateBytes ?? 0) > 0)) {
    const bytes = metrics.stateBytes != null ? ` · ${formatBytes(metrics.stateBytes)}` : '';
    fields.push(`*State rows*\n${formatCount(metrics.stateRows)}${bytes}`);
  }
  if (metrics.repartitionMs != null) fields.push(`*State repartition*\n${formatDuration(metrics.repartitionMs)}`);
  if (metrics.silentSec != null) fields.push(`*No progress for*\n${formatSeconds(metrics.silentSec)}`);
  return fields.slice(0, 10);
}

/** Arrivals against processing; one of them alone when the other is not known (never "n/a"). */
function ratesField(arrivalRate: number | null | undefined, processingRate: number | null | undefined): string | null {
  const arrival = Number.isFinite(arrivalRate) ? arrivalRate : null;
  const processing = Number.isFinite(processingRate) ? processingRate : null;
  // Spark's processedRowsPerSecond of one batch, over its whole duration: beside the causes' rate per
  // second of busy time over the recent batches it can read higher, so it says which it is.
  if (arrival != null && processing != null) return `*Arriving vs processed*\n${formatRate(arrival)} vs ${formatRate(processing)} in the latest batch`;
  if (arrival != null) return `*Arriving*\n${formatRate(arrival)}`;
  if (processing != null) return `*Processed*\n${formatRate(processing)} in the latest batch`;
  return null;
}
