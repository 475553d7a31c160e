/**
 * A workspace that names a ~/.databrickscfg profile: the runtime reads the file named by
 * DATABRICKS_CONFIG_FILE and the bot sends that profile's token to the local Databricks over
 * loopback (which accepts that token only).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWatchConfig, type WatchConfig } from '../../src/config/index.js';
import { buildWatchRuntime, WatchSourcesError } from '../../src/runtime/watch-sources.js';
import { StreamSimulator } from '../../src/simulator/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';

const ORDERS = '0b6c6f0e-8d3a-4b7e-a4d2-5e9f8c7b6a51';
const PROD_TOKEN = 'dapi-profile-prod-0123456789abcdef';

let databricks: LocalDatabricks;
let dir: string;
let cfgPath: string;

function config(auth: string): WatchConfig {
  const text = `
workspaces:
  - name: prod
    host: ${databricks.url}
${auth}    warehouse_id: 4b9b953939869799
    progress_table: main.streamdoctor.streaming_progress
streams:
  - query_id: ${ORDERS}
    name: orders_enrichment
defaults:
  channel: "#data-alerts"
`;
  const result = loadWatchConfig(text, 'streamdoctor.yml');
  if (!result.ok) throw new Error(result.message);
  return result.config;
}

beforeAll(async () => {
  databricks = await startLocalDatabricks({ warehouses: ['4b9b953939869799'], tokens: [PROD_TOKEN] });
  dir = mkdtempSync(join(tmpdir(), 'sd-databrickscfg-'));
  cfgPath = join(dir, 'databrickscfg');
  writeFileSync(
    cfgPath,
    [
      '; as databricks configure writes it',
      '[DEFAULT]',
      `host  = ${databricks.url}`,
      'token = dapi-revoked-0000000000000000',
      '',
      '[prod]',
      `host  = ${databricks.url}`,
      `token = ${PROD_TOKEN}`,
      '',
    ].join('\n'),
  );
  const start = Date.now() - 60_000;
  const orders = new StreamSimulator(
    { id: ORDERS, name: 'orders_enrichment', arrival: 9_000, processing: { rowsPerSecPerCore: 1_500 }, triggerMs: 20_000, source: { kind: 'kafka', topic: 'orders' } },
    { startMs: start, seed: 3 },
  );
  for (const batch of orders.take(2)) databricks.insertProgress(batch.json);
});
afterAll(async () => {
  await databricks.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a workspace authenticated by a ~/.databrickscfg profile', () => {
  it('sends the named profile’s token to Databricks', async () => {
    const runtime = buildWatchRuntime(config('    auth:\n      profile: prod\n'), { env: { DATABRICKS_CONFIG_FILE: cfgPath } });
    const result = await runtime.sources.get('prod.progress')!.source.poll(null);
    expect(result.progress.map((p) => p.progress.batchId)).toEqual([0, 1]);
  });

  it('picks the profile with DATABRICKS_CONFIG_PROFILE when the workspace has no auth', async () => {
    const runtime = buildWatchRuntime(config(''), { env: { DATABRICKS_CONFIG_FILE: cfgPath, DATABRICKS_CONFIG_PROFILE: 'prod' } });
    const result = await runtime.sources.get('prod.progress')!.source.poll(null);
    expect(result.progress).toHaveLength(2);
  });

  it('sends [DEFAULT]’s token when nothing names a profile (refused here: not the accepted token)', async () => {
    const runtime = buildWatchRuntime(config(''), { env: { DATABRICKS_CONFIG_FILE: cfgPath } });
    await expect(runtime.sources.get('prod.progress')!.source.poll(null)).rejects.toMatchObject({ httpStatus: 403, code: 'streamdoctor_databricks_unauthenticated', credentialsRejected: true });
  });

  it('refuses to start when the profile is missing or the token and OAuth are both set', () => {
    const problems = (env: NodeJS.ProcessEnv, auth: string) => {
      try {
        buildWatchRuntime(config(auth), { env });
      } catch (err) {
        expect(err).toBeInstanceOf(WatchSourcesError);
        return (err as WatchSourcesError).problems;
      }
      throw new Error('expected a refusal');
    };
    expect(problems({ DATABRICKS_CONFIG_FILE: cfgPath }, '    auth:\n      profile: staging\n')).toEqual([
      `workspace "prod": profile [staging] (named by auth.profile in the watch file) is not in ${cfgPath}; profiles there: [DEFAULT], [prod]`,
    ]);
    expect(problems({ DATABRICKS_CONFIG_FILE: cfgPath, DATABRICKS_CLIENT_ID: 'sp', DATABRICKS_CLIENT_SECRET: 's' }, '    auth:\n      profile: prod\n')[0]).toMatch(
      /^workspace "prod": both a token \(token in \[prod\] \([^)]+:8\)\) and OAuth credentials \(DATABRICKS_CLIENT_ID and DATABRICKS_CLIENT_SECRET\) are set; remove/,
    );
    expect(problems({ DATABRICKS_CONFIG_FILE: join(dir, 'nope') }, '    auth:\n      profile: prod\n')[0]).toBe(
      `DATABRICKS_CONFIG_FILE names ${join(dir, 'nope')}, which does not exist; fix the path or unset it to use ~/.databrickscfg`,
    );
  });
});
