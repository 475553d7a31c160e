/**
 * Which queries have new progress for detect, by shard: one sorted set per shard (`detect:pending:<n>`,
 * a global key, each its own slot), member the query id, score when it was marked. The poll marks the
 * queries it appended to (after the inbox append: a crash in between leaves progress unmarked, which
 * the sweep's tick picks up within a minute) and asks for one detect job per shard. That job reads the
 * shard's members, runs them, then unmarks exactly those whose score is still the one it read: a query
 * marked again meanwhile (new progress while it ran) stays for the next job. A job that dies unmarks
 * nothing, so its retry finds every query again.
 */
import type { Redis } from 'ioredis';
import type { StoreKeys } from './keys.js';
import { LuaScript } from './script.js';

// KEYS[1] the shard's set; ARGV: member, score, member, score, … (as read)
const UNMARK = new LuaScript(`
local n = 0
for i = 1, #ARGV, 2 do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if score and tonumber(score) == tonumber(ARGV[i + 1]) then
    n = n + redis.call('ZREM', KEYS[1], ARGV[i])
  end
end
return n
`);

/** 32-bit FNV-1a of the query id: a query's shard never changes. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export class PendingDetectStore {
  /**
   * @param shards how many shards (and so detect jobs that can run at once for a poll). @defaultValue 32
   */
  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
    readonly shards = 32,
  ) {}

  shardOf(queryId: string): number {
    return fnv1a(queryId) % this.shards;
  }

  /** Marks queries as having new progress; returns the shards touched, each with its first query. */
  async mark(queryIds: string[], atMs: number = Date.now()): Promise<Map<number, string>> {
    const byShard = new Map<number, string[]>();
    for (const id of queryIds) {
      const shard = this.shardOf(id);
      let list = byShard.get(shard);
      if (!list) byShard.set(shard, (list = []));
      list.push(id);
    }
    // A fraction makes each marking's score its own, so an unmark never takes a later marking for
    // the one it read (two polls in the same millisecond).
    const score = atMs + Math.floor(Math.random() * 1000) / 1000;
    // One command per shard, concurrently (auto-pipelined); never one cross-slot transaction.
    await Promise.all([...byShard].map(([shard, ids]) => this.redis.zadd(this.keys.pendingDetect(shard), ...ids.flatMap((id) => [score, id]))));
    return new Map([...byShard].map(([shard, ids]) => [shard, ids[0]!]));
  }

  /** The shard's marked queries with the score each was read at (oldest mark first). */
  async read(shard: number): Promise<{ queryId: string; score: string }[]> {
    const flat = await this.redis.zrange(this.keys.pendingDetect(shard), 0, -1, 'WITHSCORES');
    const out: { queryId: string; score: string }[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) out.push({ queryId: flat[i]!, score: flat[i + 1]! });
    return out;
  }

  /** Unmarks what a job read and ran, unless marked again since. Returns how many were removed. */
  async unmark(shard: number, read: { queryId: string; score: string }[]): Promise<number> {
    if (read.length === 0) return 0;
    return Number(await UNMARK.run(this.redis, [this.keys.pendingDetect(shard)], read.flatMap((r) => [r.queryId, r.score])));
  }
}
