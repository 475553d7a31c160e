import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadWatchConfig, resolveWorkspaceCredentials } from '../../src/config/index.js';

const EXAMPLE = readFileSync(new URL('../../examples/streamdoctor.example.yml', import.meta.url), 'utf8');

function errorsOf(text: string) {
  const result = loadWatchConfig(text, 'streamdoctor.yml');
  if (result.ok) throw new Error('expected the file to be rejected');
  return result;
}

const MINIMAL = `workspaces:
  - name: prod
    host: adb-1234567890123456.7.azuredatabricks.net
    auth:
      token_env: DATABRICKS_TOKEN
    warehouse_id: 4b9b953939869799
    progress_table: main.streamdoctor.streaming_progress
streams:
  - name: orders_5min_agg
defaults:
  channel: "#streaming-alerts"
`;

describe('loadWatchConfig', () => {
  it('accepts the shipped example and resolves channels, durations and jobs', () => {
    const result = loadWatchConfig(EXAMPLE, 'examples/streamdoctor.example.yml');
    if (!result.ok) throw new Error(result.message);
    const { config } = result;
    expect(config.workspaces[0]).toMatchObject({
      name: 'prod',
      host: 'https://adb-1234567890123456.7.azuredatabricks.net',
      auth: { kind: 'pat', tokenEnv: 'DATABRICKS_TOKEN' },
      warehouseId: '4b9b953939869799',
      progressTable: 'main.streamdoctor.streaming_progress',
    });
    expect(config.streams[0]).toMatchObject({ queryId: '8f3c2a51-6b0e-4d7a-9c1e-2b5f7d9a0e34', channel: '#orders-oncall', jobId: 19064954, triggerMs: 30_000, cores: 16, retentionMs: 7 * 86_400_000 });
    expect(config.streams[1]).toMatchObject({ queryId: null, name: 'payments_dedupe', channel: '#streaming-alerts', retentionMs: 3 * 86_400_000 });
    expect(config.pollIntervalMs).toBe(60_000);
    expect(config.digest).toEqual({ time: '09:00', hour: 9, minute: 0, timeZone: 'Europe/Berlin' });
    expect(config.thresholds).toEqual({ repartitionMs: 600_000 });
  });

  it('refuses thresholds the engine does not take, at their line, saying what decides instead', () => {
    const result = errorsOf(`${MINIMAL}thresholds:\n  repartition: 15m\n  stalled_after: 15m\n  time_behind_warning: 5m\n  time_behind_critical: 30m\n`);
    expect(result.errors.map((error) => [error.path, error.line, error.column])).toEqual([
      ['thresholds.stalled_after', 14, 18],
      ['thresholds.time_behind_warning', 15, 24],
      ['thresholds.time_behind_critical', 16, 25],
    ]);
    expect(result.errors[0]!.message).toContain('is not supported: a stall is judged from each query\'s own cadence');
    expect(result.errors[0]!.message).toContain('remove this key');
    expect(result.errors[2]!.message).toContain('lag turns critical at 30 minutes behind');
    // The supported one still works on its own, and a misspelling of it is still caught.
    const ok = loadWatchConfig(`${MINIMAL}thresholds:\n  repartition: 15m\n`, 'streamdoctor.yml');
    expect(ok.ok && ok.config.thresholds).toEqual({ repartitionMs: 900_000 });
    expect(errorsOf(`${MINIMAL}thresholds:\n  repartiton: 15m\n`).errors[0]!.message).toBe('unknown key "repartiton"; did you mean "repartition"?');
  });

  it('reports an unknown key at its line:column with a did-you-mean', () => {
    const result = errorsOf(MINIMAL.replace('    warehouse_id:', '    warehouse:'));
    expect(result.errors).toContainEqual({ path: 'workspaces[0].warehouse', line: 6, column: 5, message: 'unknown key "warehouse"; did you mean "warehouse_id"?' });
    expect(result.message).toContain('streamdoctor.yml:6:5 workspaces[0].warehouse: unknown key "warehouse"; did you mean "warehouse_id"?');
    // The table then lacks its warehouse, which is reported once the key is fixed, not before.
  });

  it('lists what is allowed when nothing is close', () => {
    const result = errorsOf(`${MINIMAL}colour: blue\n`);
    expect(result.errors[0]).toMatchObject({ path: 'colour', line: 12, column: 1 });
    expect(result.errors[0]!.message).toContain('allowed here: workspaces, streams, defaults');
  });

  it('explains an unquoted channel (YAML reads # as a comment)', () => {
    const result = errorsOf(MINIMAL.replace('channel: "#streaming-alerts"', 'channel: #streaming-alerts'));
    expect(result.errors[0]!.path).toBe('defaults.channel');
    expect(result.errors[0]!.line).toBe(11);
    expect(result.errors[0]!.message).toContain('channel: "#streaming-alerts"');
  });

  it('refuses inline secrets and says to use an environment variable', () => {
    const result = errorsOf(MINIMAL.replace('token_env: DATABRICKS_TOKEN', 'token: dapi0123456789abcdef0123456789abcdef'));
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ path: 'workspaces[0].auth.token', line: 5, column: 7 });
    expect(result.errors[0]!.message).toContain('token_env: DATABRICKS_TOKEN');
    expect(result.message).not.toContain('dapi0123456789abcdef');
  });

  it('checks values: durations, time zones, times, job ids, table names', () => {
    const text = `${MINIMAL.replace('progress_table: main.streamdoctor.streaming_progress', 'progress_table: streaming_progress')}poll_interval: every minute
digest:
  time: 9am
  time_zone: Europe/Berlinn
treshold: {}
`;
    const result = errorsOf(text);
    const byPath = Object.fromEntries(result.errors.map((error) => [error.path, error]));
    expect(byPath['workspaces[0].progress_table']!.message).toContain('catalog.schema.table');
    expect(byPath['poll_interval']).toMatchObject({ line: 12, column: 16 });
    expect(byPath['poll_interval']!.message).toContain('write it like 500ms, 90s');
    expect(byPath['digest.time']!.message).toContain('"09:00"');
    expect(byPath['digest.time_zone']!.message).toContain('IANA');
    expect(byPath['treshold']).toMatchObject({ line: 16, column: 1, message: 'unknown key "treshold"; did you mean "thresholds"?' });
  });

  it('refuses durations of no time, not finite, or too long, saying so', () => {
    // poll_interval: 0 was a 0 ms schedule and a 400-digit retention was Infinity, both accepted.
    const cases: [string, RegExp][] = [
      ['poll_interval: 0', /no time at all; write a duration of 1ms or more/],
      ['poll_interval: 0.0001', /no time at all/],
      ['poll_interval: 0ms', /no time at all/],
      ['poll_interval: 8d', /at most 7d/],
      ['poll_interval: 1e308', /not a duration/],
      ['poll_interval: .inf', /e\.g\. poll_interval: 60s/],
      [`retention: ${'9'.repeat(400)}d`, /longer than the 3650d \(ten years\)/],
      [`retention: "${'9'.repeat(400)}"`, /longer than the 3650d/],
    ];
    for (const [line, message] of cases) {
      const result = errorsOf(`${MINIMAL}${line}\n`);
      expect(result.errors, line).toHaveLength(1);
      expect(result.errors[0]!.message, line).toMatch(message);
    }
    const ok = loadWatchConfig(`${MINIMAL}poll_interval: 7d\nretention: 3650d\n`, 'streamdoctor.yml');
    expect(ok.ok && [ok.config.pollIntervalMs, ok.config.retentionMs]).toEqual([7 * 86_400_000, 3650 * 86_400_000]);
  });

  it('refuses a digest channel, which nothing would read: each channel gets the digest of its own streams', () => {
    const result = errorsOf(`${MINIMAL}digest:\n  time: "09:00"\n  time_zone: UTC\n  channel: "#platform"\n`);
    expect(result.errors).toEqual([expect.objectContaining({ path: 'digest.channel' })]);
    expect(result.errors[0]!.message).toContain('each channel gets the digest of the streams routed to it');
  });

  it('asks to quote an all-digit warehouse id that YAML cannot hold as a number', () => {
    const result = errorsOf(MINIMAL.replace('warehouse_id: 4b9b953939869799', 'warehouse_id: 12345678901234567890'));
    expect(result.errors).toEqual([expect.objectContaining({ path: 'workspaces[0].warehouse_id', line: 6, column: 19 })]);
    expect(result.errors[0]!.message).toContain('quote it');
    const quoted = loadWatchConfig(MINIMAL.replace('warehouse_id: 4b9b953939869799', 'warehouse_id: "12345678901234567890"'), 'x.yml');
    expect(quoted.ok && quoted.config.workspaces[0]!.warehouseId).toBe('12345678901234567890');
  });

  it('reports a missing required key at its parent', () => {
    const result = errorsOf(MINIMAL.replace('defaults:\n  channel: "#streaming-alerts"\n', ''));
    expect(result.errors[0]).toMatchObject({ path: 'defaults', line: 1, column: 1 });
    expect(result.errors[0]!.message).toContain('defaults: { channel: "#streaming-alerts" }');
  });

  it('checks cross references: stream workspaces, duplicate streams, table without warehouse', () => {
    const text = MINIMAL.replace('streams:\n  - name: orders_5min_agg\n', 'streams:\n  - name: orders_5min_agg\n    workspace: prd\n  - name: orders_5min_agg\n')
      .replace('    warehouse_id: 4b9b953939869799\n', '');
    const result = errorsOf(text);
    expect(result.errors.map((error) => error.message)).toEqual(
      expect.arrayContaining([
        expect.stringContaining('add warehouse_id'),
        'no workspace is named "prd"; did you mean "prod"?',
      ]),
    );
    expect(result.errors.find((error) => error.path === 'streams[0].workspace')).toMatchObject({ line: 9, column: 16 });
  });

  it('reports YAML syntax errors with their position', () => {
    const result = errorsOf('workspaces:\n  - name: prod\n   host: x\n\tbad: [\n');
    expect(result.errors[0]!.path).toBe('(yaml)');
    expect(result.errors[0]!.line).toBeGreaterThan(1);
    expect(result.errors[0]!.message).toMatch(/^YAML syntax/);
  });

  it('reports an empty file', () => {
    expect(errorsOf('# nothing yet\n').errors[0]!.message).toContain('the file is empty');
  });

  it('resolves credentials from the named environment variables without showing values', () => {
    const result = loadWatchConfig(EXAMPLE, 'x.yml');
    if (!result.ok) throw new Error(result.message);
    const workspace = result.config.workspaces[0]!;
    expect(resolveWorkspaceCredentials(workspace, { DATABRICKS_TOKEN: 'dapi123' })).toEqual({ ok: true, credentials: { kind: 'pat', token: 'dapi123' } });
    const missing = resolveWorkspaceCredentials(workspace, {});
    expect(missing).toEqual({ ok: false, error: expect.stringContaining('DATABRICKS_TOKEN is not set') });
    const oauth = { ...workspace, auth: { kind: 'oauth-m2m' as const, clientIdEnv: 'SP_ID', clientSecretEnv: 'SP_SECRET' } };
    expect(resolveWorkspaceCredentials(oauth, { SP_ID: 'abc' })).toEqual({ ok: false, error: expect.stringContaining('SP_SECRET') });
  });
});

describe('workspace auth: a ~/.databrickscfg profile', () => {
  const withAuth = (auth: string) => MINIMAL.replace('    auth:\n      token_env: DATABRICKS_TOKEN\n', auth);

  it('reads auth: { profile } and no auth as Databricks unified auth', () => {
    const named = loadWatchConfig(withAuth('    auth:\n      profile: prod\n'), 'streamdoctor.yml');
    if (!named.ok) throw new Error(named.message);
    expect(named.config.workspaces[0]!.auth).toEqual({ kind: 'databricks-config', profile: 'prod' });
    const unnamed = loadWatchConfig(withAuth(''), 'streamdoctor.yml');
    if (!unnamed.ok) throw new Error(unnamed.message);
    expect(unnamed.config.workspaces[0]!.auth).toEqual({ kind: 'databricks-config', profile: null });
  });

  const refused: { name: string; auth: string; error: { path: string; line: number; message: string } }[] = [
    { name: 'a misspelled key', auth: '    auth:\n      profle: prod\n', error: { path: 'workspaces[0].auth.profle', line: 5, message: 'unknown key "profle"; did you mean "profile"?' } },
    {
      name: 'a profile and variables together',
      auth: '    auth:\n      profile: prod\n      token_env: DATABRICKS_TOKEN\n',
      error: { path: 'workspaces[0].auth', line: 5, message: 'write either profile (a ~/.databrickscfg profile) or token_env / client_id_env + client_secret_env, not both' },
    },
    { name: 'a profile name with spaces', auth: '    auth:\n      profile: my prod\n', error: { path: 'workspaces[0].auth.profile', line: 5, message: 'must be the name of a profile in ~/.databrickscfg' } },
    { name: 'an empty auth', auth: '    auth: {}\n', error: { path: 'workspaces[0].auth', line: 4, message: 'or profile: <name in ~/.databrickscfg>' } },
  ];
  it.each(refused)('refuses $name with its location', ({ auth, error }) => {
    const result = errorsOf(withAuth(auth));
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ path: error.path, line: error.line });
    expect(result.errors[0]!.message).toContain(error.message);
  });
});

describe('loadWatchConfig: YAML aliases', () => {
  const withStreams = (count: number) =>
    `defaults:\n  channel: &ch "#streaming-alerts"\n${MINIMAL.replace('defaults:\n  channel: "#streaming-alerts"\n', '')}`.replace(
      'streams:\n  - name: orders_5min_agg\n',
      `streams:\n${Array.from({ length: count }, (_, i) => `  - name: stream_${i}\n    channel: *ch\n`).join('')}`,
    );

  it('reads a file that uses one anchor for 150 streams (yaml refuses 100 by default)', () => {
    const result = loadWatchConfig(withStreams(150), 'streamdoctor.yml');
    if (!result.ok) throw new Error(result.message);
    expect(result.config.streams).toHaveLength(150);
    expect(result.config.streams[149]).toMatchObject({ name: 'stream_149', channel: '#streaming-alerts' });
  });

  it('says an alias used before its anchor is one, with its line', () => {
    expect(errorsOf(`${MINIMAL}x: *nowhere\n`).message).toMatch(/streamdoctor\.yml:\d+:\d+ \(yaml\): /);
  });

  it('refuses an alias bomb as a watch-file error with its line, never a throw', () => {
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
      'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
      'f: [*e,*e,*e,*e,*e,*e,*e,*e,*e]',
      MINIMAL,
    ].join('\n');
    const result = errorsOf(bomb);
    expect(result.message).toMatch(/^streamdoctor\.yml:2:8 \(yaml\): YAML aliases expand to more than 10,000 nodes/);
    expect(result.message).toContain('write the repeated parts out');
  });
});
