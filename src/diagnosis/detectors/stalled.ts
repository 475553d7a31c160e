/**
 * `stalled`: no progress for far longer than the query's cadence while data was waiting. Progress
 * arrives when a batch ends, so the expected silence grows with the batch durations; an idle query
 * (nothing arriving, nothing behind) may be silent as long as it likes.
 */
import { MIN_TIMESTAMP_MS } from '../../progress/values.js';
import { TUNING } from '../engine-options.js';
import * as fmt from '../format.js';
import { CLEAR, type DetectorContext, type Finding } from './detector.js';

/** Silence after which the query counts as stalled, ms. */
export function stallThresholdMs(ctx: DetectorContext): number {
  const threshold = Math.max(TUNING.stallFactor * ctx.analysis.cadenceMs, TUNING.stallMinMs);
  // A run's first reports say little about its cadence (a first batch at once, the trigger not yet
  // known): a long trigger would read as silence. Wait longer until the run has a history.
  const fresh = ctx.runStartedAtMs !== null || reportsInRun(ctx.features) < STALL_MIN_REPORTS;
  return fresh ? Math.max(threshold, TUNING.stallUnsureMs) : threshold;
}

/**
 * When the silence began: the latest report's end, or the start of a run that began after it (a
 * restarted query plans its first batch over everything that arrived while it was down, and says
 * nothing until that batch ends).
 */
export function silentSinceMs(ctx: Pick<DetectorContext, 'lastSeenMs' | 'latest' | 'runStartedAtMs'>): number {
  return Math.max(ctx.lastSeenMs, ctx.latest.t + ctx.latest.d, ctx.runStartedAtMs ?? -Infinity);
}

/** Reports of the current run a cadence is trusted from. */
const STALL_MIN_REPORTS = 4;

function reportsInRun(features: DetectorContext['features']): number {
  let count = 0;
  for (let i = features.length - 1; i >= 0; i -= 1) {
    count += 1;
    if (features[i]!.restart || count >= STALL_MIN_REPORTS) break;
  }
  return count;
}

export function detectStalled(ctx: DetectorContext): Finding {
  const { latest, analysis } = ctx;
  const since = silentSinceMs(ctx);
  // No report of this query said when it ran (trimmed examples have no timestamp: each is placed
  // after the one before, from 1970): how long it has been silent is unknown, not 56 years.
  if (since < MIN_TIMESTAMP_MS) return CLEAR;
  const silentMs = ctx.nowMs - since;
  const threshold = stallThresholdMs(ctx);
  if (silentMs <= threshold) return CLEAR;
  const recentRows = ctx.features.slice(-5).some((f) => f.rows > 0);
  const behind =
    (latest.kafkaBehind ?? 0) > 0 || (latest.filesOutstanding ?? 0) > 0 || (latest.msBehind ?? 0) > 0;
  const arriving =
    analysis.arrivalRate !== null && analysis.arrivalRate > 0 && recentRows && ctx.lastReportRows > 0;
  if (!behind && !arriving) return CLEAR;
  const silentSec = Math.round(silentMs / 1000);
  const waiting =
    latest.kafkaBehind !== null && latest.kafkaBehind > 0
      ? `${fmt.count(latest.kafkaBehind)} offsets were behind`
      : latest.filesOutstanding !== null && latest.filesOutstanding > 0
        ? `${fmt.count(latest.filesOutstanding)} files were outstanding`
        : `${fmt.rate(analysis.arrivalRate ?? 0)} were arriving`;
  return {
    verdict: 'fire',
    severity: 'critical',
    summary: `No progress for ${fmt.seconds(silentSec)} (the query reports every ${fmt.ms(analysis.cadenceMs)}) while ${waiting}`,
    metrics: {
      silentSec,
      batchDurationMs: latest.d,
      ...(analysis.triggerMs > 0 ? { triggerIntervalMs: analysis.triggerMs } : {}),
      ...(analysis.timeBehindSec !== null ? { timeBehindSec: Math.round(analysis.timeBehindSec + silentSec) } : {}),
    },
    causes: [],
    advice: [
      {
        text: `Check the run in the Spark UI: a batch${latest.batchId !== null ? ` after batch ${latest.batchId}` : ''} has run for ${fmt.seconds(silentSec)} (a stuck task, a hung sink or source call) or the driver stopped without a termination event. ${stateWorkHint(ctx)}If the run has failed or hung, restart it; the checkpoint resumes from the last committed batch.`,
      },
    ],
  };
}

/** State rows past which loading or repartitioning the state can take a batch many minutes. */
const LARGE_STATE_ROWS = 10_000_000;

/**
 * A stateful query's long silence can be one batch doing state work (repartitioning it after a
 * change of partitions, or loading it in a run's first batch), which a restart only starts over:
 * said before the advice to restart, with what the reports show (the state's size, a run just begun).
 */
function stateWorkHint(ctx: DetectorContext): string {
  const rows = ctx.latest.stateRows;
  if (rows === null || rows < LARGE_STATE_ROWS) return '';
  const newRun = ctx.runStartedAtMs !== null && ctx.runStartedAtMs > ctx.latest.t ? ' (its run began after the last report: a first batch loads the state)' : '';
  return `With ${fmt.count(rows)} state rows it may be busy in one long batch repartitioning or loading its state${newRun}: the stage timeline shows state store tasks still running; then wait, since a restart starts that work over. `;
}
