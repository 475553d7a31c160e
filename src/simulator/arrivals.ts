/**
 * Arrival rate λ(t): rows per second arriving at the source as a function of simulated time (epoch ms).
 * Helpers build the usual shapes; they compose because each is just a function of time.
 */

export type ArrivalRate = (timeMs: number) => number;

/** A constant rate. */
export function constantRate(rowsPerSec: number): ArrivalRate {
  return () => rowsPerSec;
}

/** Piecewise-constant rate: `base` until the first step, then each step's rate from its `atMs`. */
export function steppedRate(base: number, steps: { atMs: number; rowsPerSec: number }[]): ArrivalRate {
  const sorted = [...steps].sort((a, b) => a.atMs - b.atMs);
  return (t) => {
    let rate = base;
    for (const step of sorted) {
      if (t >= step.atMs) rate = step.rowsPerSec;
      else break;
    }
    return rate;
  };
}

/** Adds bursts on top of a base rate: `extra` rows/s during [atMs, atMs + durationMs). */
export function withBursts(
  base: ArrivalRate,
  bursts: { atMs: number; durationMs: number; extraRowsPerSec: number }[],
): ArrivalRate {
  return (t) => {
    let rate = base(t);
    for (const burst of bursts) {
      if (t >= burst.atMs && t < burst.atMs + burst.durationMs) rate += burst.extraRowsPerSec;
    }
    return rate;
  };
}

/** Zero input during each gap, the base rate otherwise. */
export function withIdleGaps(base: ArrivalRate, gaps: { atMs: number; durationMs: number }[]): ArrivalRate {
  return (t) => {
    for (const gap of gaps) if (t >= gap.atMs && t < gap.atMs + gap.durationMs) return 0;
    return base(t);
  };
}

/** A linear ramp from `from` rows/s at `startMs` to `to` rows/s at `endMs`, flat outside. */
export function rampRate(from: number, to: number, startMs: number, endMs: number): ArrivalRate {
  return (t) => {
    if (t <= startMs) return from;
    if (t >= endMs) return to;
    return from + ((to - from) * (t - startMs)) / (endMs - startMs);
  };
}

/** A daily-ish sine swing around a mean: `mean × (1 + amplitude × sin(2π t / period))`. */
export function sinusoidalRate(mean: number, amplitude: number, periodMs: number, phaseMs = 0): ArrivalRate {
  return (t) => Math.max(0, mean * (1 + amplitude * Math.sin((2 * Math.PI * (t - phaseMs)) / periodMs)));
}

// Integration steps: fine enough for step changes inside a batch, bounded so one call stays cheap.
const MAX_STEPS = 64;
const STEP_MS = 1_000;

/** Expected rows arriving in [fromMs, toMs): the integral of λ (midpoint rule, bounded step count). */
export function expectedArrivals(rate: ArrivalRate, fromMs: number, toMs: number): number {
  const span = toMs - fromMs;
  if (span <= 0) return 0;
  const steps = Math.min(MAX_STEPS, Math.max(1, Math.ceil(span / STEP_MS)));
  const width = span / steps;
  let rows = 0;
  for (let i = 0; i < steps; i++) rows += Math.max(0, rate(fromMs + (i + 0.5) * width)) * (width / 1_000);
  return rows;
}
