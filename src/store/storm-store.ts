/**
 * Alert-storm grouping per channel, in the spirit of Alertmanager's group_wait: openings routed to
 * a channel are counted over a sliding window; once `threshold` incidents open within it, the
 * channel enters a storm and further openings join one group (one Slack message listing them)
 * until the channel stays quiet for a whole window. Decided atomically in Redis, so two workers
 * classifying at once agree.
 *
 * The first opening of a burst is posted at once (no group_wait delay on the latency budget); the
 * group that forms behind it takes over that first message (its `anchorId`), so a burst still ends
 * up as one top-level message. The formation answer lists the earlier openings of the window so the
 * caller can fold those that have no message of their own yet.
 */
import { DEFAULTS } from '../config/defaults.js';
import type { Redis } from 'ioredis';
import type { StoreKeys } from './keys.js';
import { LuaScript } from './script.js';
import type { StormGroup } from './types.js';

export interface StormOptions {
  /** Sliding window (and quiet time that ends a storm). @defaultValue 30000 */
  windowMs?: number;
  /** Openings within the window that start a storm (2: the second opening folds the first). @defaultValue 2 */
  threshold?: number;
}

export type StormDecision =
  | { grouped: false }
  /** `earlier`: on creation, the other openings of the window, oldest first (empty otherwise). */
  | { grouped: true; groupId: string; created: boolean; earlier: string[] };

// KEYS: openings, activeGroup, groupHash(new), groupMembers(new) ; ARGV: incidentId, now, window, threshold, newGroupId, ttl
const CLASSIFY = new LuaScript(`
redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[2]) - tonumber(ARGV[3]))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) * 2)
local active = redis.call('GET', KEYS[2])
if active then
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
  return {1, active, 0}
end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then
  redis.call('SET', KEYS[2], ARGV[5], 'PX', ARGV[3])
  redis.call('HSET', KEYS[3], 'id', ARGV[5], 'openedAt', ARGV[2], 'version', 0, 'notifiedVersion', 0)
  redis.call('PEXPIRE', KEYS[3], ARGV[6])
  local out = {1, ARGV[5], 1}
  for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, 199)) do
    if id ~= ARGV[1] then table.insert(out, id) end
  end
  return out
end
return {0, '', 0}
`);

// KEYS: groupHash, members ; ARGV: incidentId, score, ttl
const JOIN = new LuaScript(`
redis.call('ZADD', KEYS[2], 'NX', ARGV[2], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return redis.call('HINCRBY', KEYS[1], 'version', 1)
`);

export class StormStore {
  readonly windowMs: number;
  readonly threshold: number;
  private readonly ttlMs = 7 * 24 * 3_600_000;

  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
    options: StormOptions = {},
  ) {
    this.windowMs = options.windowMs ?? DEFAULTS.stormWindowSeconds * 1000;
    this.threshold = Math.max(2, Math.floor(options.threshold ?? DEFAULTS.stormThreshold));
  }

  private membersKey(channel: string, groupId: string): string {
    return `${this.keys.group(channel, groupId)}:m`;
  }

  /** Classifies an opening incident; a grouped incident is added to the group. */
  async classify(channel: string, incidentId: string, nowMs: number = Date.now()): Promise<StormDecision> {
    const newGroupId = `storm-${nowMs}`;
    const res = (await CLASSIFY.run(
      this.redis,
      [this.keys.channelOpenings(channel), this.keys.channelActiveGroup(channel), this.keys.group(channel, newGroupId), this.membersKey(channel, newGroupId)],
      [incidentId, nowMs, this.windowMs, this.threshold, newGroupId, this.ttlMs],
    )) as [number, string, number, ...string[]];
    if (res[0] !== 1) return { grouped: false };
    await this.join(channel, res[1], incidentId, nowMs);
    return { grouped: true, groupId: res[1], created: res[2] === 1, earlier: res.slice(3) as string[] };
  }

  /** The incident whose message the group took over (its first post becomes the group message). */
  async setAnchor(channel: string, groupId: string, incidentId: string): Promise<void> {
    await this.redis.hset(this.keys.group(channel, groupId), 'anchorId', incidentId);
  }

  /** Records when members first appeared in the group message (kept once per member). */
  async markShown(channel: string, groupId: string, incidentIds: string[], nowMs: number): Promise<void> {
    if (incidentIds.length === 0) return;
    const key = `${this.keys.group(channel, groupId)}:s`;
    const multi = this.redis.multi();
    for (const id of incidentIds) multi.hsetnx(key, id, String(nowMs));
    await multi.pexpire(key, this.ttlMs).exec();
  }

  /** When each member first appeared in the group message, epoch ms. */
  async shownAt(channel: string, groupId: string): Promise<Record<string, number>> {
    const raw = await this.redis.hgetall(`${this.keys.group(channel, groupId)}:s`);
    return Object.fromEntries(Object.entries(raw).map(([id, v]) => [id, Number(v)]));
  }

  /** Adds an incident to a group (idempotent) and bumps the group's version. */
  async join(channel: string, groupId: string, incidentId: string, nowMs: number = Date.now()): Promise<number> {
    return Number(await JOIN.run(this.redis, [this.keys.group(channel, groupId), this.membersKey(channel, groupId)], [incidentId, nowMs, this.ttlMs]));
  }

  /** Bumps the group's version after a member changed, so the message is re-rendered. */
  async touch(channel: string, groupId: string): Promise<number> {
    return this.redis.hincrby(this.keys.group(channel, groupId), 'version', 1);
  }

  async get(channel: string, groupId: string): Promise<StormGroup | null> {
    const [hash, members] = await Promise.all([
      this.redis.hgetall(this.keys.group(channel, groupId)),
      this.redis.zrange(this.membersKey(channel, groupId), 0, -1),
    ]);
    if (!hash.id) return null;
    return {
      id: hash.id,
      channel,
      openedAt: Number(hash.openedAt) || 0,
      incidentIds: members,
      anchorId: hash.anchorId || null,
      version: Number(hash.version) || 0,
      slack: hash.slackTs ? { channel, ts: hash.slackTs } : null,
      notifiedVersion: Number(hash.notifiedVersion) || 0,
    };
  }

  async setSlackTs(channel: string, groupId: string, ts: string): Promise<void> {
    await this.redis.hset(this.keys.group(channel, groupId), 'slackTs', ts);
  }

  async markNotified(channel: string, groupId: string, version: number): Promise<void> {
    const key = this.keys.group(channel, groupId);
    const current = Number((await this.redis.hget(key, 'notifiedVersion')) ?? 0);
    if (version > current) await this.redis.hset(key, 'notifiedVersion', version);
  }
}
