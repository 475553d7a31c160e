/**
 * The production processes load only production code before their first line runs: the static
 * import graph (TypeScript sources, type-only imports erased, `import()` not followed) of
 * `start`, `web`, `worker` and `clock` never reaches the demo, the stand-ins, the simulator, or the
 * chart libraries (vega, vega-lite, resvg: loaded by `import()` when a digest chart is drawn).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, staticGraph } from './import-graph.js';
import { readImports } from './source-imports.js';

const ENTRIES = ['start', 'web', 'worker', 'clock'].map((name) => `src/cli/commands/${name}.ts`);
const FORBIDDEN_FILES = /^src\/(demo|standins|simulator)\//;
const FORBIDDEN_PACKAGES = /^(vega|vega-lite|@resvg\/resvg-js)(\/|$)/;

describe('the production import graph', () => {
  for (const entry of ENTRIES) {
    it(`${entry} reaches no demo, stand-in, simulator or chart library statically`, () => {
      const graph = staticGraph([entry]);
      expect(graph.files.size).toBeGreaterThan(20); // the walk follows imports at all
      const files = [...graph.files].filter(([file]) => FORBIDDEN_FILES.test(file)).map(([, path]) => path.join(' → '));
      const packages = [...graph.packages].filter(([name]) => FORBIDDEN_PACKAGES.test(name)).map(([, path]) => path.join(' → '));
      expect(files).toEqual([]);
      expect(packages).toEqual([]);
    });
  }

  it('the demo and the chart libraries are still loaded where they are needed (by import())', () => {
    expect(readImports(join(ROOT, 'src/cli/commands/start.ts')).dynamic).toContain('../../demo/run-demo.js');
    expect(readImports(join(ROOT, 'src/slack/chart/time-behind-chart.ts')).dynamic).toEqual(expect.arrayContaining(['vega', 'vega-lite', '@resvg/resvg-js']));
    // The walker does see a forbidden edge when there is one.
    const demo = staticGraph(['src/demo/run-demo.ts']);
    expect([...demo.files.keys()].some((file) => FORBIDDEN_FILES.test(file) && file !== 'src/demo/run-demo.ts')).toBe(true);
  });
});
