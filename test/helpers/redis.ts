/**
 * The one place tests get their Redis from. `STREAMDOCTOR_TEST_REDIS_URL` (or the older
 * `TEST_REDIS_URL`) chooses the server; unset, it is the local Redis on 127.0.0.1:6379.
 * `npm run test:cluster` sets it to a `redis+cluster://…` URL of a local 3-master cluster
 * (scripts/test-cluster.sh), and the same tests then run against the cluster: clients are built by
 * the bot's own `createRedis` there, so tests see what the bot sees.
 */
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { clusterNodesOf, createRedis } from '../../src/runtime/redis-client.js';

export const TEST_REDIS_URL = process.env.STREAMDOCTOR_TEST_REDIS_URL || process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

/** Whether the tests run against a Redis Cluster. */
export const onCluster = clusterNodesOf(TEST_REDIS_URL) !== null;

/**
 * A client for the test Redis. On a single server it is exactly `new Redis(url, options)`; on a
 * cluster it is the bot's cluster client with the same options.
 */
export function testRedis(options: RedisOptions = {}): Redis {
  if (!onCluster) return new Redis(TEST_REDIS_URL, options);
  return createRedis(TEST_REDIS_URL, 'worker', { maxRetriesPerRequest: 20, ...options });
}

/** The nodes keys live on: the masters of a cluster, or the one server. */
export function dataNodes(redis: Redis): Redis[] {
  return redis instanceof Cluster || (redis as unknown as { isCluster?: boolean }).isCluster
    ? (redis as unknown as Cluster).nodes('master')
    : [redis];
}

/** Every key matching `pattern` (SCAN on each master; for assertions and cleanup, never FLUSHDB). */
export async function scanKeys(redis: Redis, pattern: string): Promise<string[]> {
  const out: string[] = [];
  // A cluster client learns its nodes on connecting; one command first so the list is complete.
  if (onCluster) await redis.ping();
  for (const node of dataNodes(redis)) {
    let cursor = '0';
    for (let i = 0; i < 100_000; i++) {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      out.push(...keys);
      cursor = next;
      if (cursor === '0') break;
    }
  }
  return out;
}

/** Deletes keys one command per key (keys of different slots cannot share an UNLINK on a cluster). */
export async function unlinkKeys(redis: Redis, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  if (!onCluster) {
    for (let i = 0; i < keys.length; i += 1000) await redis.unlink(...keys.slice(i, i + 1000));
    return;
  }
  await Promise.all(keys.map((key) => redis.unlink(key)));
}

/** Deletes every key under the prefixes (`<prefix>:*` and BullMQ's `{<prefix>}:*`) with SCAN + UNLINK. */
export async function deletePrefix(url: string, ...prefixes: string[]): Promise<void> {
  const redis = url === TEST_REDIS_URL ? testRedis() : new Redis(url);
  try {
    for (const prefix of prefixes) {
      for (const pattern of [`${prefix}:*`, `{${prefix}}:*`]) await unlinkKeys(redis, await scanKeys(redis, pattern));
    }
  } finally {
    redis.disconnect();
  }
}
