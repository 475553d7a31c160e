/**
 * `loadWatchSetup` builds every process's sources from the configuration (`loadConfig` read the
 * environment and the file STREAMDOCTOR_CONFIG names; `composeProcess` calls it for start, web,
 * worker and clock): the sources run on the clock it is given (the demo's accelerated one), and the
 * environment wins where both say something.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/observability/logger.js';
import { loadWatchSetup } from '../../src/runtime/process-setup.js';
import { StreamSimulator } from '../../src/simulator/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';

const ORDERS = '0b6c6f0e-8d3a-4b7e-a4d2-5e9f8c7b6a51';
// Far from the wall clock: a source on Date.now would look for rows in the wrong hour.
const START = Date.UTC(2026, 0, 5, 3, 0, 0);
const PAT = 'dapi-load-watch-setup-0123456789ab';

let databricks: LocalDatabricks;
let dir: string;

function watchFile(host: string, extra = ''): string {
  return `workspaces:
  - name: prod
    host: ${host}
    auth:
      token_env: SD_TEST_TOKEN
    warehouse_id: 4b9b953939869799
    progress_table: main.streamdoctor.streaming_progress
streams:
  - query_id: ${ORDERS}
    trigger: 20s
defaults:
  channel: "#data-alerts"
poll_interval: 45s
digest:
  time: "08:30"
  time_zone: Europe/Berlin
${extra}`;
}

async function setupFor(envVars: NodeJS.ProcessEnv) {
  return { config: await loadConfig(envVars), logger: createLogger({ name: 'test', level: 'silent' }) };
}

beforeAll(async () => {
  databricks = await startLocalDatabricks({ tokens: [PAT], warehouses: ['4b9b953939869799'], startMs: START, speed: 0 });
  dir = mkdtempSync(join(tmpdir(), 'sd-load-watch-'));
});
afterAll(async () => {
  await databricks.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('loadWatchSetup', () => {
  it('builds the sources on the clock it is given, with the file’s poll interval, digest and engine options', async () => {
    const sim = new StreamSimulator(
      { id: ORDERS, name: 'orders', arrival: 9_000, processing: { rowsPerSecPerCore: 1_500 }, triggerMs: 20_000, source: { kind: 'kafka', topic: 'orders' } },
      { startMs: START, seed: 5 },
    );
    databricks.addStream('orders', { generator: sim, table: 'main.streamdoctor.streaming_progress' });
    databricks.clock.advance(5 * 60_000);
    const path = join(dir, 'clocked.yml');
    writeFileSync(path, watchFile(databricks.url));
    const envVars = { STREAMDOCTOR_CONFIG: path, SD_TEST_TOKEN: PAT };

    const clocked = await loadWatchSetup(await setupFor(envVars), envVars, { now: () => databricks.clock.now() });
    expect(clocked.pollEveryMs).toBe(45_000);
    expect(clocked.digestAt).toBe('08:30');
    expect(clocked.timeZone).toBe('Europe/Berlin');
    expect(clocked.routing.defaultChannel).toBe('#data-alerts');
    expect(clocked.engineOptionsFor(ORDERS)).toMatchObject({ triggerMs: 20_000 });
    const read = await clocked.sources.get('prod.progress')!.source.poll(null);
    expect(read.progress.length).toBeGreaterThanOrEqual(14); // 5 simulated minutes of a 20 s trigger
    expect(read.progress.every((record) => record.progress.id === ORDERS)).toBe(true);

    // On the wall clock, the initial lookback misses every row written in simulated January.
    const wall = await loadWatchSetup(await setupFor(envVars), envVars);
    expect((await wall.sources.get('prod.progress')!.source.poll(null)).progress).toEqual([]);
  });

  it('lets STREAMDOCTOR_POLL_SECONDS and STREAMDOCTOR_DEFAULT_CHANNEL win over the file', async () => {
    const path = join(dir, 'env-wins.yml');
    writeFileSync(path, watchFile(databricks.url));
    const envVars = { STREAMDOCTOR_CONFIG: path, SD_TEST_TOKEN: PAT, STREAMDOCTOR_POLL_SECONDS: '5', STREAMDOCTOR_DEFAULT_CHANNEL: '#ops' };
    const setup = await loadWatchSetup(await setupFor(envVars), envVars);
    expect(setup.pollEveryMs).toBe(5_000);
    expect(setup.routing.defaultChannel).toBe('#ops');
  });

  it('is empty without STREAMDOCTOR_CONFIG, and rejects a bad file with its line and what to write', async () => {
    const none = await loadWatchSetup(await setupFor({}), {});
    expect(none.watch).toBeNull();
    expect(none.sources.size).toBe(0);
    expect(none.engineOptionsFor(ORDERS)).toBeUndefined();

    const path = join(dir, 'bad.yml');
    writeFileSync(path, watchFile(databricks.url, 'thresholds:\n  stalled_after: 15m\n'));
    const envVars = { STREAMDOCTOR_CONFIG: path, SD_TEST_TOKEN: PAT };
    // The file is read with the environment: its mistakes join the one list of problems.
    const config = await loadConfig(envVars);
    expect(config.watch).toBeNull();
    expect(config.problems.join('\n')).toContain(`${path}:18:18 thresholds.stalled_after: is not supported`);
  });

  it('names the missing credential variable instead of starting without it', async () => {
    const path = join(dir, 'no-token.yml');
    writeFileSync(path, watchFile(databricks.url));
    const envVars = { STREAMDOCTOR_CONFIG: path };
    const error = (await loadWatchSetup(await setupFor(envVars), envVars).catch((caught: unknown) => caught)) as Error & { code?: string };
    expect(error.code).toBe('streamdoctor_config_invalid');
    expect(error.message).toContain('SD_TEST_TOKEN');
  });
});
