/**
 * Digest history: time-behind samples per query (maximum per bucket, last 24 h). Written by the
 * detect commit; read here.
 */
import type { Redis } from 'ioredis';
import type { StoreKeys } from './keys.js';
import type { TimeBehindSample } from './types.js';

export class HistoryStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
  ) {}

  /** Samples since `sinceMs` (default 24 h ago), oldest first. */
  async timeBehind(queryId: string, sinceMs: number = Date.now() - 24 * 3_600_000): Promise<TimeBehindSample[]> {
    const all = await this.redis.hgetall(this.keys.timeBehindHistory(queryId));
    return Object.entries(all)
      .map(([at, value]) => ({ atMs: Number(at), timeBehindSec: Number(value) }))
      .filter((s) => Number.isFinite(s.atMs) && Number.isFinite(s.timeBehindSec) && s.atMs >= sinceMs)
      .sort((a, b) => a.atMs - b.atMs);
  }
}
