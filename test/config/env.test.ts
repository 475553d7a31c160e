import { describe, expect, it } from 'vitest';
import { DEFAULTS, describeEnvConfig, ENV_SCHEMA, readEnvConfig } from '../../src/config/index.js';
import { readRedisUrl } from '../../src/config/redis-url.js';
import { clusterNodesOf } from '../../src/runtime/redis-client.js';
import { displayRedisUrl } from '../../src/runtime/redis-discovery.js';

describe('readEnvConfig', () => {
  it('is the demo with defaults when nothing is set', () => {
    const config = readEnvConfig({});
    expect(config).toMatchObject({ demo: true, prefix: 'sd', port: 3000, logLevel: 'info', redisUrl: null, configPath: null, problems: [] });
    expect(config.databricks).toEqual({ host: null, auth: null, warehouseId: null });
  });

  it('reads a PAT workspace and Slack in HTTP mode', () => {
    const config = readEnvConfig({
      DATABRICKS_HOST: 'adb-1234567890123456.7.azuredatabricks.net/',
      DATABRICKS_TOKEN: 'dapi0123456789abcdef0123456789abcdef',
      SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
      SLACK_SIGNING_SECRET: 'sign-secret',
      REDIS_URL: 'redis://127.0.0.1:6379/0',
      STREAMDOCTOR_CONFIG: './streamdoctor.yml',
      PORT: '8080',
      LOG_LEVEL: 'DEBUG',
    });
    expect(config.problems).toEqual([]);
    expect(config.databricks.host).toBe('https://adb-1234567890123456.7.azuredatabricks.net');
    expect(config.databricks.auth).toEqual({ kind: 'pat', token: 'dapi0123456789abcdef0123456789abcdef' });
    expect(config).toMatchObject({ demo: false, port: 8080, logLevel: 'debug', configPath: './streamdoctor.yml' });
  });

  it('refuses a token and an OAuth pair together unless DATABRICKS_AUTH_TYPE picks one, and flags half a pair', () => {
    const both = { DATABRICKS_HOST: 'https://h.cloud.databricks.com', DATABRICKS_TOKEN: 'dapi-secret-value', DATABRICKS_CLIENT_ID: 'id', DATABRICKS_CLIENT_SECRET: 'oauth-secret-value' };
    const refused = readEnvConfig(both);
    expect(refused.databricks.auth).toBeNull();
    expect(refused.problems).toEqual([
      'both a token (DATABRICKS_TOKEN) and OAuth credentials (DATABRICKS_CLIENT_ID and DATABRICKS_CLIENT_SECRET) are set; remove DATABRICKS_TOKEN, or remove DATABRICKS_CLIENT_ID and DATABRICKS_CLIENT_SECRET, or set DATABRICKS_AUTH_TYPE=pat or DATABRICKS_AUTH_TYPE=oauth-m2m to pick one',
    ]);
    expect(refused.problems.join('\n')).not.toMatch(/secret-value/);
    expect(readEnvConfig({ ...both, DATABRICKS_AUTH_TYPE: 'oauth-m2m' }).databricks.auth).toEqual({ kind: 'oauth-m2m', clientId: 'id', clientSecret: 'oauth-secret-value' });
    expect(readEnvConfig({ ...both, DATABRICKS_AUTH_TYPE: 'pat' }).databricks.auth).toEqual({ kind: 'pat', token: 'dapi-secret-value' });
    expect(readEnvConfig({ ...both, DATABRICKS_AUTH_TYPE: 'azure-cli' }).problems[0]).toBe(
      'DATABRICKS_AUTH_TYPE is "azure-cli"; StreamDoctor supports pat and oauth-m2m: set one of them or remove it',
    );
    // The credentials an auth type names may be in a profile, resolved per workspace: not a problem here.
    expect(readEnvConfig({ DATABRICKS_HOST: 'https://h.cloud.databricks.com', DATABRICKS_AUTH_TYPE: 'pat', DATABRICKS_CONFIG_PROFILE: 'prod' }).problems).toEqual([]);
    const half = readEnvConfig({ DATABRICKS_HOST: 'https://h.cloud.databricks.com', DATABRICKS_CLIENT_ID: 'id' });
    expect(half.problems[0]).toContain('DATABRICKS_CLIENT_ID is set without DATABRICKS_CLIENT_SECRET');
  });

  it('lists each malformed value with what to set', () => {
    const config = readEnvConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', REDIS_URL: 'localhost:6379', DATABRICKS_TOKEN: 'dapi1', SLACK_BOT_TOKEN: 'xoxp-user' });
    expect(config.problems).toEqual([
      'Databricks credentials are set but DATABRICKS_HOST is not; set DATABRICKS_HOST=https://<your-workspace-host>',
      'PORT must be a whole number from 0 to 65535 in decimal digits, e.g. PORT=3000; got "eighty"',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "loud"',
      'REDIS_URL must start with redis://, rediss:// or redis+cluster://; set it as redis://[user:password@]host:port[/db], rediss://… (TLS), or redis+cluster://[user:password@]host:port,host:port,… (Redis Cluster seed nodes)',
      'SLACK_BOT_TOKEN should be a bot token starting with xoxb-',
      "set SLACK_SIGNING_SECRET (HTTP mode) or SLACK_APP_TOKEN (Socket Mode): Slack's requests reach the app with it",
    ]);
    expect(config.port).toBe(3000);
  });

  it('accepts every REDIS_URL form the Redis client opens, the documented cluster URL included', () => {
    for (const url of ['redis://127.0.0.1:6379/0', 'rediss://u:p@redis.internal:6380', 'redis+cluster://127.0.0.1:7000,127.0.0.1:7001', 'redis+cluster://user:p%40ss@[::1]:7000']) {
      const config = readEnvConfig({ REDIS_URL: url });
      expect(config.problems, url).toEqual([]);
      expect(config.redisUrl).toBe(url);
    }
    // The check and the client read a cluster URL with one function.
    expect(clusterNodesOf('redis+cluster://user:p%40ss@[::1]:7000,h2:7001')).toEqual({ nodes: [{ host: '::1', port: 7000 }, { host: 'h2', port: 7001 }], username: 'user', password: 'p@ss' });
    for (const url of ['redis+cluster://', 'redis+cluster://h1:7000,h2:port', 'http://h:6379']) {
      const [problem] = readEnvConfig({ REDIS_URL: url }).problems;
      expect(problem, url).toMatch(/^REDIS_URL .*; set it as redis:\/\/.*redis\+cluster:\/\//);
    }
  });

  it('never echoes REDIS_URL credentials, whatever they hold, and reads the nodes after them', () => {
    // An un-encoded / in the password once split the credentials into a "node" (or a host) and printed it.
    expect(clusterNodesOf('redis+cluster://admin:hunt/er2@h:7000')).toEqual({ nodes: [{ host: 'h', port: 7000 }], username: 'admin', password: 'hunt/er2' });
    expect(clusterNodesOf('redis+cluster://:hunt/er2@h:7000')).toEqual({ nodes: [{ host: 'h', port: 7000 }], password: 'hunt/er2' });
    const refused = [
      'redis+cluster://admin:hunt/er2@h:port',
      'redis+cluster://:hunt/er2@',
      'redis://admin:hunt/er2@h:7000',
      'redis://:hunt/er2@h:7000',
      'rediss://:hunt@er2@',
      'redis+cluster://admin:hunt%zz@h:7000',
      'admin:hunt/er2@h:7000',
    ];
    for (const url of refused) {
      const config = readEnvConfig({ REDIS_URL: url });
      expect(config.problems, url).toHaveLength(1);
      expect(config.problems[0], url).toMatch(/^REDIS_URL /);
    }
    const messages = [
      ...['redis+cluster://admin:hunt/er2@h:7000', 'redis+cluster://:hunt/er2@h:7000', ...refused].flatMap((url) => {
        const read = readRedisUrl(url);
        return [read.kind === 'invalid' ? read.problem : '', displayRedisUrl(url), JSON.stringify(describeEnvConfig({ ...readEnvConfig({}), redisUrl: url }))];
      }),
      ...refused.flatMap((url) => readEnvConfig({ REDIS_URL: url }).problems),
    ];
    for (const message of messages) expect(message).not.toMatch(/hunt|er2|admin:/);
    expect(displayRedisUrl('redis+cluster://:hunt/er2@h:7000')).toBe('redis+cluster://***@h:7000');
  });

  it('reads PORT in decimal digits only, as written', () => {
    // Number() read 0x50 as 80, 3e3 as 3000 and 0b1 as 1.
    for (const value of ['0x50', '3e3', '0b1', '0o7', '.5e1', '80.0', '-1', '65536', '1'.repeat(400)]) {
      const config = readEnvConfig({ PORT: value });
      expect(config.port, value).toBe(3000);
      expect(config.problems, value).toEqual([`PORT must be a whole number from 0 to 65535 in decimal digits, e.g. PORT=3000; got "${value.slice(0, 40)}"`]);
    }
    expect(readEnvConfig({ PORT: '0080' })).toMatchObject({ port: 80, problems: [] });
    expect(readEnvConfig({ PORT: '0' })).toMatchObject({ port: 0, problems: [] });
  });

  it('reads STREAMDOCTOR_ADMINS into users and user groups, and flags what is not a Slack id', () => {
    expect(readEnvConfig({}).admins).toEqual({ users: [], userGroups: [] });
    const config = readEnvConfig({ STREAMDOCTOR_ADMINS: ' U024BE7LH, W0123ABCD  S0614TZR7,' });
    expect(config.admins).toEqual({ users: ['U024BE7LH', 'W0123ABCD'], userGroups: ['S0614TZR7'] });
    expect(config.problems).toEqual([]);
    const typo = readEnvConfig({ STREAMDOCTOR_ADMINS: 'U024BE7LH,@alice' });
    expect(typo.admins.users).toEqual(['U024BE7LH']);
    expect(typo.problems).toHaveLength(1);
    expect(typo.problems[0]).toContain('STREAMDOCTOR_ADMINS holds "@alice", which is not a Slack user id (U…/W…) or user group id (S…)');
  });

  it('masks every secret when described for logs', () => {
    const config = readEnvConfig({
      DATABRICKS_HOST: 'https://h.cloud.databricks.com',
      DATABRICKS_CLIENT_ID: 'sp-id',
      DATABRICKS_CLIENT_SECRET: 'dose-secret-xyz',
      SLACK_BOT_TOKEN: 'xoxb-secret-1',
      SLACK_APP_TOKEN: 'xapp-secret-2',
      REDIS_URL: 'redis://user:pass@redis.internal:6379',
    });
    const text = JSON.stringify(describeEnvConfig(config));
    for (const secret of ['dose-secret-xyz', 'xoxb-secret-1', 'xapp-secret-2', 'pass@']) expect(text).not.toContain(secret);
    expect(text).toContain('oauth-m2m (client sp-id)');
  });

  it('is one zod object over the environment: blank is unset, each mistake is its variable\'s problem', () => {
    expect(ENV_SCHEMA.safeParse({ PORT: ' ', LOG_LEVEL: '' }).success).toBe(true);
    const parsed = ENV_SCHEMA.safeParse({ PORT: '8080', STREAMDOCTOR_WORKER_QUEUES: 'detect, notify' });
    expect(parsed.success && parsed.data).toMatchObject({ PORT: 8080, STREAMDOCTOR_WORKER_QUEUES: ['detect', 'notify'] });
    const wrong = ENV_SCHEMA.safeParse({ PORT: 'eighty' });
    expect(wrong.success).toBe(false);
    expect(wrong.error?.issues.map((issue) => issue.message)).toEqual(['PORT must be a whole number from 0 to 65535 in decimal digits, e.g. PORT=3000; got "eighty"']);
    expect(readEnvConfig({})).toMatchObject({ prefix: DEFAULTS.prefix, port: DEFAULTS.port, pipeline: { pollEveryMs: DEFAULTS.pollSeconds * 1000, digestAt: DEFAULTS.digestAt } });
  });
});
