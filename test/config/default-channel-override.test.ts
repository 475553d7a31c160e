import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';

const WATCH = `
workspaces:
  - name: prod
    host: https://adb-1234567890123456.7.azuredatabricks.net
    warehouse_id: 4b9b953939869799
    progress_table: main.streamdoctor.streaming_progress
    jobs:
      - id: 42
      - id: 43
        channel: "#jobs-own"
streams:
  - query_id: 0b6c6f0e-8d3a-4b7e-a4d2-5e9f8c7b6a51
  - query_id: 6f1d3b7e-2a4c-4e5f-9b8a-1c2d3e4f5a60
    channel: "#clicks"
defaults:
  channel: "#from-file"
`;

async function load(env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'sd-default-channel-'));
  writeFileSync(join(dir, 'streamdoctor.yml'), WATCH);
  const config = await loadConfig({ STREAMDOCTOR_CONFIG: join(dir, 'streamdoctor.yml'), ...env });
  expect(config.problems).toEqual([]);
  const watch = config.watch!;
  return {
    default: watch.defaultChannel,
    streams: watch.streams.map((s) => s.channel),
    jobs: watch.workspaces[0]!.jobs.map((j) => j.channel),
  };
}

describe('STREAMDOCTOR_DEFAULT_CHANNEL', () => {
  it('replaces the file’s defaults.channel wherever the file would use it, not the channels it names', async () => {
    expect(await load({ STREAMDOCTOR_DEFAULT_CHANNEL: '#ops' })).toEqual({ default: '#ops', streams: ['#ops', '#clicks'], jobs: ['#ops', '#jobs-own'] });
  });

  it('leaves the file’s default when unset', async () => {
    expect(await load({})).toEqual({ default: '#from-file', streams: ['#from-file', '#clicks'], jobs: ['#from-file', '#jobs-own'] });
  });
});
