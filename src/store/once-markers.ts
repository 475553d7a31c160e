/**
 * Markers that make a side effect happen at most once across workers and retries: taken before the
 * effect (SET NX with an expiry), given back only when the effect definitely failed.
 */
import type { Redis } from 'ioredis';
import type { StoreKeys } from './keys.js';

export class OnceMarkers {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
  ) {}

  /** True when this caller took the marker `name` (nobody held it); it lapses after `ttlMs`. */
  async take(name: string, value: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.set(this.keys.lock(name), value, 'PX', ttlMs, 'NX')) !== null;
  }

  /** Milliseconds until the marker `name` lapses; 0 when nobody holds it. */
  async remainingMs(name: string): Promise<number> {
    return Math.max(0, await this.redis.pttl(this.keys.lock(name)));
  }

  /** Gives the marker back, so a retry may do the effect. */
  async release(name: string): Promise<void> {
    await this.redis.del(this.keys.lock(name));
  }
}
