import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localWatchFile } from '../../src/cli/commands/local-databricks.js';
import { loadWatchConfig } from '../../src/config/index.js';
import { buildWatchRuntime } from '../../src/runtime/watch-sources.js';
import { scenarioByName } from '../../src/simulator/index.js';
import { playScenario, startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';

let local: LocalDatabricks;

beforeAll(async () => {
  local = await startLocalDatabricks({ speed: 60, jobs: [{ jobId: 1_000, name: 'orders-job', continuous: true }] });
});
afterAll(async () => local.close());

describe('the watch file `streamdoctor local-databricks` prints', () => {
  it('is accepted as written and polls the stand-in it was printed for', async () => {
    const played = playScenario(local, scenarioByName('healthy-steady'), { jobId: 1_000 });
    const loaded = loadWatchConfig(localWatchFile(local.url, [played]), 'local-watch.yml');
    if (!loaded.ok) throw new Error(loaded.message);
    expect(loaded.warnings).toEqual([]);
    const runtime = buildWatchRuntime(loaded.config, { env: { DATABRICKS_TOKEN: 'dapi-local-0123456789abcdef' } });
    const source = runtime.sources.get('local.progress')!.source;
    // At 60× the scenario's first batches land within a few seconds of real time.
    let ids: string[] = [];
    for (let attempt = 0; attempt < 50 && ids.length === 0; attempt += 1) {
      ids = (await source.poll(null)).progress.map((p) => p.progress.id);
      if (ids.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(ids.length).toBeGreaterThan(0);
    expect(new Set(ids)).toEqual(new Set([played.queryId]));
  });
});
