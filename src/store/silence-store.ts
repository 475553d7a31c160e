/**
 * Silences: one key per query with a PX TTL, so a silence ends by itself even if nothing ever runs
 * again, plus a sorted index (score = until) for listing. Open incidents a silence kept quiet are
 * *held* (a sorted set scored by the silence's end): the end of the silence, early (unmute) or on
 * time (a delayed notify job, and the sweep as a backstop), brings them back to notify.
 */
import type { Redis } from 'ioredis';
import { MAX_TIMESTAMP_MS, MIN_TIMESTAMP_MS } from '../progress/values.js';
import { StoreError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { LuaScript } from './script.js';
import type { SilenceRecord } from './types.js';

/** An open incident a silence kept quiet, and when that silence ends. */
export interface HeldIncident {
  incidentId: string;
  untilMs: number;
}

/** A record's end and its key's expiry this far apart are one end read on two clocks. */
const END_SKEW_TOLERANCE_MS = 2_000;

/** What reading a silence found: the silence in effect (or none), and what was wrong with its record. */
export interface SilenceRead {
  record: SilenceRecord | null;
  problem: string | null;
}

/** A time in ms between the years 2000 and 2200 (the parser's bounds): outside, no time in ms (seconds, say). */
const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= MIN_TIMESTAMP_MS && v <= MAX_TIMESTAMP_MS;

/**
 * How far a record's end is trusted. `as-written`: a time in ms is its end (what was asked for, on
 * the writer's clock; listings and renders). `key-rules`: the key's expiry overrides an end that
 * passed while it lives or lies past it (whoever holds alerts until the end: notify, on its clock).
 */
export type SilenceEndReading = 'as-written' | 'key-rules';

/**
 * The silence in effect from its record and its key's expiry (`pttl`, ms; -1 none). The key is what
 * silences, so its expiry is the end whenever the record cannot say it: `untilMs` renamed, not a
 * number, or in seconds; and, read `key-rules`, later than the key's expiry. Read `key-rules`, an
 * `untilMs` that has passed ends the silence. It then reads as ending when the key expires, on this
 * process's clock, rounded up to the second so that rereads agree. An end still ahead and before the
 * key's expiry is kept as written (the demo's accelerated clock writes those). A key that never
 * expires ends at its record's `untilMs`, and without one reads as no silence (an alert, not a hold
 * forever).
 */
export function silenceInEffect(queryId: string, text: string, pttl: number, nowMs: number, reading: SilenceEndReading = 'key-rules'): SilenceRead {
  let parsed: Partial<Record<keyof SilenceRecord, unknown>> = {};
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object') parsed = value as typeof parsed;
  } catch {
    // Read as a record without fields: the key's expiry still says when it ends.
  }
  const base = { queryId, byUser: typeof parsed.byUser === 'string' ? parsed.byUser : 'unknown', createdAt: isTime(parsed.createdAt) ? parsed.createdAt : 0 };
  const written = isTime(parsed.untilMs) ? parsed.untilMs : null;
  const said = written === null ? `its untilMs ${String(JSON.stringify(parsed.untilMs ?? null)).slice(0, 40)} is no time in ms` : `its untilMs ${new Date(written).toISOString()}`;
  // The end asked for has passed: over, though the key (a backstop) lives on. The key outlives it when
  // the writer's clock runs behind this one, or fast (the demo's): holding on to the key's expiry
  // would show an end that moves and hold alerts past the one asked for.
  if (reading === 'key-rules' && written !== null && written <= nowMs) return { record: null, problem: null };
  if (pttl > 0) {
    const keyEnd = nowMs + pttl;
    const trusted = reading === 'as-written' || (written !== null && written <= keyEnd + END_SKEW_TOLERANCE_MS);
    if (written !== null && trusted) return { record: { ...base, untilMs: written }, problem: null };
    const untilMs = Math.ceil(keyEnd / 1000) * 1000;
    return { record: { ...base, untilMs }, problem: `${said} disagrees with its key, which expires at ${new Date(keyEnd).toISOString()}: read as ending then` };
  }
  if (written !== null && written > nowMs) return { record: { ...base, untilMs: written }, problem: 'its key never expires: read as ending at its untilMs' };
  return { record: null, problem: `${said} and its key never expires: read as no silence` };
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

// Sets the silence (ARGV: record, ttl) unless the one in force is the same one asked again (ARGV:
// its end, length, tolerance, now): the same end, or the same length ending within the tolerance of
// it (a double click, or two people at once, on clocks a little apart). Then it replies the record
// in force and its PTTL.
const SILENCE_UNLESS_REPEAT = new LuaScript(`
local text = redis.call('GET', KEYS[1])
if text then
  local ok, old = pcall(cjson.decode, text)
  if ok and type(old) == 'table' then
    local untilMs, createdAt = tonumber(old.untilMs), tonumber(old.createdAt)
    local asked, length, within, now = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
    if untilMs and untilMs > now and (untilMs == asked or (createdAt and untilMs - createdAt == length and math.abs(asked - untilMs) <= within)) then
      return {text, redis.call('PTTL', KEYS[1])}
    end
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
`);

// Removes the silence key, replying what it held and its PTTL (the caller judges whether it was in force).
const TAKE_SILENCE = new LuaScript(`
local text = redis.call('GET', KEYS[1])
if not text then return false end
local pttl = redis.call('PTTL', KEYS[1])
redis.call('DEL', KEYS[1])
return {text, pttl}
`);

/** What `silenceOnce` did: set the silence asked for, or found that very silence in force. */
export interface SilenceOutcome {
  changed: boolean;
  record: SilenceRecord;
}

/** The key's lifetime for a new silence, in ms; a silence must end in the future. */
function ttlOf(record: SilenceRecord): number {
  const ttl = Math.floor(record.untilMs - record.createdAt);
  if (!Number.isFinite(ttl) || ttl <= 0) {
    throw new StoreError('streamdoctor_store_invalid', 'a silence must end in the future');
  }
  return ttl;
}

export class SilenceStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
  ) {}

  /** Silences a query's notifications until `untilMs`. Replaces an existing silence. */
  async silence(queryId: string, untilMs: number, byUser: string, nowMs: number = Date.now()): Promise<SilenceRecord> {
    const record: SilenceRecord = { queryId, untilMs, byUser, createdAt: nowMs };
    const ttl = ttlOf(record);
    // The silence key (slot of its query) and the global index (its own slot) are written apart, not
    // in one MULTI (CROSSSLOT on Redis Cluster): the key first, since it is what silences; the index
    // only lists, and `list` skips entries whose key is gone.
    await this.redis.set(this.keys.silence(queryId), JSON.stringify(record), 'PX', ttl);
    await this.index(record);
    return record;
  }

  /**
   * As `silence`, unless that silence is in force already: one ending at `untilMs`, or as long as
   * this one and ending within `repeatWithinMs` of it (the same choice made again moments later).
   * Atomic on the silence's key, so of two such requests at once one sets it.
   */
  async silenceOnce(queryId: string, untilMs: number, byUser: string, nowMs: number, repeatWithinMs: number): Promise<SilenceOutcome> {
    const record: SilenceRecord = { queryId, untilMs, byUser, createdAt: nowMs };
    const ttl = ttlOf(record);
    const args = [JSON.stringify(record), ttl, untilMs, untilMs - nowMs, repeatWithinMs, nowMs];
    const inForce = (await SILENCE_UNLESS_REPEAT.run(this.redis, [this.keys.silence(queryId)], args)) as [string, number] | null;
    if (inForce) return { changed: false, record: silenceInEffect(queryId, inForce[0], Number(inForce[1]), nowMs, 'as-written').record ?? record };
    await this.index(record);
    return { changed: true, record };
  }

  /**
   * Ends a silence; resolves to whether one was in force at `nowMs` (its key is removed either way:
   * one whose end passed while its key lived silenced nothing).
   */
  async unsilence(queryId: string, nowMs: number = Date.now()): Promise<boolean> {
    const taken = (await TAKE_SILENCE.run(this.redis, [this.keys.silence(queryId)], [])) as [string, number] | null;
    await this.redis.zrem(this.keys.silences(), queryId);
    return taken !== null && silenceInEffect(queryId, taken[0], Number(taken[1]), nowMs).record !== null;
  }

  private async index(record: SilenceRecord): Promise<void> {
    await this.redis.multi().zadd(this.keys.silences(), record.untilMs, record.queryId).zremrangebyscore(this.keys.silences(), '-inf', record.createdAt).exec();
  }

  /** The silence in effect, its end as written when it is a time (`silenceInEffect`, `as-written`). */
  async get(queryId: string, nowMs: number = Date.now()): Promise<SilenceRecord | null> {
    return (await this.read(queryId, nowMs, 'as-written')).record;
  }

  /**
   * The silence in effect with what was wrong with its record, for the caller to log; by default its
   * end as its key's expiry has it (`key-rules`: for holding alerts until it ends).
   */
  async read(queryId: string, nowMs: number = Date.now(), reading: SilenceEndReading = 'key-rules'): Promise<SilenceRead> {
    const key = this.keys.silence(queryId);
    // One key: the record and its expiry read together.
    const replies = await this.redis.multi().get(key).pttl(key).exec();
    const [text, pttl] = (replies ?? []).map(([err, value]) => (err ? null : value)) as [string | null, number | null];
    if (!text) return { record: null, problem: null };
    return silenceInEffect(queryId, text, Number(pttl ?? -1), nowMs, reading);
  }

  async isSilenced(queryId: string): Promise<boolean> {
    return (await this.get(queryId)) !== null;
  }

  /** Active silences, soonest to end first. */
  async list(nowMs: number = Date.now()): Promise<SilenceRecord[]> {
    await this.redis.zremrangebyscore(this.keys.silences(), '-inf', nowMs);
    const ids = await this.redis.zrange(this.keys.silences(), 0, -1);
    const records = await Promise.all(ids.map((id) => this.get(id, nowMs)));
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
