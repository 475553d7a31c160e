/**
 * Renders the digest chart to PNG: vega-lite spec → vega View.toSVG() → resvg → PNG. resvg loads
 * only the bundled DejaVu Sans (system fonts off), so the chart looks the same on every machine,
 * including slim containers without fonts. Times on the axis are UTC.
 * vega, vega-lite and resvg are loaded with `import()` when the first chart is drawn: they are most
 * of a process's start-up otherwise, and only the digest draws (test/cli/production-graph.test.ts).
 */
import { StreamDoctorError } from '../../util/errors.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildTimeBehindSpec, type TimeBehindChartOptions, type TimeBehindSeries } from './time-behind-spec.js';

/** Bundled font; see assets/fonts/DejaVuSans-LICENSE.txt. */
export const CHART_FONT_PATH = fileURLToPath(new URL('../../../assets/fonts/DejaVuSans.ttf', import.meta.url));
const FONT_FAMILY = 'DejaVu Sans';

export interface RenderedChart {
  png: Buffer;
  svg: string;
  width: number;
  height: number;
  drawn: string[];
  omitted: number;
}

export class ChartRenderError extends StreamDoctorError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('streamdoctor_chart_render_failed', message, options);
  }
}

let fontChecked = false;

interface ChartLibraries {
  vega: typeof import('vega');
  compile: typeof import('vega-lite').compile;
  Resvg: typeof import('@resvg/resvg-js').Resvg;
}

let libraries: Promise<ChartLibraries> | null = null;

function loadLibraries(): Promise<ChartLibraries> {
  libraries ??= Promise.all([import('vega'), import('vega-lite'), import('@resvg/resvg-js')]).then(([vega, vegaLite, resvg]) => ({
    vega,
    compile: vegaLite.compile,
    Resvg: resvg.Resvg,
  }));
  // A failed load is tried again on the next chart rather than remembered.
  libraries.catch(() => {
    libraries = null;
  });
  return libraries;
}

function ensureFont(): void {
  if (fontChecked) return;
  try {
    readFileSync(CHART_FONT_PATH, { flag: 'r' }).subarray(0, 4);
    fontChecked = true;
  } catch (error) {
    throw new ChartRenderError(`the chart font is missing at ${CHART_FONT_PATH}; restore assets/fonts/DejaVuSans.ttf`, { cause: error });
  }
}

/** Draws time behind per stream over the window. Rejects with ChartRenderError, never crashes. */
export async function renderTimeBehindChart(series: TimeBehindSeries[], options: TimeBehindChartOptions): Promise<RenderedChart> {
  ensureFont();
  const { spec, drawn, omitted } = buildTimeBehindSpec(series, { ...options, fontFamily: FONT_FAMILY });
  try {
    const { vega, compile, Resvg } = await loadLibraries();
    const vgSpec = compile(spec).spec;
    const view = new vega.View(vega.parse(vgSpec), { renderer: 'none' });
    const svg = await view.toSVG();
    view.finalize();
    const resvg = new Resvg(svg, {
      background: 'white',
      fitTo: { mode: 'zoom', value: 2 },
      font: { loadSystemFonts: false, fontFiles: [CHART_FONT_PATH], defaultFontFamily: FONT_FAMILY, sansSerifFamily: FONT_FAMILY },
    });
    const image = resvg.render();
    return { png: Buffer.from(image.asPng()), svg, width: image.width, height: image.height, drawn, omitted };
  } catch (error) {
    throw new ChartRenderError(`could not draw the time-behind chart: ${(error as Error).message}`, { cause: error });
  }
}
