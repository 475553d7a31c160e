/**
 * Incident records. The detect commit creates and advances them (see QueryStateStore); this class
 * reads them, applies people's actions (acknowledge), records where their Slack message lives, and
 * keeps the global indexes (open incidents, incidents of the last 24 h per channel).
 */
import type { Redis } from 'ioredis';
import { z } from 'zod';
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

/**
 * The shape of the stored incident JSON every renderer relies on. Checked when read, so a record
 * written by another release or damaged by hand is refused with a reason, never a TypeError at render.
 */
const storedIncident = z.looseObject({
  kind: z.string().optional(),
  severity: z.enum(['warning', 'critical']),
  openedAt: z.string(),
  summary: z.string(),
  // What the renderers read around (null, absent) is let through as it is.
  resolvedAt: z.string().nullish(),
  causes: z.array(z.looseObject({ code: z.string(), confidence: z.number().nullable(), evidence: z.string() })).nullish(),
  advice: z.array(z.looseObject({ text: z.string() })).nullish(),
  metrics: z.looseObject({}).nullish(),
  relapses: z.number().nullish(),
  relapsedAt: z.string().nullish(),
  aftermath: z.looseObject({}).nullish(),
  figuresAt: z.string().nullish(),
});

/**
 * What reading an incident hash found. `record` null: no record (`problem` null) or one that can
 * never be rendered (`problem` says why). A record read around a fault (an unreadable version, lists
 * an older shape lacked) comes with `problem` saying so; `versionUnknown` when its version is no count.
 */
export interface IncidentRead {
  record: IncidentRecord | null;
  problem: string | null;
  versionUnknown: boolean;
}

const ABSENT: IncidentRead = { record: null, problem: null, versionUnknown: false };

export function readIncidentHash(hash: Record<string, string> | null | undefined): IncidentRead {
  // No id and no incident: nothing, or a stub a late write left on an expired record.
  if (!hash || (!hash.id && !hash.incident)) return ABSENT;
  const refuse = (problem: string): IncidentRead => ({ record: null, problem, versionUnknown: false });
  if (!hash.id) return refuse('it has no id field');
  if (!hash.incident) return refuse('it has no incident field');
  let json: unknown;
  try {
    json = JSON.parse(hash.incident);
  } catch {
    return refuse(`its incident field is not JSON (${hash.incident.length} characters; cut short?)`);
  }
  const shape = storedIncident.safeParse(json);
  if (!shape.success) {
    const issue = shape.error.issues[0]!;
    return refuse(`its incident field is not an incident: "${issue.path.join('.') || '(root)'}" ${issue.message}`);
  }
  const kind = hash.kind || shape.data.kind;
  if (!kind) return refuse('it names no incident kind');
  const notes: string[] = [];
  // Lists an older shape lacked read as empty: the alert still goes out, without them.
  const incident = json as Incident;
  if (!shape.data.causes) notes.push('its incident has no causes (older shape): shown without them');
  if (!shape.data.advice) notes.push('its incident has no advice (older shape): shown without it');
  const version = num(hash.version);
  const versionUnknown = version === null || !Number.isSafeInteger(version) || version < 0;
  if (versionUnknown) notes.push(`its version field ${JSON.stringify(String(hash.version ?? '').slice(0, 40))} is no count: rendered as the latest`);
  return {
    record: {
      id: hash.id,
      queryId: hash.queryId ?? '',
      queryName: hash.queryName ? hash.queryName : null,
      kind: kind as IncidentKind,
      state: hash.state === 'resolved' ? 'resolved' : 'open',
      incident: { ...incident, causes: incident.causes ?? [], advice: incident.advice ?? [] },
      version: versionUnknown ? 0 : version,
      acknowledgedBy: hash.acknowledgedBy ? hash.acknowledgedBy : null,
      acknowledgedAt: num(hash.acknowledgedAt),
      slack: hash.slackChannel && hash.slackTs ? { channel: hash.slackChannel, ts: hash.slackTs } : null,
      channel: hash.channel ? hash.channel : null,
      openedAt: num(hash.openedAt) ?? 0,
      resolvedAt: num(hash.resolvedAt),
      groupId: hash.groupId ? hash.groupId : null,
      notifiedVersion: num(hash.notifiedVersion) ?? 0,
      resolvedBy: hash.resolvedBy ? hash.resolvedBy : null,
    },
    problem: notes.length > 0 ? notes.join('; ') : null,
    versionUnknown,
  };
}

/** Decodes an incident hash; null when absent or unreadable (`readIncidentHash` says why). */
export function decodeIncident(hash: Record<string, string>): IncidentRecord | null {
  return readIncidentHash(hash).record;
}

// Sets fields and bumps the version only if the record exists; returns the new version or -1.
const UPDATE_IF_EXISTS = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if #ARGV > 0 then redis.call('HSET', KEYS[1], unpack(ARGV)) end
return redis.call('HINCRBY', KEYS[1], 'version', 1)
`);

// Moves an incident to another channel only while it is still in ARGV[1] and shown nowhere (no
// message recorded, no storm group). Returns 1 when moved.
const MOVE_UNSHOWN = new LuaScript(`
local cur = redis.call('HGET', KEYS[1], 'channel')
if cur ~= ARGV[1] then return 0 end
local ts = redis.call('HGET', KEYS[1], 'slackTs')
local grp = redis.call('HGET', KEYS[1], 'groupId')
if (ts and ts ~= '') or (grp and grp ~= '') then return 0 end
redis.call('HSET', KEYS[1], 'channel', ARGV[2])
return 1
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
    return (await this.read(incidentId)).record;
  }

  /** The record with what was wrong with it, if anything (`readIncidentHash`). */
  async read(incidentId: string): Promise<IncidentRead> {
    if (!parseIncidentId(incidentId)) return ABSENT;
    return readIncidentHash(await this.redis.hgetall(this.keyOf(incidentId)));
  }

  /** The record's Redis key (named in warnings about a record that cannot be used). */
  keyFor(incidentId: string): string | null {
    return parseIncidentId(incidentId) ? this.keyOf(incidentId) : null;
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
   * move a live message; one never shown moves with `moveUnshown`). Also records it in the channel's
   * 24 h incident list for the digest. Returns the channel in effect.
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

  /**
   * Routes an incident that was never shown to another channel (its route changed, or its channel
   * is gone): only while it is still in `from` with no message and no storm group, so a message
   * that exists is never orphaned. The caller makes sure nothing is being posted in `from` (the
   * poster's lock). Resolves to whether it moved.
   */
  async moveUnshown(record: IncidentRecord, from: string, to: string, nowMs: number = Date.now()): Promise<boolean> {
    const moved = Number(await MOVE_UNSHOWN.run(this.redis, [this.keyOf(record.id, record.queryId)], [from, to])) === 1;
    if (moved) {
      // The digest lists it where it now lives.
      await this.redis.zrem(this.keys.channelIncidents(from), record.id);
      await this.assignChannel(record, to, nowMs);
    }
    return moved;
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
