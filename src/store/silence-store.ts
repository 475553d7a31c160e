/**
 * Silences: one key per query with a PX TTL, so a silence ends by itself even if nothing ever runs
 * again, plus a sorted index (score = until) for listing.
 */
import type { Redis } from 'ioredis';
import { StoreError } from './errors.js';
import type { StoreKeys } from './keys.js';
import type { SilenceRecord } from './types.js';

export class SilenceStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
  ) {}

  /** Silences a query's notifications until `untilMs`. Replaces an existing silence. */
  async silence(queryId: string, untilMs: number, byUser: string, nowMs: number = Date.now()): Promise<SilenceRecord> {
    const ttl = Math.floor(untilMs - nowMs);
    if (!Number.isFinite(ttl) || ttl <= 0) {
      throw new StoreError('streamdoctor_store_invalid', 'a silence must end in the future');
    }
    const record: SilenceRecord = { queryId, untilMs, byUser, createdAt: nowMs };
    await this.redis
      .multi()
      .set(this.keys.silence(queryId), JSON.stringify(record), 'PX', ttl)
      .zadd(this.keys.silences(), untilMs, queryId)
      .zremrangebyscore(this.keys.silences(), '-inf', nowMs)
      .exec();
    return record;
  }

  /** Ends a silence; resolves to whether there was one. */
  async unsilence(queryId: string): Promise<boolean> {
    const [[, removed] = [null, 0]] = ((await this.redis
      .multi()
      .del(this.keys.silence(queryId))
      .zrem(this.keys.silences(), queryId)
      .exec()) ?? []) as [Error | null, number][];
    return Number(removed) > 0;
  }

  async get(queryId: string): Promise<SilenceRecord | null> {
    const text = await this.redis.get(this.keys.silence(queryId));
    if (!text) return null;
    try {
      return JSON.parse(text) as SilenceRecord;
    } catch {
      return null;
    }
  }

  async isSilenced(queryId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.silence(queryId))) === 1;
  }

  /** Active silences, soonest to end first. */
  async list(nowMs: number = Date.now()): Promise<SilenceRecord[]> {
    await this.redis.zremrangebyscore(this.keys.silences(), '-inf', nowMs);
    const ids = await this.redis.zrange(this.keys.silences(), 0, -1);
    const records = await Promise.all(ids.map((id) => this.get(id)));
    return records.filter((r): r is SilenceRecord => r !== null && r.untilMs > nowMs);
  }
}
