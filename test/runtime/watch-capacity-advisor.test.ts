/**
 * The processes' capacity advisor comes from the watch file: the workspace a stream names, its
 * client (the one its sources use) and `jobs/get` on the local Databricks over HTTP.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import type { Incident } from '../../src/diagnosis/types.js';
import { createLogger } from '../../src/observability/logger.js';
import { loadWatchSetup } from '../../src/runtime/process-setup.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';

const PAT = 'dapi-watch-advisor-0123456789abcdef';
let databricks: LocalDatabricks;
let dir: string;

const record = {
  incident: {
    advice: [
      {
        text: 'Give the query about 1.5× its current throughput (load factor 1.30 plus headroom to drain the backlog): more or larger workers. A longer trigger interval than 30 s will not help: it only adds idle time.',
        throughputFactor: 1.5,
        loadFactor: 1.3,
      },
    ],
  } as unknown as Incident,
};

beforeAll(async () => {
  databricks = await startLocalDatabricks({
    tokens: [PAT],
    speed: 0,
    jobs: [{ jobId: 4471, name: 'sensor-ingest', continuous: true, compute: { tasks: [{ task_key: 'ingest', new_cluster: { node_type_id: 'n2-highmem-4', autoscale: { min_workers: 2, max_workers: 8 } } }] } }],
  });
  dir = mkdtempSync(join(tmpdir(), 'sd-watch-advisor-'));
});
afterAll(async () => {
  await databricks.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the watch file capacity advisor', () => {
  it('says capacity advice in workers for a stream of a known job, and keeps the wording otherwise', async () => {
    const path = join(dir, 'watch.yml');
    writeFileSync(
      path,
      `workspaces:
  - name: prod
    host: ${databricks.url}
    auth:
      token_env: SD_TEST_TOKEN
    warehouse_id: 4b9b953939869799
    progress_table: main.streamdoctor.streaming_progress
    jobs:
      - id: 4471
streams:
  - name: sensor_ingest
    job: 4471
defaults:
  channel: "#data-alerts"
`,
    );
    const envVars = { STREAMDOCTOR_CONFIG: path, SD_TEST_TOKEN: PAT };
    const setup = await loadWatchSetup({ config: await loadConfig(envVars), logger: createLogger({ name: 'test', level: 'silent' }) }, envVars);
    const advisor = setup.capacityAdvisor!;
    const known = await advisor.inWorkers(record, { workspace: 'prod', jobId: '4471' });
    expect(known.incident.advice[0]!.text).toMatch(/^Raise autoscale max from 8 to 12 workers on the cluster of task `ingest` \(4 cores each, at most 32 → 48 cores\): the query needs about 1\.5× its current throughput \(load factor 1\.30 plus headroom/);
    // No workspace on the stream: the watch file's only workspace.
    expect((await advisor.inWorkers(record, { jobId: '4471' })).incident.advice[0]!.setting).toBe('autoscale.max_workers');
    expect(await advisor.inWorkers(record, { workspace: 'prod' })).toBe(record);
    expect(await advisor.inWorkers(record, { workspace: 'staging', jobId: '4471' })).toBe(record);
    expect(await advisor.inWorkers(record, null)).toBe(record);
    expect(databricks.requests().byRoute['GET /api/2.1/jobs/get']).toBe(1);
  });
});
