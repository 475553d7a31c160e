/**
 * `state_growth`: state rows rise batch after batch with nothing removed, the signature of an
 * aggregation, deduplication or join with no watermark over ever-new keys. Bounded state that rises
 * and falls has removals and no significant trend. With a watermark, state also rises while the
 * first windows fill, so the bar is a longer window with no removals at all.
 */
import { rank } from '../causes/explained.js';
import {
  slowStateCommit,
  stateGrowthStats,
  stateStoreMemory,
  unboundedState,
  type CauseInput,
} from '../causes/shared-causes.js';
import { TUNING } from '../engine-options.js';
import * as fmt from '../format.js';
import { mannKendallZ } from '../statistics.js';
import { CLEAR, type DetectorContext, type Finding } from './detector.js';

export function detectStateGrowth(ctx: DetectorContext): Finding {
  const { latest } = ctx;
  if (latest.stateRows === null) return CLEAR;
  const watermark = latest.watermark === 1;
  const window = TUNING.stateWindow;

  if (ctx.memo) {
    // Open: clear once the last batches show no growth or state is being removed again.
    const tail = ctx.features.slice(-8).filter((f) => f.stateRows !== null);
    const tailRows = tail.map((f) => f.stateRows!);
    const removed = tail.reduce((sum, f) => sum + f.stateRemoved, 0);
    const growing = tailRows.length >= 5 && mannKendallZ(tailRows, 0.0005) >= 1.5;
    if (!growing || removed > 0.05 * Math.max(1, tailRows[tailRows.length - 1]! - tailRows[0]!)) return CLEAR;
    return finding(ctx);
  }

  // The cheap tests first: the trend test (stateGrowthStats) runs only when the rest could fire,
  // and the window is copied out of the ring only once the watermark allows growth to be unbounded.
  if (watermark) {
    // With a watermark, state fills for about the watermark delay (plus the window) before the
    // first keys expire. Growth is unbounded only once the watermark has moved well past that
    // with nothing removed.
    const { startMs, nowMs, delayMs } = ctx.watermark;
    if (startMs === null || nowMs === null) return CLEAR;
    const advance = nowMs - startMs;
    if (advance < Math.max(2 * (delayMs ?? 0), 30 * 60_000)) return CLEAR;
  }
  const recent = ctx.features.slice(-window).filter((f) => f.stateRows !== null);
  if (recent.length < window * 0.75) return CLEAR;
  const growth = recent[recent.length - 1]!.stateRows! - recent[0]!.stateRows!;
  if (growth <= 0) return CLEAR;
  let removed = 0;
  for (const f of recent) removed += f.stateRemoved;
  if (removed > 0.01 * growth) return CLEAR;
  const stats = stateGrowthStats(recent);
  if (!stats || stats.z < 3) return CLEAR;
  // Nearly every step rises: a stepwise fill that stalls is not unbounded growth.
  let rising = 0;
  for (let i = 1; i < recent.length; i += 1) {
    if (recent[i]!.stateRows! > recent[i - 1]!.stateRows!) rising += 1;
  }
  if (rising < 0.8 * (recent.length - 1)) return CLEAR;
  return finding(ctx);
}

function finding(ctx: DetectorContext): Finding {
  const { latest } = ctx;
  const input: CauseInput = { features: ctx.features, latest, facts: ctx.facts, cores: ctx.options.cores };
  const explained = ctx.explain
    ? rank([unboundedState(input, 0.75), stateStoreMemory(input), slowStateCommit(input)])
    : { causes: [], advice: [] };
  const stats = stateGrowthStats(ctx.features.slice(-TUNING.stateWindow));
  const perBatch = stats ? (stats.last - stats.first) / Math.max(1, stats.batches - 1) : 0;
  const durations = ctx.features.slice(-TUNING.stateWindow).map((f) => f.d);
  const slowing = durations.length >= 8 && mannKendallZ(durations) >= 2.5;
  const severity =
    slowing && ctx.analysis.triggerMs > 0 && latest.d > ctx.analysis.triggerMs ? 'critical' : 'warning';
  const rows = latest.stateRows ?? 0;
  return {
    verdict: 'fire',
    severity,
    summary: `State grows without bound: ${fmt.count(rows)} rows${latest.stateBytes ? ` (${fmt.bytes(latest.stateBytes)})` : ''}, +${fmt.count(perBatch)} per batch, none removed${slowing ? '; batches slow down with it' : ''}`,
    metrics: {
      stateRows: rows,
      ...(latest.stateBytes !== null ? { stateBytes: latest.stateBytes } : {}),
      batchDurationMs: latest.d,
      ...(ctx.analysis.triggerMs > 0 ? { triggerIntervalMs: ctx.analysis.triggerMs } : {}),
    },
    causes: explained.causes,
    advice: explained.advice,
  };
}
