/**
 * Start-up checks of the Redis server: a maxmemory-policy other than noeviction (claims,
 * silences and jobs could be evicted silently) is refused with what to set, and so is Redis below
 * 6.2. A real redis-server started with an evicting policy on a free loopback port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { freePort, pingRedis } from '../../src/runtime/redis-discovery.js';
import { composeProcess } from '../../src/runtime/compose.js';
import { ProcessSetupError } from '../../src/runtime/process-setup.js';
import { createLogger } from '../../src/observability/logger.js';
import { checkRedisServer, readRedisServerFacts, redisServerProblems, versionAtLeast } from '../../src/runtime/redis-server-check.js';
import { REDIS_URL } from '../pipeline/helpers/harness.js';

let proc: ChildProcess | undefined;
afterEach(async () => {
  if (proc && proc.exitCode === null) {
    const exited = new Promise((resolve) => proc!.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
  }
  proc = undefined;
});

async function evictingRedis(): Promise<string> {
  const port = await freePort();
  proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--maxmemory', '64mb', '--maxmemory-policy', 'allkeys-lru'], { stdio: 'ignore' });
  for (let i = 0; i < 100 && !(await pingRedis('127.0.0.1', port, 200)); i++) await new Promise((r) => setTimeout(r, 50));
  return `redis://127.0.0.1:${port}`;
}

describe('Redis server checks at start', () => {
  it('a Redis that evicts keys is refused, saying to set noeviction', async () => {
    const url = await evictingRedis();
    const problems = await checkRedisServer(url);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('maxmemory-policy is allkeys-lru');
    expect(problems[0]).toContain('set maxmemory-policy noeviction');
    const setup = await composeProcess('clock', { env: { REDIS_URL: url }, logger: createLogger({ name: 'test', level: 'silent' }) }).catch((err: unknown) => err);
    expect(setup).toBeInstanceOf(ProcessSetupError);
    expect((setup as Error).message).toContain('noeviction');
  });

  it('the test Redis (noeviction, 6.2+) passes; Redis below 6.2 is refused', async () => {
    expect(await checkRedisServer(REDIS_URL)).toEqual([]);
    expect(redisServerProblems({ version: '6.0.16', maxmemoryPolicy: 'noeviction' })[0]).toContain('needs Redis 6.2 or newer');
    expect(redisServerProblems({ version: '7.2.4', maxmemoryPolicy: 'noeviction' })).toEqual([]);
    expect(versionAtLeast('6.2.0', '6.2.0')).toBe(true);
    expect(versionAtLeast('6.10.1', '6.2.0')).toBe(true);
  });

  it('a server that cannot be reached is a rejection for the caller, not a stack trace on stderr', async () => {
    const port = await freePort();
    const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      await expect(readRedisServerFacts(`redis://127.0.0.1:${port}`, 500)).rejects.toThrow();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(printed.mock.calls.map((call) => String(call[0]))).not.toContain('[ioredis] Unhandled error event:');
    } finally {
      printed.mockRestore();
    }
  });
});
