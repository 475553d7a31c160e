/**
 * Robust statistics for short, noisy series of per-batch metrics (one GC pause or one slow batch must
 * not move a baseline or a trend):
 * median and MAD for baselines, Theil–Sen for slopes a single GC pause cannot bend, Mann–Kendall for
 * "is this really rising". All pure and allocation-light: they run on every batch.
 */

/** Median of the finite values; NaN when there are none. Does not modify `values`. */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Linear-interpolated quantile (q in 0..1) of the finite values; NaN when there are none. */
export function quantile(values: readonly number[], q: number): number {
  // A typed-array sort is numeric and several times faster than Array#sort with a comparator;
  // small inputs reuse one scratch buffer (these run several times per batch).
  const buffer = values.length <= SCRATCH.length ? SCRATCH : new Float64Array(values.length);
  let n = 0;
  for (const value of values) if (Number.isFinite(value)) buffer[n++] = value;
  return quantileInPlace(buffer, n, q);
}

/**
 * `quantile` of the first n values of `buffer`, all finite, sorting them in place: for callers
 * that collect values straight into a typed scratch buffer instead of an array.
 */
export function quantileInPlace(buffer: Float64Array, n: number, q: number): number {
  if (n === 0) return Number.NaN;
  if (n <= 16) {
    // Most calls sort a handful of values: an insertion sort in place beats the typed-array sort's
    // fixed cost. Same order as that sort, -0 before +0 included, so the same result to the bit.
    for (let i = 1; i < n; i += 1) {
      const x = buffer[i]!;
      let j = i - 1;
      while (j >= 0 && (buffer[j]! > x || (buffer[j] === x && 1 / buffer[j]! > 1 / x))) {
        buffer[j + 1] = buffer[j]!;
        j -= 1;
      }
      buffer[j + 1] = x;
    }
    return interpolate(buffer, n, q);
  }
  return interpolate(buffer.subarray(0, n).sort(), n, q);
}

const SCRATCH = new Float64Array(2048);

/** The q quantile of the first n values of `sorted` (ascending), linearly interpolated. */
function interpolate(sorted: Float64Array, n: number, q: number): number {
  const position = (n - 1) * Math.min(1, Math.max(0, q));
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
}

/** Median absolute deviation from the median. */
export function mad(values: readonly number[]): number {
  const center = median(values);
  if (!Number.isFinite(center)) return Number.NaN;
  return median(values.map((value) => Math.abs(value - center)));
}

/** Robust z-score 0.6745 (x − median) / MAD; Infinity when MAD is 0 and x differs from the median. */
export function robustZ(x: number, values: readonly number[]): number {
  const center = median(values);
  const spread = mad(values);
  if (!Number.isFinite(center)) return 0;
  if (spread === 0 || !Number.isFinite(spread)) return x === center ? 0 : Math.sign(x - center) * Infinity;
  return (0.6745 * (x - center)) / spread;
}

/**
 * Theil–Sen slope: the median of all pairwise slopes (ys[j] − ys[i]) / (xs[j] − xs[i]). Pairs with
 * equal x are skipped. NaN when fewer than two usable points.
 */
export function theilSen(xs: readonly number[], ys: readonly number[]): number {
  const slopes: number[] = [];
  const n = Math.min(xs.length, ys.length);
  for (let i = 0; i < n; i += 1) {
    for (let j = i + 1; j < n; j += 1) {
      const dx = xs[j]! - xs[i]!;
      if (dx !== 0 && Number.isFinite(dx) && Number.isFinite(ys[i]!) && Number.isFinite(ys[j]!)) {
        slopes.push((ys[j]! - ys[i]!) / dx);
      }
    }
  }
  return median(slopes);
}

/** Theil–Sen slope against the index (0, 1, 2, …): the typical change per step. */
export function theilSenPerStep(ys: readonly number[]): number {
  const slopes: number[] = [];
  for (let i = 0; i < ys.length; i += 1) {
    for (let j = i + 1; j < ys.length; j += 1) slopes.push((ys[j]! - ys[i]!) / (j - i));
  }
  return median(slopes);
}

/** Mann–Kendall S = Σ sign(x_j − x_i) over i < j. Relative ties (|Δ| ≤ tol·|x_i|) count as 0. */
export function mannKendallS(values: readonly number[], relativeTolerance = 0): number {
  let s = 0;
  for (let i = 0; i < values.length; i += 1) {
    const base = values[i]!;
    const tol = Math.abs(base) * relativeTolerance;
    for (let j = i + 1; j < values.length; j += 1) {
      const delta = values[j]! - base;
      if (delta > tol) s += 1;
      else if (delta < -tol) s -= 1;
    }
  }
  return s;
}

/**
 * One-sided 1 % critical value of Mann–Kendall S for n points (exact null distribution for small
 * n, normal approximation beyond). Below 5 points no S is significant: returns Infinity.
 */
export function mannKendallCritical(n: number): number {
  const exact: Record<number, number> = { 5: 10, 6: 13, 7: 17, 8: 20, 9: 24, 10: 27 };
  if (n < 5) return Infinity;
  if (exact[n] !== undefined) return exact[n]!;
  const variance = (n * (n - 1) * (2 * n + 5)) / 18;
  return Math.ceil(2.326 * Math.sqrt(variance)) + 1;
}

/** Mann–Kendall Z (normal approximation with continuity correction). */
export function mannKendallZ(values: readonly number[], relativeTolerance = 0): number {
  const n = values.length;
  if (n < 3) return 0;
  const s = mannKendallS(values, relativeTolerance);
  const variance = (n * (n - 1) * (2 * n + 5)) / 18;
  if (s === 0) return 0;
  return (s - Math.sign(s)) / Math.sqrt(variance);
}

/** Coefficient of variation (stdev / mean) of the values; 0 for constant or empty input. */
export function coefficientOfVariation(values: readonly number[]): number {
  if (values.length === 0) return 0;
  let sum = 0;
  for (const value of values) sum += value;
  const mean = sum / values.length;
  if (mean === 0) return 0;
  let squares = 0;
  for (const value of values) squares += (value - mean) ** 2;
  return Math.sqrt(squares / values.length) / Math.abs(mean);
}

/** Pearson correlation of `xs` and `ys` (equal lengths); NaN when either does not vary. */
export function correlation(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i += 1) {
    mx += xs[i]!;
    my += ys[i]!;
  }
  mx /= n;
  my /= n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i += 1) {
    const dx = xs[i]! - mx;
    const dy = ys[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : Number.NaN;
}
