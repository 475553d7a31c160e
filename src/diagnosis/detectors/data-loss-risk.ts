/**
 * `data_loss_risk` (Kafka): the age of the oldest unread data is forecast to reach the topic's
 * retention. Forecast: (retention − time behind) ÷ growth of time behind per second of wall time,
 * the linear extrapolation Prometheus' predict_linear makes, on a Theil–Sen slope.
 */
import { explainLag } from '../causes/lag-causes.js';
import { TUNING } from '../engine-options.js';
import * as fmt from '../format.js';
import { mannKendallCritical, mannKendallS, theilSen } from '../statistics.js';
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
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = ctx.features.length - 1; i >= 0 && ys.length < 24; i -= 1) {
    const value = analysis.series[i]!;
    const f = ctx.features[i]!;
    if (Number.isFinite(value)) {
      xs.unshift((f.t + f.d) / 1000);
      ys.unshift(value);
    }
    if (f.restart) break;
  }
  if (ys.length < 6) return CLEAR;
  const slopePerSec = theilSen(xs, ys);
  const recent = ys.slice(-12);
  const growing =
    slopePerSec > 0.005 && mannKendallS(recent, 0.005) >= mannKendallCritical(recent.length) / 2;
  const breachInSec =
    behind >= retentionSec ? 0 : slopePerSec > 0.005 ? (retentionSec - behind) / slopePerSec : Infinity;
  const horizonSec = TUNING.dataLossHorizonMs / 1000;
  const near = behind >= 0.8 * retentionSec;
  // Open on a significant rise that breaches within the horizon; stay open (hysteresis) while
  // the forecast stays within 4× the horizon.
  const firing = ctx.memo ? breachInSec <= 4 * horizonSec : growing && breachInSec <= horizonSec;
  if (!firing && !near) return CLEAR;
  const breachAtMs = ctx.nowMs + breachInSec * 1000;
  const breachText = Number.isFinite(breachInSec)
    ? breachInSec === 0
      ? 'has already reached'
      : `will reach the ${fmt.seconds(retentionSec)} retention in about ${fmt.seconds(breachInSec)} (${fmt.iso(breachAtMs)})`
    : `is within 20% of the ${fmt.seconds(retentionSec)} retention`;
  const arrival = analysis.arrivalRate;
  const lag = ctx.explain ? explainLag(ctx) : { causes: [], advice: [] };
  return {
    verdict: 'fire',
    severity: breachInSec <= horizonSec / 4 || near ? 'critical' : 'warning',
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
