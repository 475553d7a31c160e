/**
 * ioredis clients for the pipeline. Workers and the store in worker processes wait for Redis
 * through a restart (maxRetriesPerRequest null, offline queue on: BullMQ requires it for workers);
 * the web process fails fast so /healthz can answer 503 instead of hanging.
 */
import { Redis, type RedisOptions } from 'ioredis';

export type RedisRole = 'worker' | 'producer';

export function redisOptionsFor(role: RedisRole): RedisOptions {
  return role === 'worker'
    ? { maxRetriesPerRequest: null, enableReadyCheck: true, retryStrategy: (times) => Math.min(200 * times, 2000) }
    : { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000, retryStrategy: (times) => Math.min(200 * times, 2000) };
}

export function createRedis(url: string, role: RedisRole, extra: RedisOptions = {}): Redis {
  return new Redis(url, { ...redisOptionsFor(role), ...extra });
}
