/**
 * Incident records. The detect commit creates and advances them (see QueryStateStore); this class
 * reads them, applies people's actions (acknowledge), records where their Slack message lives, and
 * keeps the global indexes (open incidents, incidents of the last 24 h per channel).
 */
import type { Redis } from 'ioredis';
import type { Incident, IncidentKind } from '../diagnosis/types.js';
import { StoreError } from './errors.js';
import { parseIncidentId } from './incident-id.js';
import type { StoreKeys } from './keys.js';
import { LuaScript } from './script.js';
import type { ChannelIncidentEntry, IncidentRecord, SlackRef } from './types.js';

const DAY_MS = 24 * 3_600_000;

function num(text: string | undefined): number | null {
  if (text === undefined || text === '') return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

/** Decodes an incident hash; null when absent or unreadable. */
export function decodeIncident(hash: Record<string, string>): IncidentRecord | null {
  if (!hash || !hash.id || !hash.incident) return null;
  let incident: Incident;
  try {
    incident = JSON.parse(hash.incident) as Incident;
  } catch {
    return null;
  }
  return {
    id: hash.id,
    queryId: hash.queryId ?? '',
    queryName: hash.queryName ? hash.queryName : null,
    kind: (hash.kind ?? incident.kind) as IncidentKind,
    state: hash.state === 'resolved' ? 'resolved' : 'open',
    incident,
    version: num(hash.version) ?? 0,
    acknowledgedBy: hash.acknowledgedBy ? hash.acknowledgedBy : null,
    acknowledgedAt: num(hash.acknowledgedAt),
    slack: hash.slackChannel && hash.slackTs ? { channel: hash.slackChannel, ts: hash.slackTs } : null,
    channel: hash.channel ? hash.channel : null,
    openedAt: num(hash.openedAt) ?? 0,
    resolvedAt: num(hash.resolvedAt),
    groupId: hash.groupId ? hash.groupId : null,
    notifiedVersion: num(hash.notifiedVersion) ?? 0,
    resolvedBy: hash.resolvedBy ? hash.resolvedBy : null,
  };
}

// Sets fields and bumps the version only if the record exists; returns the new version or -1.
const UPDATE_IF_EXISTS = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if #ARGV > 0 then redis.call('HSET', KEYS[1], unpack(ARGV)) end
return redis.call('HINCRBY', KEYS[1], 'version', 1)
`);

// Raises notifiedVersion monotonically.
const MARK_NOTIFIED = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local cur = tonumber(redis.call('HGET', KEYS[1], 'notifiedVersion') or '0')
if tonumber(ARGV[1]) > cur then redis.call('HSET', KEYS[1], 'notifiedVersion', ARGV[1]) end
return 1
`);

// Acknowledges only an open, unacknowledged incident, atomically, so two clicks at once (a double
// click, or two people) record one acknowledger and one thread line. Returns the new version, -1
// when the record is missing, -2 when it is resolved, -3 when someone acknowledged it already.
const ACKNOWLEDGE_FIRST = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HGET', KEYS[1], 'state') == 'resolved' then return -2 end
local by = redis.call('HGET', KEYS[1], 'acknowledgedBy')
if by and by ~= '' then return -3 end
redis.call('HSET', KEYS[1], 'acknowledgedBy', ARGV[1], 'acknowledgedAt', ARGV[2])
return redis.call('HINCRBY', KEYS[1], 'version', 1)
`);

// Clears the acknowledgement only if there is one (same codes; -3 means nobody had acknowledged).
const UNACKNOWLEDGE_IF_SET = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HGET', KEYS[1], 'state') == 'resolved' then return -2 end
local by = redis.call('HGET', KEYS[1], 'acknowledgedBy')
if not by or by == '' then return -3 end
redis.call('HSET', KEYS[1], 'acknowledgedBy', '', 'acknowledgedAt', '')
return redis.call('HINCRBY', KEYS[1], 'version', 1)
`);

/** Outcome of a conditional acknowledge / unacknowledge; `record` is the state after the attempt. */
export type AckOutcome =
  | { status: 'changed'; record: IncidentRecord }
  | { status: 'missing'; record: null }
  | { status: 'resolved' | 'unchanged'; record: IncidentRecord | null };

export class IncidentStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
  ) {}

  private keyOf(incidentId: string, queryId?: string): string {
    const qid = queryId ?? parseIncidentId(incidentId)?.queryId;
    if (!qid) throw new StoreError('streamdoctor_store_invalid', `not an incident id: ${incidentId}`);
    return this.keys.incident(qid, incidentId);
  }

  async get(incidentId: string): Promise<IncidentRecord | null> {
    if (!parseIncidentId(incidentId)) return null;
    return decodeIncident(await this.redis.hgetall(this.keyOf(incidentId)));
  }

  async getMany(incidentIds: string[]): Promise<IncidentRecord[]> {
    const ids = incidentIds.filter((id) => parseIncidentId(id));
    if (ids.length === 0) return [];
    // Concurrent single commands, not one pipeline: the records live in different hash slots (one
    // explicit pipeline across slots fails on Redis Cluster); ioredis still sends them together.
    const hashes = await Promise.all(ids.map((id) => this.redis.hgetall(this.keyOf(id))));
    return hashes.map((hash) => decodeIncident(hash ?? {})).filter((r): r is IncidentRecord => r !== null);
  }

  /** Incidents of one query, open first, newest first; expired records are pruned from the index. */
  async listForQuery(queryId: string): Promise<IncidentRecord[]> {
    const ids = await this.redis.smembers(this.keys.queryIncidents(queryId));
    const records = await this.getMany(ids);
    const live = new Set(records.map((r) => r.id));
    const gone = ids.filter((id) => !live.has(id));
    if (gone.length > 0) await this.redis.srem(this.keys.queryIncidents(queryId), ...gone);
    return records.sort((a, b) => (a.state === b.state ? b.openedAt - a.openedAt : a.state === 'open' ? -1 : 1));
  }

  /** Every open incident across all queries, newest first. */
  async listOpen(limit = 1000): Promise<IncidentRecord[]> {
    const ids = await this.redis.zrevrange(this.keys.openIncidents(), 0, limit - 1);
    const records = await this.getMany(ids);
    const open = records.filter((r) => r.state === 'open');
    const stale = ids.filter((id) => !open.some((r) => r.id === id));
    if (stale.length > 0) await this.redis.zrem(this.keys.openIncidents(), ...stale);
    return open;
  }

  async countOpen(): Promise<number> {
    return this.redis.zcard(this.keys.openIncidents());
  }

  /** Keeps the global open-incident index in line with a record (idempotent). */
  async index(record: IncidentRecord): Promise<void> {
    if (record.state === 'open') await this.redis.zadd(this.keys.openIncidents(), record.openedAt, record.id);
    else await this.redis.zrem(this.keys.openIncidents(), record.id);
  }

  /**
   * Fixes the channel an incident is routed to, the first time only (later routing changes do not
   * move a live message). Also records it in the channel's 24 h incident list for the digest.
   * Returns the channel in effect.
   */
  async assignChannel(record: IncidentRecord, channel: string, nowMs: number = Date.now()): Promise<string> {
    const key = this.keyOf(record.id, record.queryId);
    await this.redis.hsetnx(key, 'channel', channel);
    const effective = (await this.redis.hget(key, 'channel')) ?? channel;
    const listKey = this.keys.channelIncidents(effective);
    await this.redis
      .multi()
      .zadd(listKey, record.openedAt, `${record.id}`)
      .zremrangebyscore(listKey, '-inf', nowMs - DAY_MS)
      .pexpire(listKey, 2 * DAY_MS)
      .exec();
    return effective;
  }

  /** Incidents opened in a channel in the last 24 h (or since `sinceMs`), oldest first. */
  async listForChannel(channel: string, sinceMs: number = Date.now() - DAY_MS): Promise<ChannelIncidentEntry[]> {
    const raw = await this.redis.zrangebyscore(this.keys.channelIncidents(channel), sinceMs, '+inf', 'WITHSCORES');
    const out: ChannelIncidentEntry[] = [];
    for (let i = 0; i < raw.length; i += 2) {
      const id = raw[i]!;
      out.push({ incidentId: id, queryId: parseIncidentId(id)?.queryId ?? '', openedAt: Number(raw[i + 1]) });
    }
    return out;
  }

  /** Marks an incident acknowledged by a Slack user. Returns the updated record, or null if unknown. */
  async acknowledge(incidentId: string, userId: string, nowMs: number = Date.now()): Promise<IncidentRecord | null> {
    const v = await UPDATE_IF_EXISTS.run(this.redis, [this.keyOf(incidentId)], [
      'acknowledgedBy',
      userId,
      'acknowledgedAt',
      String(nowMs),
    ]);
    return Number(v) < 0 ? null : this.get(incidentId);
  }

  async unacknowledge(incidentId: string): Promise<IncidentRecord | null> {
    const v = await UPDATE_IF_EXISTS.run(this.redis, [this.keyOf(incidentId)], ['acknowledgedBy', '', 'acknowledgedAt', '']);
    return Number(v) < 0 ? null : this.get(incidentId);
  }

  /**
   * Acknowledges an open incident unless someone already did (atomic: concurrent clicks record one
   * acknowledger). `unchanged` means it was acknowledged already; `record` says by whom.
   */
  async acknowledgeFirst(incidentId: string, userId: string, nowMs: number = Date.now()): Promise<AckOutcome> {
    if (!parseIncidentId(incidentId)) return { status: 'missing', record: null };
    const v = Number(await ACKNOWLEDGE_FIRST.run(this.redis, [this.keyOf(incidentId)], [userId, String(nowMs)]));
    return this.ackOutcome(incidentId, v);
  }

  /** Removes the acknowledgement if there is one (atomic); `unchanged` means there was none. */
  async unacknowledgeIfSet(incidentId: string): Promise<AckOutcome> {
    if (!parseIncidentId(incidentId)) return { status: 'missing', record: null };
    const v = Number(await UNACKNOWLEDGE_IF_SET.run(this.redis, [this.keyOf(incidentId)], []));
    return this.ackOutcome(incidentId, v);
  }

  private async ackOutcome(incidentId: string, v: number): Promise<AckOutcome> {
    if (v === -1) return { status: 'missing', record: null };
    const record = await this.get(incidentId);
    if (v >= 0 && record) return { status: 'changed', record };
    if (v >= 0 || !record) return { status: 'missing', record: null };
    return { status: v === -2 ? 'resolved' : 'unchanged', record };
  }

  /** Records the storm group an incident joined. */
  async setGroup(incidentId: string, groupId: string): Promise<void> {
    await this.redis.hset(this.keyOf(incidentId), 'groupId', groupId);
  }

  /** Records where the incident's Slack message lives. */
  async setSlackRef(incidentId: string, ref: SlackRef): Promise<void> {
    await this.redis.hset(this.keyOf(incidentId), 'slackChannel', ref.channel, 'slackTs', ref.ts);
  }

  /** Records that Slack shows version `version` (never lowers it). */
  async markNotified(incidentId: string, version: number): Promise<void> {
    await MARK_NOTIFIED.run(this.redis, [this.keyOf(incidentId)], [version]);
  }
}
