/**
 * The vega-lite spec of the digest chart: time behind per stream over the window, one line per
 * stream. Pure, so tests can check the data that goes in without rendering.
 */
import type { TopLevelSpec } from 'vega-lite';

export interface TimeBehindSeries {
  /** Stream label (name or query id); plain text, the chart does no markup. */
  name: string;
  points: { atMs: number; timeBehindSec: number }[];
}

export interface TimeBehindChartOptions {
  nowMs: number;
  /**
   * Window shown, ending at `nowMs`.
   * @defaultValue 24 hours
   */
  windowMs?: number;
  /** @defaultValue 900 */
  width?: number;
  /** @defaultValue 320 */
  height?: number;
  /**
   * Streams drawn (the worst by peak time behind); the rest are summed up in the title.
   * @defaultValue 8
   */
  maxSeries?: number;
  /** Streams whose samples were not read at all (past a read limit), counted with those not drawn. @defaultValue 0 */
  notRead?: number;
  /** Font family the renderer has loaded. @defaultValue 'DejaVu Sans' */
  fontFamily?: string;
}

export interface TimeBehindSpecResult {
  spec: TopLevelSpec;
  /** Series drawn and series left out. */
  drawn: string[];
  omitted: number;
  /** Unit the y axis uses (seconds, minutes or hours), picked from the peak. */
  unit: 's' | 'min' | 'h';
}

export function buildTimeBehindSpec(series: TimeBehindSeries[], options: TimeBehindChartOptions): TimeBehindSpecResult {
  const windowMs = options.windowMs ?? 24 * 3_600_000;
  const since = options.nowMs - windowMs;
  const maxSeries = options.maxSeries ?? 8;
  const font = options.fontFamily ?? 'DejaVu Sans';
  const inWindow = series
    .map((entry) => ({
      name: entry.name.slice(0, 60),
      points: entry.points.filter((point) => point.atMs >= since && point.atMs <= options.nowMs && Number.isFinite(point.timeBehindSec)),
    }))
    .filter((entry) => entry.points.length > 0);
  const peak = (entry: { points: { timeBehindSec: number }[] }) => Math.max(...entry.points.map((point) => point.timeBehindSec));
  const ranked = inWindow.sort((a, b) => peak(b) - peak(a) || a.name.localeCompare(b.name));
  const drawn = ranked.slice(0, maxSeries);
  const overallPeak = drawn.length > 0 ? Math.max(...drawn.map(peak)) : 0;
  const unit: 's' | 'min' | 'h' = overallPeak >= 2 * 3600 ? 'h' : overallPeak >= 120 ? 'min' : 's';
  const divisor = unit === 'h' ? 3600 : unit === 'min' ? 60 : 1;
  const values = drawn.flatMap((entry) =>
    entry.points
      .sort((a, b) => a.atMs - b.atMs)
      .map((point) => ({ stream: entry.name, t: point.atMs, behind: Math.round((point.timeBehindSec / divisor) * 100) / 100 })),
  );
  const omitted = ranked.length - drawn.length + (options.notRead ?? 0);
  const empty = values.length === 0;
  // With no samples vega would size the view to nothing; draw empty axes over the window instead.
  if (empty) values.push({ stream: '', t: since, behind: 0 }, { stream: '', t: options.nowMs, behind: 0 });
  const title = `Time behind per stream, last ${Math.round(windowMs / 3_600_000)} h${empty ? ': no samples yet' : ''}${omitted > 0 ? ` (worst ${drawn.length}; ${omitted} more not drawn)` : ''}`;
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    width: options.width ?? 900,
    height: options.height ?? 320,
    background: 'white',
    padding: 12,
    title: { text: title, font, fontSize: 15, anchor: 'start' },
    config: {
      font,
      axis: { labelFont: font, titleFont: font, labelFontSize: 11, titleFontSize: 12, gridColor: '#e6e6e6' },
      legend: { labelFont: font, titleFont: font, labelFontSize: 11, orient: 'bottom', columns: 4, labelLimit: 220 },
      view: { stroke: null },
    },
    data: { values },
    mark: { type: 'line', interpolate: 'monotone', strokeWidth: 2, point: !empty && values.length <= 60, opacity: empty ? 0 : 1 },
    encoding: {
      x: {
        field: 't',
        type: 'temporal',
        title: 'UTC',
        scale: { type: 'utc', domain: [since, options.nowMs] },
        axis: { format: '%H:%M', tickCount: 12, labelFont: font },
      },
      y: { field: 'behind', type: 'quantitative', title: `time behind (${unit})`, scale: { zero: true, nice: true } },
      color: { field: 'stream', type: 'nominal', title: null, scale: { scheme: 'tableau10' }, legend: empty ? null : {} },
    },
  };
  return { spec, drawn: drawn.map((entry) => entry.name), omitted, unit };
}
