/**
 * A query id pasted in upper case (the watch file accepts it) must watch and route the stream whose
 * progress Spark writes with the lower-case id: the SQL filter (array_contains) and the routing keys
 * compare exactly. The config normalises it where it is read, so both match.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWatchConfig } from '../../src/config/index.js';
import { buildWatchRuntime } from '../../src/runtime/watch-sources.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';
import { simulatedBatches } from '../sources/simulated-progress.js';

const PAT = 'dapi-local-test-token-000000000023';
const START = Date.UTC(2026, 8, 14, 10, 0, 0);
let databricks: LocalDatabricks;

beforeAll(async () => {
  databricks = await startLocalDatabricks({ tokens: [PAT], startMs: START, speed: 0, warehouses: ['4b9b953939869799'] });
});
afterAll(async () => databricks.close());

describe('watch file: an upper-case query_id', () => {
  it('reads and routes the stream Spark writes in lower case', async () => {
    const batches = simulatedBatches('orders_5min_agg', 5, START, 7);
    const id = batches[0]!.id;
    expect(id).toBe(id.toLowerCase());
    for (const batch of batches) databricks.insertProgress(batch.json, { ingestedAtMs: batch.endMs });
    databricks.clock.advance(120_000);

    const text = `workspaces:
  - name: prod
    host: ${databricks.url}
    auth: { token_env: SD_TOKEN }
    warehouse_id: 4b9b953939869799
    progress_table: main.streamdoctor.streaming_progress
streams:
  - query_id: ${id.toUpperCase()}
    channel: "#orders"
    cores: 8
defaults:
  channel: "#streaming-alerts"
`;
    const loaded = loadWatchConfig(text, 'streamdoctor.yml');
    if (!loaded.ok) throw new Error(loaded.message);
    const runtime = buildWatchRuntime(loaded.config, { env: { SD_TOKEN: PAT }, now: () => databricks.clock.now() });

    expect(runtime.routing.queries).toEqual({ [id]: '#orders' });
    expect(runtime.engineOptionsFor(id)).toMatchObject({ cores: 8 });
    const result = await runtime.sources.get('prod.progress')!.source.poll(null);
    expect(result.progress.map((record) => record.progress.batchId)).toEqual([0, 1, 2, 3, 4]);
  });
});
