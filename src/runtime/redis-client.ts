/**
 * ioredis clients for the pipeline. Workers and the store in worker processes wait for Redis
 * through a restart (maxRetriesPerRequest null, offline queue on: BullMQ requires it for workers);
 * the web process fails fast (no offline queue, a command timeout) so /healthz can answer 503 and
 * a Slack request is answered instead of hanging.
 */
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { readRedisUrl } from '../config/redis-url.js';

export type RedisRole = 'worker' | 'producer';

export function redisOptionsFor(role: RedisRole): RedisOptions {
  return role === 'worker'
    ? { maxRetriesPerRequest: null, enableReadyCheck: true, retryStrategy: (times) => Math.min(200 * times, 2000) }
    : {
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
        connectTimeout: 2000,
        // A Redis that hangs with its connection open (a partition, a paused host) must not hold a
        // Slack request past its deadline: the command fails and the person is told the store is away.
        commandTimeout: 5000,
        retryStrategy: (times) => Math.min(200 * times, 2000),
      };
}

/** Something with a `warn` method (the pino logger). */
export interface ErrorSink {
  warn(obj: object, msg: string): void;
}

/**
 * A client whose connection errors are logged (at most one line per 5 s) instead of surfacing as
 * unhandled 'error' events; ioredis reconnects by itself.
 */
/**
 * The seed nodes of a cluster URL, `redis+cluster://[user:pass@]host:port,host:port[/…]`; null for any
 * other URL. The reading is src/config/redis-url.ts's, the one REDIS_URL is checked with.
 */
export function clusterNodesOf(url: string): { nodes: { host: string; port: number }[]; username?: string; password?: string } | null {
  const read = readRedisUrl(url);
  if (read.kind !== 'cluster') return null;
  const { kind: _kind, ...cluster } = read;
  return cluster;
}

export function createRedis(url: string, role: RedisRole, extra: RedisOptions = {}, sink?: ErrorSink): Redis {
  const cluster = clusterNodesOf(url);
  // A Redis Cluster client speaks the same commands; every multi-key transaction and script of the
  // store and BullMQ (prefix `{…}`) touches one hash slot (test/store/slot-safety.test.ts).
  const redis = cluster
    ? (new Cluster(cluster.nodes, {
        redisOptions: { ...redisOptionsFor(role), ...extra, ...(cluster.username ? { username: cluster.username } : {}), ...(cluster.password ? { password: cluster.password } : {}) },
        // A worker waits through a failover as it waits through a restart: a command to a master that
        // died is retried (every 300 ms, up to 64 redirections: ~20 s) until its replica has taken over
        // (cluster-node-timeout + election). ioredis' defaults (100 ms × 16) give up in under 2 s, and
        // the store's detect commit or the poster's claim would fail half-way.
        ...(role === 'worker'
          ? { maxRedirections: 64, retryDelayOnFailover: 300, retryDelayOnClusterDown: 300, retryDelayOnTryAgain: 300 }
          : { enableOfflineQueue: false }),
        ...(extra.enableAutoPipelining ? { enableAutoPipelining: true } : {}),
        clusterRetryStrategy: (times: number) => Math.min(200 * times, 2000),
      }) as unknown as Redis)
    : new Redis(url, { ...redisOptionsFor(role), ...extra });
  let lastLogged = 0;
  redis.on('error', (err: Error) => {
    const now = Date.now();
    if (sink && now - lastLogged > 5000) {
      lastLogged = now;
      sink.warn({ err: { message: err.message, code: (err as { code?: string }).code } }, 'redis connection error (reconnecting)');
    }
  });
  return redis;
}
