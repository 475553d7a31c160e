/**
 * `data_loss_risk` (Kafka): the age of the oldest unread data is forecast to reach the topic's
 * retention. Forecast: (retention − time behind) ÷ growth of time behind per second of wall time,
 * the linear extrapolation Prometheus' predict_linear makes, on a Theil–Sen slope.
 * When to say it (for on-call people, who need time to add capacity or raise retention.ms):
 * - warning once the breach is forecast within `dataLossHorizonMs` (default half the retention, at
 *   least a day: a 7-day topic warns ~3.5 days ahead, not on its last day), or once time behind
 *   has used half the retention and is still rising;
 * - critical once the breach is forecast within 6 h, or time behind passes 80 % of the retention.
 * The summary says when: the forecast breach time, or that the retention is already reached.
 */
import { explainLag } from '../causes/lag-causes.js';
import { TUNING } from '../engine-options.js';
import * as fmt from '../format.js';
import { mannKendallCritical, mannKendallS, theilSen } from '../statistics.js';
import type { BatchFeatures } from '../batch-features.js';
import { ageingFromRates } from '../query-analysis.js';
import { CLEAR, HOLD, type DetectorContext, type Finding } from './detector.js';

export function detectDataLossRisk(ctx: DetectorContext): Finding {
  const { analysis, options } = ctx;
  if (analysis.signal !== 'kafka' || analysis.timeBehindSec === null) return CLEAR;
  const retentionSec = options.retentionMs / 1000;
  const behind = analysis.timeBehindSec;
  // A retention breach needs lag first (or a backlog already near retention): skip the forecast
  // on the hot path otherwise.
  if (!ctx.memo && !ctx.openKinds.includes('lag') && behind < 0.5 * retentionSec) return CLEAR;
  // The forecast moves slowly: judge it every other batch.
  if (ctx.batches % 2 === 1) return HOLD;
  // A forecast needs a steadier slope than the lag trend: fit the whole ring since the last restart.
  // The oldest batch of the window first: find where it starts, then read forwards.
  const series = analysis.series;
  let from = ctx.features.length;
  for (let count = 0, i = ctx.features.length - 1; i >= 0 && count < 24; i -= 1) {
    if (Number.isFinite(series[i]!)) {
      count += 1;
      from = i;
    }
    if (ctx.features[i]!.restart) break;
  }
  const xs: number[] = [];
  const ys: number[] = [];
  const window: BatchFeatures[] = [];
  for (let i = from; i < ctx.features.length; i += 1) {
    const value = series[i]!;
    if (!Number.isFinite(value)) continue;
    const f = ctx.features[i]!;
    xs.push((f.t + f.d) / 1000);
    ys.push(value);
    window.push(f);
  }
  if (ys.length < 6) return CLEAR;
  const rateSlope = ageingFromRates(window);
  let slopePerSec: number;
  let growing: boolean;
  if (rateSlope !== null) {
    // Far behind, time behind (offsets ÷ arrival rate) carries the arrival estimate's noise times
    // a huge backlog; the rates over the window give the growth directly and steadily.
    slopePerSec = rateSlope;
    growing = rateSlope > 0.01;
  } else {
    slopePerSec = theilSen(xs, ys);
    const recent = ys.slice(-12);
    growing = slopePerSec > 0.005 && mannKendallS(recent, 0.005) >= mannKendallCritical(recent.length) / 2;
  }
  const breachInSec =
    behind >= retentionSec ? 0 : slopePerSec > 0.005 ? (retentionSec - behind) / slopePerSec : Infinity;
  const horizonSec = options.dataLossHorizonMs / 1000;
  const near = behind >= TUNING.dataLossNearFraction * retentionSec;
  const usedUp = growing && behind >= TUNING.dataLossUsedFraction * retentionSec;
  // Open on a significant rise that breaches within the horizon (or has used half the retention);
  // stay open (hysteresis) while the forecast stays within 4× the horizon or much is used up.
  const firing = ctx.memo
    ? breachInSec <= 4 * horizonSec || behind >= 0.8 * TUNING.dataLossUsedFraction * retentionSec
    : (growing && breachInSec <= horizonSec) || usedUp;
  if (!firing && !near) return CLEAR;
  const breachAtMs = ctx.nowMs + breachInSec * 1000;
  const breachText = Number.isFinite(breachInSec)
    ? breachInSec === 0
      ? 'has already reached'
      : `will reach the ${fmt.seconds(retentionSec)} retention in about ${fmt.seconds(breachInSec)} (${fmt.iso(breachAtMs)})`
    : `has used ${Math.round((100 * behind) / retentionSec)} % of the ${fmt.seconds(retentionSec)} retention (not growing now)`;
  const arrival = analysis.arrivalRate;
  const lag = ctx.explain ? explainLag(ctx) : { causes: [], advice: [] };
  return {
    verdict: 'fire',
    severity: breachInSec <= TUNING.dataLossCriticalMs / 1000 || near ? 'critical' : 'warning',
    summary: `Data loss risk: the oldest unread Kafka data is ${fmt.seconds(behind)} old and ${breachText === 'has already reached' ? `has reached the ${fmt.seconds(retentionSec)} retention` : breachText}`,
    metrics: {
      timeBehindSec: Math.round(behind),
      timeBehindTrendSecPerMin: Math.round(slopePerSec * 600) / 10,
      breachAt: Number.isFinite(breachInSec) ? fmt.iso(breachAtMs) : null,
      ...(arrival !== null ? { arrivalRate: Math.round(arrival) } : {}),
    },
    // Why the oldest data keeps ageing is why the query lags: the same causes and fixes.
    causes: lag.causes,
    advice: [
      ...lag.advice,
      {
        text: `Time behind grows ${fmt.seconds(slopePerSec * 60)} per minute from ${fmt.seconds(behind)}; Kafka deletes segments older than the ${fmt.seconds(retentionSec)} retention, and failOnDataLoss (default true) then fails the query, or skips the lost offsets when false. Fix the lag before ${Number.isFinite(breachInSec) ? fmt.iso(breachAtMs) : 'the retention is reached'}, or buy time by raising the topic's retention.ms while it catches up.`,
        setting: 'retention.ms',
        value: String(Math.round(Math.max(options.retentionMs * 2, (behind + 86_400) * 1000))),
      },
    ],
  };
}

