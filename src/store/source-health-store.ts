/**
 * Whether each progress source can be read: the last successful poll, and the current failure
 * streak (when it began, its latest reason) with the source-health incident it opened. One small
 * hash per source under the hash tag of the source's stream entry (`{q:source-<id>}`), so it shares
 * a slot with that entry's incident records; every operation here is one command or one script on
 * that one key.
 */
import type { Redis } from 'ioredis';
import type { StoreKeys } from './keys.js';
import { LuaScript } from './script.js';

/** The stream entry a source's health incident lives under (routed like a query: defaults channel). */
export function sourceStreamId(sourceId: string): string {
  return `source-${sourceId}`;
}

/** What the store knows about one source. Times are epoch ms. */
export interface SourceHealth {
  lastSuccessAt: number | null;
  /** Start of the current failure streak; null while reads succeed. */
  failingSince: number | null;
  lastFailureAt: number | null;
  /** Failed polls in the current streak. */
  failures: number;
  /** Stable reason code of the latest failure (see jobs/source-health.ts). */
  reason: string | null;
  /** The open source-health incident of this streak, and the reason code it shows. */
  incidentId: string | null;
  incidentReason: string | null;
}

// KEYS[1] health hash; ARGV[1] now, ARGV[2] reason code. Starts the streak at the first failure.
const RECORD_FAILURE = new LuaScript(`
redis.call('HSETNX', KEYS[1], 'failingSince', ARGV[1])
redis.call('HSET', KEYS[1], 'lastFailureAt', ARGV[1], 'reason', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'failures', 1)
return redis.call('HGETALL', KEYS[1])
`);

// KEYS[1] health hash; ARGV[1] now. Records the success; ends a streak that has no open incident
// (one with an incident ends once the incident is resolved: endStreak). Returns the hash before.
const RECORD_SUCCESS = new LuaScript(`
local before = redis.call('HGETALL', KEYS[1])
redis.call('HSET', KEYS[1], 'lastSuccessAt', ARGV[1])
if not redis.call('HGET', KEYS[1], 'incidentId') then
  redis.call('HDEL', KEYS[1], 'failingSince', 'lastFailureAt', 'failures', 'reason', 'incidentReason')
end
return before
`);

function decode(flat: unknown): SourceHealth {
  const list = Array.isArray(flat) ? (flat as string[]) : [];
  const hash: Record<string, string> = {};
  for (let i = 0; i + 1 < list.length; i += 2) hash[list[i]!] = list[i + 1]!;
  return decodeHash(hash);
}

function decodeHash(hash: Record<string, string>): SourceHealth {
  const num = (text: string | undefined): number | null => {
    if (text === undefined || text === '') return null;
    const n = Number(text);
    return Number.isFinite(n) ? n : null;
  };
  return {
    lastSuccessAt: num(hash.lastSuccessAt),
    failingSince: num(hash.failingSince),
    lastFailureAt: num(hash.lastFailureAt),
    failures: num(hash.failures) ?? 0,
    reason: hash.reason || null,
    incidentId: hash.incidentId || null,
    incidentReason: hash.incidentReason || null,
  };
}

export class SourceHealthStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
  ) {}

  private key(sourceId: string): string {
    return `${this.keys.queryTag(sourceStreamId(sourceId))}:health`;
  }

  async get(sourceId: string): Promise<SourceHealth> {
    return decodeHash(await this.redis.hgetall(this.key(sourceId)));
  }

  /** Counts a failed poll; returns the state after it (the streak's start kept from its first failure). */
  async recordFailure(sourceId: string, reason: string, nowMs: number): Promise<SourceHealth> {
    return decode(await RECORD_FAILURE.run(this.redis, [this.key(sourceId)], [nowMs, reason]));
  }

  /** Records a successful poll; returns the state before it (an open incident to resolve, if any). */
  async recordSuccess(sourceId: string, nowMs: number): Promise<SourceHealth> {
    return decode(await RECORD_SUCCESS.run(this.redis, [this.key(sourceId)], [nowMs]));
  }

  /** The streak's incident is open (or now shows another reason). */
  async markIncident(sourceId: string, incidentId: string, reason: string): Promise<void> {
    await this.redis.hset(this.key(sourceId), 'incidentId', incidentId, 'incidentReason', reason);
  }

  /** The streak's incident is resolved: the streak is over. */
  async endStreak(sourceId: string): Promise<void> {
    await this.redis.hdel(this.key(sourceId), 'incidentId', 'incidentReason', 'failingSince', 'lastFailureAt', 'failures', 'reason');
  }

  /** Whether the source's last poll failed (its streams' silence is explained). */
  async isFailing(sourceId: string): Promise<boolean> {
    return (await this.redis.hexists(this.key(sourceId), 'failingSince')) === 1;
  }
}
