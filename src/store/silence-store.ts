/**
 * Silences: one key per query with a PX TTL, so a silence ends by itself even if nothing ever runs
 * again, plus a sorted index (score = until) for listing. Open incidents a silence kept quiet are
 * *held* (a sorted set scored by the silence's end): the end of the silence, early (unmute) or on
 * time (a delayed notify job, and the sweep as a backstop), brings them back to notify.
 */
import type { Redis } from 'ioredis';
import { StoreError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { LuaScript } from './script.js';
import type { SilenceRecord } from './types.js';

/** An open incident a silence kept quiet, and when that silence ends. */
export interface HeldIncident {
  incidentId: string;
  untilMs: number;
}

// Removes held entries only while still due: a re-hold with a later end (the silence was extended)
// that landed meanwhile stays.
const RELEASE_DUE = new LuaScript(`
local n = 0
for i = 1, #ARGV - 1 do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if score and tonumber(score) <= tonumber(ARGV[#ARGV]) then n = n + redis.call('ZREM', KEYS[1], ARGV[i]) end
end
return n
`);

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
    // The silence key (slot of its query) and the global index (its own slot) are written apart, not
    // in one MULTI (CROSSSLOT on Redis Cluster): the key first, since it is what silences; the index
    // only lists, and `list` skips entries whose key is gone.
    await this.redis.set(this.keys.silence(queryId), JSON.stringify(record), 'PX', ttl);
    await this.redis.multi().zadd(this.keys.silences(), untilMs, queryId).zremrangebyscore(this.keys.silences(), '-inf', nowMs).exec();
    return record;
  }

  /** Ends a silence; resolves to whether there was one. */
  async unsilence(queryId: string): Promise<boolean> {
    const removed = await this.redis.del(this.keys.silence(queryId));
    await this.redis.zrem(this.keys.silences(), queryId);
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

  /** Records that a silence ending at `untilMs` kept an open incident quiet. */
  async hold(incidentId: string, untilMs: number): Promise<void> {
    await this.redis.zadd(this.keys.silencedHeld(), untilMs, incidentId);
  }

  /** The incident no longer waits for a silence to end (it was shown, or it resolved). */
  async unhold(incidentId: string): Promise<void> {
    await this.redis.zrem(this.keys.silencedHeld(), incidentId);
  }

  /** Held incidents whose silence ended by `nowMs`, soonest first. */
  async dueHeld(nowMs: number, limit = 500): Promise<HeldIncident[]> {
    const raw = await this.redis.zrangebyscore(this.keys.silencedHeld(), '-inf', nowMs, 'WITHSCORES', 'LIMIT', 0, limit);
    const out: HeldIncident[] = [];
    for (let i = 0; i < raw.length; i += 2) out.push({ incidentId: raw[i]!, untilMs: Number(raw[i + 1]) });
    return out;
  }

  /** Drops held entries that are still due at `nowMs` (after their notify jobs were enqueued). */
  async releaseDue(incidentIds: string[], nowMs: number): Promise<number> {
    if (incidentIds.length === 0) return 0;
    return Number(await RELEASE_DUE.run(this.redis, [this.keys.silencedHeld()], [...incidentIds, nowMs]));
  }
}
