import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWatchConfig, type WatchConfig } from '../../src/config/index.js';
import { buildWatchRuntime, WatchSourcesError } from '../../src/runtime/watch-sources.js';
import { databricksUrlFor } from '../../src/slack/operations/databricks-url.js';
import type { SourceEntry } from '../../src/sources/index.js';
import { StreamSimulator } from '../../src/simulator/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';

const ORDERS = '0b6c6f0e-8d3a-4b7e-a4d2-5e9f8c7b6a51';
const CLICKS = '6f1d3b7e-2a4c-4e5f-9b8a-1c2d3e4f5a60';
const PIPELINE = '2f3e4d5c-6b7a-4988-b7c6-d5e4f3a2b1c0';

function config(prodHost: string): WatchConfig {
  const text = `
workspaces:
  - name: prod
    host: ${prodHost}
    auth:
      client_id_env: SD_CLIENT_ID
      client_secret_env: SD_CLIENT_SECRET
    warehouse_id: 4b9b953939869799
    progress_table: main.streamdoctor.streaming_progress
    jobs:
      - id: 912004377120455
        name: orders-enrichment
        continuous: true
        channel: "#stream-orders"
    pipelines:
      - id: ${PIPELINE}
        name: payments-dlt
        channel: "#payments"
  - name: staging
    host: https://dbc-a1b2c3d4-e5f6.cloud.databricks.com
    auth:
      token_env: STAGING_TOKEN
streams:
  - query_id: ${ORDERS}
    name: orders_enrichment
    workspace: prod
    job: 912004377120455
    trigger: 20s
    cores: 16
  - query_id: ${CLICKS}
    workspace: prod
    channel: "#clicks"
    retention: 3d
  - name: by_name_only
    workspace: prod
defaults:
  channel: "#data-alerts"
thresholds:
  repartition: 5m
`;
  const result = loadWatchConfig(text, 'streamdoctor.yml');
  if (!result.ok) throw new Error(result.message);
  return result.config;
}

let databricks: LocalDatabricks;
const env = { SD_CLIENT_ID: 'sp-streamdoctor', SD_CLIENT_SECRET: 'dose-local-secret', STAGING_TOKEN: 'dapi-staging-0123456789abcdef' };

beforeAll(async () => {
  databricks = await startLocalDatabricks({
    warehouses: ['4b9b953939869799'],
    oauthClients: [{ clientId: env.SD_CLIENT_ID, clientSecret: env.SD_CLIENT_SECRET }],
    pipelines: [{ pipelineId: PIPELINE, name: 'payments-dlt' }],
  });
});
afterAll(async () => databricks.close());

describe('buildWatchRuntime', () => {
  it('builds one progress source per workspace table, one per pipeline, one for the jobs', () => {
    const runtime = buildWatchRuntime(config(databricks.url), { env });
    expect([...runtime.sources.keys()].sort()).toEqual(['prod.jobs', `prod.pipeline.${PIPELINE}`, 'prod.progress']);
  });

  it('routes by query, then job, then pipeline, then the default channel', () => {
    const { routing } = buildWatchRuntime(config(databricks.url), { env });
    expect(routing.defaultChannel).toBe('#data-alerts');
    expect(routing.jobs).toEqual({ '912004377120455': '#stream-orders' });
    expect(routing.pipelines).toEqual({ [PIPELINE]: '#payments' });
    expect(routing.queries?.[CLICKS]).toBe('#clicks');
    // A stream with a job but no channel of its own inherits the job's.
    expect(routing.queries?.[ORDERS]).toBe('#stream-orders');
  });

  it('describes a stream with its workspace’s name and origin, so "Open in Databricks" leads to the workspace, not to https://prod/', () => {
    const runtime = buildWatchRuntime(config(databricks.url), { env });
    const progress = { id: ORDERS, name: 'orders_enrichment' } as Parameters<NonNullable<SourceEntry['describe']>>[0];
    const info = runtime.sources.get('prod.progress')!.describe!(progress);
    expect(info).toMatchObject({ workspace: 'prod', workspaceUrl: databricks.url, jobId: '912004377120455' });
    expect(databricksUrlFor(info)).toBe(`${new URL(databricks.url).origin}/jobs/912004377120455`);
  });

  it('gives the engine each stream’s trigger, cores, retention and the repartition threshold', () => {
    const runtime = buildWatchRuntime(config(databricks.url), { env });
    expect(runtime.engineOptionsFor(ORDERS)).toEqual({ triggerMs: 20_000, cores: 16, retentionMs: 7 * 86_400_000, repartitionThresholdMs: 300_000 });
    expect(runtime.engineOptionsFor(CLICKS)).toMatchObject({ retentionMs: 3 * 86_400_000 });
    expect(runtime.engineOptionsFor('00000000-0000-4000-8000-000000000000')).toEqual({ retentionMs: 7 * 86_400_000, repartitionThresholdMs: 300_000 });
  });

  it('lists every missing credential variable, by workspace, without starting anything', () => {
    const attempt = () => buildWatchRuntime(config(databricks.url), { env: { SD_CLIENT_ID: 'x' } });
    expect(attempt).toThrow(WatchSourcesError);
    try {
      attempt();
    } catch (err) {
      const problems = (err as WatchSourcesError).problems.join('\n');
      expect(problems).toMatch(/workspace "prod"[^\n]*SD_CLIENT_SECRET/);
      expect(problems).toMatch(/workspace "staging"[^\n]*STAGING_TOKEN/);
    }
  });

  it('polls the progress table over real HTTP with the service principal and returns the watched queries only', async () => {
    const start = Date.now() - 120_000;
    const watched = new StreamSimulator({ id: ORDERS, name: 'orders_enrichment', arrival: 9_000, processing: { rowsPerSecPerCore: 1_500 }, triggerMs: 20_000, source: { kind: 'kafka', topic: 'orders' } }, { startMs: start, seed: 3 });
    const other = new StreamSimulator({ name: 'unwatched', arrival: 100, processing: { rowsPerSecPerCore: 1_000 }, source: { kind: 'kafka' } }, { startMs: start, seed: 4 });
    for (const batch of watched.take(3)) databricks.insertProgress(batch.json);
    for (const batch of other.take(2)) databricks.insertProgress(batch.json);
    const runtime = buildWatchRuntime(config(databricks.url), { env });
    const result = await runtime.sources.get('prod.progress')!.source.poll(null);
    expect(result.progress.map((p) => p.progress.id)).toEqual([ORDERS, ORDERS, ORDERS]);
    expect(result.progress.map((p) => p.progress.batchId)).toEqual([0, 1, 2]);
    expect(databricks.requests().byRoute['POST /oidc/v1/token']).toBe(1);
  });
});
