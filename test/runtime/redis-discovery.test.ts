import { createServer, type Server } from 'node:net';
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import {
  discoverRedis,
  displayRedisUrl,
  findOnPath,
  freePort,
  pingRedis,
  RedisUnavailableError,
  type DiscoveredRedis,
} from '../../src/runtime/redis-discovery.js';

const opened: DiscoveredRedis[] = [];
const servers: Server[] = [];

afterEach(async () => {
  for (const handle of opened.splice(0)) await handle.close();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A TCP server that answers like HTTP, not Redis: discovery must not mistake it for Redis. */
async function notRedis(): Promise<number> {
  const server = createServer((socket) => {
    socket.on('data', () => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

describe('discoverRedis', () => {
  it('uses REDIS_URL when it is set, without probing', async () => {
    const found = await discoverRedis({ env: { REDIS_URL: 'redis://cache.internal:6380/2' }, redisServer: null });
    expect(found).toMatchObject({ url: 'redis://cache.internal:6380/2', origin: 'env' });
  });

  it('uses 127.0.0.1:6379 when something there answers PING', async () => {
    expect(await pingRedis('127.0.0.1', 6379)).toBe(true);
    const found = await discoverRedis({ env: {}, redisServer: null });
    expect(found).toMatchObject({ url: 'redis://127.0.0.1:6379', origin: 'local' });
  });

  it('does not take a non-Redis listener for Redis', async () => {
    const port = await notRedis();
    expect(await pingRedis('127.0.0.1', port)).toBe(false);
  });

  it('starts a private redis-server on a free port when nothing answers, and stops it on close', async () => {
    const binary = findOnPath('redis-server');
    expect(binary, 'redis-server must be installed on the test machine').toBeTruthy();
    const silentPort = await freePort();
    const found = await discoverRedis({ env: { PATH: process.env.PATH }, localPort: silentPort });
    opened.push(found);
    expect(found.origin).toBe('private');
    const port = Number(new URL(found.url).port);
    expect(port).not.toBe(6379);

    const client = new Redis(found.url, { maxRetriesPerRequest: 1, lazyConnect: true });
    await client.connect();
    try {
      await client.set('streamdoctor-discovery-test', 'ok');
      expect(await client.get('streamdoctor-discovery-test')).toBe('ok');
      // No persistence: the private server is throwaway by design.
      expect(await client.config('GET', 'save')).toEqual(['save', '']);
      expect(await client.config('GET', 'appendonly')).toEqual(['appendonly', 'no']);
      const [, dir] = (await client.config('GET', 'dir')) as string[];
      expect(existsSync(dir!)).toBe(true);
      await found.close();
      expect(await pingRedis('127.0.0.1', port)).toBe(false);
      expect(existsSync(dir!)).toBe(false);
    } finally {
      client.disconnect();
    }
  });

  it('explains how to get Redis when there is none and no redis-server to start', async () => {
    const silentPort = await notRedis();
    const attempt = discoverRedis({ env: { PATH: '/nonexistent' }, localPort: silentPort });
    await expect(attempt).rejects.toBeInstanceOf(RedisUnavailableError);
    await expect(attempt).rejects.toMatchObject({ code: 'streamdoctor_redis_unavailable' });
    await expect(attempt).rejects.toThrow(/apt-get install -y redis-server[\s\S]*REDIS_URL=redis:\/\//);
  });

  it('fails clearly when the redis-server it was given cannot start', async () => {
    const silentPort = await freePort();
    const attempt = discoverRedis({ env: {}, localPort: silentPort, redisServer: '/bin/false', startTimeoutMs: 1_000 });
    await expect(attempt).rejects.toThrow(/could not start a private redis-server \(\/bin\/false\)/);
  });
});

describe('displayRedisUrl', () => {
  it('masks passwords', () => {
    expect(displayRedisUrl('redis://default:s3cret@redis.example.com:6379/0')).toBe('redis://***@redis.example.com:6379/0');
    expect(displayRedisUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
  });
});

describe('redisUrlAnswers', () => {
  it('answers for the test Redis and not for a silent port or a non-Redis listener', async () => {
    const { redisUrlAnswers } = await import('../../src/runtime/redis-discovery.js');
    expect(await redisUrlAnswers('redis://127.0.0.1:6379')).toBe(true);
    expect(await redisUrlAnswers(`redis://127.0.0.1:${await freePort()}`)).toBe(false);
    expect(await redisUrlAnswers(`redis://127.0.0.1:${await notRedis()}`)).toBe(false);
    expect(await redisUrlAnswers('not a url')).toBe(false);
  });
});
