/**
 * The stream registry: one hash per query (`{q:id}:meta`) with what the stream is, where it comes
 * from and its latest snapshot, plus a global set of query ids.
 */
import type { Redis } from 'ioredis';
import type { Health } from '../diagnosis/types.js';
import type { StoreKeys } from './keys.js';
import type { StreamInfo, StreamRecord, StreamSnapshot } from './types.js';

const INFO_FIELDS = ['name', 'source', 'workspace', 'workspaceUrl', 'jobId', 'pipelineId', 'runPageUrl'] as const;

function parseJson<T>(text: string | undefined): T | null {
  if (!text) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

function numOrNull(text: string | undefined): number | null {
  if (text === undefined || text === '') return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

/** Decodes a `{q:id}:meta` hash; null when the query was never registered. */
export function decodeStream(queryId: string, hash: Record<string, string>): StreamRecord | null {
  if (!hash || Object.keys(hash).length === 0 || hash.registered !== '1') return null;
  const record: StreamRecord = {
    queryId,
    name: hash.name ? hash.name : null,
    snapshot: parseJson<StreamSnapshot>(hash.snapshot),
    health: (hash.health as Health) || 'ok',
    updatedAt: numOrNull(hash.updatedAt) ?? 0,
    lastRunId: hash.lastRunId || null,
    lastObservedBatchId: numOrNull(hash.lastBatchId),
    lastObservedAt: numOrNull(hash.lastObservedAt),
    observedCount: numOrNull(hash.observed) ?? 0,
  };
  for (const field of INFO_FIELDS) {
    if (field !== 'name' && hash[field]) record[field] = hash[field];
  }
  return record;
}

export class StreamRegistry {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
  ) {}

  /**
   * Registers a stream or updates what is known about it. Fields left undefined keep their
   * stored value, so sources that know less (no run page URL) do not erase what others said.
   */
  async upsert(info: StreamInfo, nowMs: number = Date.now()): Promise<void> {
    const fields: Record<string, string> = { registered: '1', updatedAt: String(nowMs) };
    for (const field of INFO_FIELDS) {
      const value = info[field];
      if (value !== undefined && value !== null) fields[field] = String(value);
    }
    // Two idempotent commands, not one MULTI: the meta hash and the global index live in different
    // hash slots (CROSSSLOT on Redis Cluster). Meta first: an index entry never points at nothing.
    await this.redis.hset(this.keys.streamMeta(info.queryId), fields);
    await this.redis.sadd(this.keys.streams(), info.queryId);
  }

  async get(queryId: string): Promise<StreamRecord | null> {
    return decodeStream(queryId, await this.redis.hgetall(this.keys.streamMeta(queryId)));
  }

  async listIds(): Promise<string[]> {
    return (await this.redis.smembers(this.keys.streams())).sort();
  }

  /** Every registered stream, sorted by name then id. Read in chunks of concurrent commands. */
  async list(): Promise<StreamRecord[]> {
    const ids = await this.listIds();
    const out: StreamRecord[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      // Concurrent single commands (the metas live in different hash slots; see incident-store getMany).
      const hashes = await Promise.all(chunk.map((id) => this.redis.hgetall(this.keys.streamMeta(id))));
      chunk.forEach((id, j) => {
        const record = decodeStream(id, hashes[j] ?? {});
        if (record) out.push(record);
      });
    }
    return out.sort((a, b) => (a.name ?? a.queryId).localeCompare(b.name ?? b.queryId) || a.queryId.localeCompare(b.queryId));
  }

  /** Finds streams whose name or id matches exactly (case-insensitive name), for `/streamdoctor status <name>`. */
  async find(nameOrId: string): Promise<StreamRecord[]> {
    const direct = await this.get(nameOrId);
    if (direct) return [direct];
    const wanted = nameOrId.toLowerCase();
    return (await this.list()).filter((s) => (s.name ?? '').toLowerCase() === wanted);
  }

  /** Removes a stream and its per-query keys (not its incident records, which expire). */
  async remove(queryId: string): Promise<void> {
    await this.redis.del(...this.keys.queryFixedKeys(queryId));
    await this.redis.srem(this.keys.streams(), queryId);
  }
}
