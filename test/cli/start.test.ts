import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { run as runStartCommand } from '../../src/cli/commands/start.js';
import { DemoStartError, runDemo } from '../../src/demo/run-demo.js';
import { freePort } from '../../src/runtime/redis-discovery.js';

function capture() {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
}

const dir = mkdtempSync(join(tmpdir(), 'streamdoctor-start-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('streamdoctor start', () => {
  it('refuses unknown options', async () => {
    const err = capture();
    expect(await runStartCommand(['--verbose'], { env: {}, out: capture().stream, err: err.stream })).toBe(2);
    expect(err.text()).toContain('unknown option "--verbose"');
  });

  it('in demo mode, refuses a bad LOG_LEVEL with what to set, as every process does', async () => {
    const err = capture();
    expect(await runStartCommand([], { env: { LOG_LEVEL: 'verbose' }, out: capture().stream, err: err.stream })).toBe(2);
    expect(err.text()).toBe('streamdoctor: configuration problems:\n  - LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "verbose"\n');
  });

  it('refuses half a configuration, names what is missing, and never echoes a secret', async () => {
    const err = capture();
    const env = { SLACK_BOT_TOKEN: 'xoxb-1111-2222-SECRETSECRET', SLACK_SIGNING_SECRET: 'f00dfeedf00dfeedf00dfeed' };
    expect(await runStartCommand([], { env, out: capture().stream, err: err.stream })).toBe(2);
    expect(err.text()).toMatch(/DATABRICKS_HOST[\s\S]*npm start -- --demo/);
    expect(err.text()).not.toContain('SECRETSECRET');
    expect(err.text()).not.toContain('f00dfeed');
  });

  it('with credentials, reports every mistake of the watch file with its line and column', async () => {
    const path = join(dir, 'streamdoctor.yml');
    writeFileSync(
      path,
      [
        'workspaces:',
        '  - name: prod',
        '    host: https://adb-1234567890123456.7.azuredatabricks.net',
        '    auth: { token_env: DATABRICKS_TOKEN }',
        'streams:',
        '  - name: orders_enrichment',
        '    chanel: "#stream-orders"',
        'defaults:',
        '  channel: "#data-alerts"',
        '',
      ].join('\n'),
    );
    const err = capture();
    const env = {
      SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
      SLACK_SIGNING_SECRET: 'f00dfeedf00dfeedf00dfeed',
      DATABRICKS_HOST: 'https://adb-1234567890123456.7.azuredatabricks.net',
      DATABRICKS_TOKEN: 'dapi0123456789abcdef0123456789abcdef',
      STREAMDOCTOR_CONFIG: path,
      LOG_LEVEL: 'silent',
    };
    expect(await runStartCommand([], { env, out: capture().stream, err: err.stream })).toBe(2);
    expect(err.text()).toContain(`${path}:7:5`);
    expect(err.text()).toMatch(/chanel[\s\S]*channel/);
    expect(err.text()).not.toContain('dapi0123');
  });
});

describe('the demo without Redis', () => {
  it('says how to get Redis and exits 1, leaving nothing running', async () => {
    const silent = await freePort();
    const attempt = runDemo({
      startBot: async () => {
        throw new Error('must not start the bot without Redis');
      },
      env: { PATH: '/nonexistent' },
      out: capture().stream,
      redisDiscovery: { localPort: silent, redisServer: null },
      environment: { chatPort: 0 },
    });
    await expect(attempt).rejects.toBeInstanceOf(DemoStartError);
    await expect(attempt).rejects.toMatchObject({ exitCode: 1 });
    await expect(attempt).rejects.toThrow(/apt-get install -y redis-server/);
  });

  it('says when REDIS_URL points at nothing, instead of waiting forever', async () => {
    const silent = await freePort();
    const attempt = runDemo({
      startBot: async () => {
        throw new Error('must not start the bot without Redis');
      },
      env: { REDIS_URL: `redis://default:hunter2@127.0.0.1:${silent}/0` },
      out: capture().stream,
      environment: { chatPort: 0 },
    });
    await expect(attempt).rejects.toMatchObject({ exitCode: 1 });
    await expect(attempt).rejects.toThrow(/REDIS_URL is set to redis:\/\/\*\*\*@127\.0\.0\.1:\d+\/0, but nothing answers there/);
    await expect(attempt).rejects.not.toThrow(/hunter2/);
  });

  it('masks a cluster URL whose password holds an un-encoded /, whole', async () => {
    // It was read as a node ":hunt" and printed as it was written.
    const silent = await freePort();
    const attempt = runDemo({
      startBot: async () => {
        throw new Error('must not start the bot without Redis');
      },
      env: { REDIS_URL: `redis+cluster://:hunt/er2@127.0.0.1:${silent}` },
      out: capture().stream,
      environment: { chatPort: 0 },
    });
    await expect(attempt).rejects.toThrow(/REDIS_URL is set to redis\+cluster:\/\/\*\*\*@127\.0\.0\.1:\d+, but nothing answers there/);
    await expect(attempt).rejects.not.toThrow(/hunt|er2/);
  });
});
