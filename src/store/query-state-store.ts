/**
 * Per-query working set of the detect step: the progress inbox (bounded, sequence-numbered), the
 * engine's serialized TrackerState with a version for optimistic concurrency, and the commit that
 * saves everything a detect run produced in one atomic script: state, registry snapshot,
 * time-behind sample, incident records and notification intents (the outbox). A worker that dies
 * anywhere before the commit leaves no trace; one that dies after it leaves intents in the outbox
 * that the next run (or the sweep) enqueues.
 */
import type { Redis } from 'ioredis';
import type { Health, IncidentChange } from '../diagnosis/types.js';
import type { Progress } from '../progress/types.js';
import { StateConflictError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { LuaScript } from './script.js';
import { decodeStream } from './stream-registry.js';
import type { StreamRecord, StreamSnapshot } from './types.js';
import { incidentIdOf } from './incident-id.js';
import { decodeStoredProgress, encodeProgressJson, InboxEntryError, progressJson } from './inbox-codec.js';
import type { OutboxEntry } from './outbox-store.js';
import { decodeState, encodeState } from './state-codec.js';
import { stageCpu } from '../util/stage-cpu.js';

export interface QueryStateOptions {
  /**
   * Most progress entries kept in one query's inbox; older ones are dropped (and counted). The inbox
   * is empty in steady state (detect drains it within a poll cycle); the bound only matters while
   * detect is down. 60 entries are 10 minutes at a 10 s trigger (the engine's window is 48 batches).
   * @defaultValue 60
   */
  inboxLimit?: number;
  /**
   * Most bytes of stored (compacted) entries in one query's inbox; oldest entries beyond it are
   * dropped (and counted) even below `inboxLimit`. Keeps the whole query under 64 KB of Redis in
   * the worst case: 24 KB engine state + meta, history and open incidents (~10 KB) + this.
   * The newest entry is always kept. Stateful Kafka progress with RocksDB metrics compacts to
   * about 0.5 KB (inbox-codec.ts), so 24 KB holds about 50 of them: the engine's 48-batch window.
   * @defaultValue 24576 (24 KB)
   */
  inboxMaxBytes?: number;
  /** Time-behind history bucket width. @defaultValue 15 minutes (96 buckets per day, a compact hash) */
  historyBucketMs?: number;
  /** How long history is kept. @defaultValue 24 hours */
  historyRetentionMs?: number;
  /** How long a resolved incident record is kept. @defaultValue 7 days */
  resolvedRetentionMs?: number;
}

export interface InboxEntry {
  seq: number;
  progress: Progress;
}

export interface DetectLoad {
  stream: StreamRecord | null;
  /** 0 when no state was ever saved. */
  stateVersion: number;
  /** null when none was saved or what was saved is not JSON (then `stateUnreadable`). */
  state: unknown;
  /** A state was saved but could not be decoded: detect starts afresh and says so. @defaultValue false */
  stateUnreadable?: boolean;
  /** A state was saved (a version is) but is gone or null: detect starts afresh and says so. @defaultValue false */
  stateMissing?: boolean;
  entries: InboxEntry[];
  /** Entries that could not be decoded or are no progress report (kept out of the engine, removed at commit). */
  corrupt: number;
  /** Those entries: sequence and what was wrong, for the log. @defaultValue [] */
  corruptEntries?: { seq: number; problem: string }[];
  /** Sequences of entries of an older shape, read with the parser's defaults. @defaultValue [] */
  filledEntries?: number[];
  /** Highest sequence read, corrupt entries included: pass it to the commit. */
  lastSeq: number;
  /** Notification intents left by an earlier run that never enqueued them. */
  outboxLength: number;
}

/** What one push into a query's inbox did. */
export interface PushOutcome {
  /** Old entries the count or byte bound dropped. */
  dropped: number;
  /** Reports that could not be encoded, left out (by their index in the pushed list). */
  unencodable: { index: number; error: unknown }[];
}

export interface DetectCommit {
  expectedVersion: number;
  state: unknown;
  /** Highest inbox sequence consumed; entries up to it are removed. */
  lastSeq: number;
  snapshot: StreamSnapshot | null;
  health: Health;
  name: string | null;
  lastRunId: string | null;
  lastBatchId: number | null;
  lastObservedAt: number | null;
  /** Time behind to record in the history, if known. */
  timeBehindSec: number | null;
  changes: IncidentChange[];
  nowMs: number;
  /** Progress events observed by this run (kept as a running count on the stream). @defaultValue 0 */
  observed?: number;
}

export interface DetectCommitResult {
  stateVersion: number;
  outbox: OutboxEntry[];
  /** Malformed stored values the commit repaired instead of failing on (the caller logs them). @defaultValue [] */
  repaired?: string[];
}

const PUSH = new LuaScript(`
-- KEYS[1] meta, KEYS[2] inbox ; ARGV[1] limit, ARGV[2] maxBytes, ARGV[3] '1' = only into an empty
-- inbox (else nothing is stored and -1 answered: the caller sends the entries compacted), ARGV[4..] payloads
if ARGV[3] == '1' and redis.call('LLEN', KEYS[2]) > 0 then return -1 end
local n = #ARGV - 3
local last = redis.call('HINCRBY', KEYS[1], 'inboxSeq', n)
local first = last - n + 1
for i = 1, n do
  redis.call('RPUSH', KEYS[2], tostring(first + i - 1) .. '|' .. ARGV[i + 3])
end
local len = redis.call('LLEN', KEYS[2])
local limit = tonumber(ARGV[1])
local maxBytes = tonumber(ARGV[2])
local dropped = 0
if len > limit then
  dropped = len - limit
end
-- byte bound: walk from the newest entry back, keep what fits (the newest always)
local entries = redis.call('LRANGE', KEYS[2], dropped, -1)
local bytes = 0
for i = #entries, 1, -1 do
  bytes = bytes + #entries[i]
  if bytes > maxBytes and i < #entries then
    dropped = dropped + i
    break
  end
end
if dropped > 0 then
  redis.call('LTRIM', KEYS[2], dropped, -1)
end
return dropped
`);

// A problem that came back or got worse must not look handled: a change that re-opens a resolved
// record (a relapse) or raises its severity from warning to critical (an escalation) clears its
// acknowledgement, in the same script as the change. Reads only (cjson under pcall: never fails);
// call it before the change's own writes. Shared by COMMIT and CHANGES.
const ACK_CLEARS = `
local function severityOf(json)
  if not json then return nil end
  local ok, v = pcall(cjson.decode, json)
  if ok and type(v) == 'table' then return v.severity end
  return nil
end
local function clearsAck(key, ctype, json)
  if ctype == 'resolved' then return false end
  local by = redis.call('HGET', key, 'acknowledgedBy')
  if not by or by == '' then return false end
  if redis.call('HGET', key, 'state') == 'resolved' then return true end
  return severityOf(json) == 'critical' and severityOf(redis.call('HGET', key, 'incident')) == 'warning'
end
`;

const COMMIT = new LuaScript(`${ACK_CLEARS}
-- KEYS: 1 meta, 2 state, 3 inbox, 4 history, 5 outbox, 6 queryIncidents, 7.. incident keys
-- ARGV: 1 expectedVersion, 2 stateJson, 3 lastSeq, 4 snapshotJson, 5 health, 6 name,
--       7 lastRunId, 8 lastBatchId, 9 lastObservedAt, 10 histBucket, 11 histValue, 12 histMinBucket,
--       13 nowMs, 14 resolvedTtlMs, 15 queryId, 16 nChanges, 17 observed, then 7 per change:
--       id, kind, type, incidentJson, openedAtMs, resolvedAtMs, queryName
-- Redis keeps what a script wrote before an error, so every read and check comes first and
-- nothing after the first write can fail: a malformed stored value is repaired (and named in the
-- reply), a key of the wrong type refuses the whole commit.
local function whole(v) return v ~= nil and v ~= false and string.match(v, '^%d+$') ~= nil and #v <= 15 end
local want = {'hash', 'string', 'list', 'hash', 'list', 'set'}
local repaired = {}
local dropHistory = false
for i = 1, #KEYS do
  local t = redis.call('TYPE', KEYS[i])['ok']
  local w = want[i] or 'hash'
  if t ~= 'none' and t ~= w and i ~= 2 then
    if i ~= 4 then return redis.error_reply('streamdoctor_store_corrupt: ' .. KEYS[i] .. ' is a ' .. t .. ', not a ' .. w) end
    dropHistory = true
    table.insert(repaired, 'history was a ' .. t .. ': replaced')
  end
end
local rawVersion = redis.call('HGET', KEYS[1], 'stateVersion')
local current = 0
if whole(rawVersion) then current = tonumber(rawVersion)
elseif rawVersion then table.insert(repaired, 'stateVersion "' .. rawVersion .. '" read as 0') end
if current ~= tonumber(ARGV[1]) then
  return {-1, current}
end
local version = current + 1
local observed = tonumber(ARGV[17])
local observedSet = nil
local rawObserved = redis.call('HGET', KEYS[1], 'observed')
if rawObserved and not whole(rawObserved) then
  local n = tonumber(rawObserved)
  if not (n and n >= 0 and n < 1e15) then n = 0 end
  n = math.floor(n)
  observedSet = string.format('%d', n + observed)
  table.insert(repaired, 'observed "' .. rawObserved .. '" read as ' .. string.format('%d', n))
end
-- time-behind history: max per bucket, old buckets pruned (fields and values that are no number too)
local histSet, histDrop = false, {}
if ARGV[10] ~= '' then
  local cur = nil
  if not dropHistory then cur = redis.call('HGET', KEYS[4], ARGV[10]) end
  local curN = cur and tonumber(cur)
  if cur and not (curN and curN == curN) then
    table.insert(repaired, 'history bucket ' .. ARGV[10] .. ' "' .. cur .. '" replaced')
    curN = nil
  end
  histSet = (not curN) or curN < tonumber(ARGV[11])
  if not cur and not dropHistory then
    local minBucket = tonumber(ARGV[12])
    for _, field in ipairs(redis.call('HKEYS', KEYS[4])) do
      local f = tonumber(field)
      if not f then table.insert(repaired, 'history field "' .. field .. '" dropped') end
      if not f or f < minBucket then table.insert(histDrop, field) end
    end
  end
end
-- incident versions that are no whole number restart from what was notified
local n = tonumber(ARGV[16])
local versionFix = {}
for i = 1, n do
  local key = KEYS[6 + i]
  local rawV = redis.call('HGET', key, 'version')
  if rawV and not whole(rawV) and not versionFix[key] then
    local notified = redis.call('HGET', key, 'notifiedVersion')
    versionFix[key] = whole(notified) and notified or '0'
    table.insert(repaired, ARGV[17 + (i - 1) * 7 + 1] .. ' version "' .. rawV .. '" read as ' .. versionFix[key])
  end
end

-- writes
redis.call('SET', KEYS[2], ARGV[2])
-- consume the inbox up to lastSeq
local lastSeq = tonumber(ARGV[3])
while true do
  local head = redis.call('LINDEX', KEYS[3], 0)
  if not head then break end
  local bar = string.find(head, '|', 1, true)
  local seq = tonumber(bar and string.sub(head, 1, bar - 1) or '0') or 0
  if seq > lastSeq then break end
  redis.call('LPOP', KEYS[3])
end
local meta = {'stateVersion', version, 'health', ARGV[5], 'updatedAt', ARGV[13], 'registered', '1'}
if ARGV[4] ~= '' then table.insert(meta, 'snapshot'); table.insert(meta, ARGV[4]) end
if ARGV[6] ~= '' then table.insert(meta, 'name'); table.insert(meta, ARGV[6]) end
if ARGV[7] ~= '' then table.insert(meta, 'lastRunId'); table.insert(meta, ARGV[7]) end
if ARGV[8] ~= '' then table.insert(meta, 'lastBatchId'); table.insert(meta, ARGV[8]) end
if ARGV[9] ~= '' then table.insert(meta, 'lastObservedAt'); table.insert(meta, ARGV[9]) end
if observedSet then table.insert(meta, 'observed'); table.insert(meta, observedSet) end
redis.call('HSET', KEYS[1], unpack(meta))
if not observedSet and observed > 0 then redis.call('HINCRBY', KEYS[1], 'observed', observed) end
if dropHistory then redis.call('DEL', KEYS[4]) end
if histSet then redis.call('HSET', KEYS[4], ARGV[10], ARGV[11]) end
if #histDrop > 0 then redis.call('HDEL', KEYS[4], unpack(histDrop)) end
-- incident records + outbox
local versions = {}
for i = 1, n do
  local b = 17 + (i - 1) * 7
  local key = KEYS[6 + i]
  local id, kind, ctype, json = ARGV[b + 1], ARGV[b + 2], ARGV[b + 3], ARGV[b + 4]
  local exists = redis.call('EXISTS', key) == 1
  local state = 'open'
  if ctype == 'resolved' then state = 'resolved' end
  local clearAck = exists and clearsAck(key, ctype, json)
  if not exists then
    redis.call('HSET', key, 'id', id, 'queryId', ARGV[15], 'kind', kind, 'openedAt', ARGV[b + 5],
      'version', 0, 'notifiedVersion', 0, 'acknowledgedBy', '', 'acknowledgedAt', '')
  elseif versionFix[key] then
    redis.call('HSET', key, 'version', versionFix[key])
    versionFix[key] = nil
  end
  redis.call('HSET', key, 'state', state, 'incident', json, 'queryName', ARGV[b + 7])
  if clearAck then redis.call('HSET', key, 'acknowledgedBy', '', 'acknowledgedAt', '') end
  if ctype == 'resolved' then
    redis.call('HSET', key, 'resolvedAt', ARGV[b + 6])
    redis.call('PEXPIRE', key, ARGV[14])
  else
    -- Open again (a relapse): no resolution time, and kept until it resolves.
    redis.call('HDEL', key, 'resolvedAt')
    redis.call('PERSIST', key)
  end
  local v = redis.call('HINCRBY', key, 'version', 1)
  redis.call('SADD', KEYS[6], id)
  redis.call('RPUSH', KEYS[5], id .. '|' .. v .. '|' .. ctype)
  table.insert(versions, v)
end
return {version, versions, repaired}
`);

// Incident records + outbox without touching tracker state (changes that do not come from progress:
// job runs and pipeline updates). KEYS: 1 outbox, 2 queryIncidents, 3.. incident keys.
// ARGV: 1 resolvedTtlMs, 2 queryId, 3 nChanges, then 7 per change as in COMMIT.
const CHANGES = new LuaScript(`${ACK_CLEARS}
local out = {}
local n = tonumber(ARGV[3])
for i = 1, n do
  local b = 3 + (i - 1) * 7
  local key = KEYS[2 + i]
  local id, kind, ctype, json = ARGV[b + 1], ARGV[b + 2], ARGV[b + 3], ARGV[b + 4]
  local clearAck = false
  if redis.call('EXISTS', key) == 0 then
    redis.call('HSET', key, 'id', id, 'queryId', ARGV[2], 'kind', kind, 'openedAt', ARGV[b + 5],
      'version', 0, 'notifiedVersion', 0, 'acknowledgedBy', '', 'acknowledgedAt', '')
  else
    clearAck = clearsAck(key, ctype, json)
  end
  local state = 'open'
  if ctype == 'resolved' then state = 'resolved' end
  redis.call('HSET', key, 'state', state, 'incident', json, 'queryName', ARGV[b + 7])
  if clearAck then redis.call('HSET', key, 'acknowledgedBy', '', 'acknowledgedAt', '') end
  if ctype == 'resolved' then
    redis.call('HSET', key, 'resolvedAt', ARGV[b + 6])
    redis.call('PEXPIRE', key, ARGV[1])
  else
    redis.call('HDEL', key, 'resolvedAt')
    redis.call('PERSIST', key)
  end
  local v = redis.call('HINCRBY', key, 'version', 1)
  redis.call('SADD', KEYS[2], id)
  redis.call('RPUSH', KEYS[1], id .. '|' .. v .. '|' .. ctype)
  table.insert(out, v)
end
return out
`);

// Everything a detect run reads, atomically (the state and its version agree). With ARGV[2] = '0'
// a query with nothing pending answers {0} without its state.
// KEYS: 1 meta, 2 state, 3 inbox, 4 outbox ; ARGV: 1 max inbox entries, 2 always ('1') or only when pending ('0')
const LOAD = new LuaScript(`
local pending = redis.call('LLEN', KEYS[3])
local outbox = redis.call('LLEN', KEYS[4])
if ARGV[2] ~= '1' and pending == 0 and outbox == 0 then return {0} end
return {1, redis.call('HGETALL', KEYS[1]), redis.call('GET', KEYS[2]), redis.call('LRANGE', KEYS[3], 0, tonumber(ARGV[1]) - 1), outbox}
`);

/** A state version as the commit writes it; anything else reads as 0 (and the commit repairs it). */
const WHOLE = /^\d{1,15}$/;

const BAR = 0x7c; // '|': the sequence number is ASCII digits before the first one

function parseSeq(raw: Buffer): number {
  const bar = raw.indexOf(BAR);
  const seq = bar > 0 ? Number(raw.subarray(0, bar).toString('latin1')) : NaN;
  return Number.isFinite(seq) ? seq : 0;
}

type ParsedEntry = InboxEntry & { filled: boolean } | { seq: number; problem: string };

function parseEntry(raw: Buffer): ParsedEntry {
  const bar = raw.indexOf(BAR);
  const seq = parseSeq(raw);
  if (bar <= 0 || !Number.isFinite(Number(raw.subarray(0, bar).toString('latin1')))) return { seq, problem: 'no sequence number' };
  try {
    return { seq, ...decodeStoredProgress(raw.subarray(bar + 1)) };
  } catch (err) {
    return { seq, problem: err instanceof InboxEntryError ? err.message : `unreadable: ${err instanceof Error ? err.message : String(err)}` };
  }
}


export class QueryStateStore {
  readonly inboxLimit: number;
  readonly inboxMaxBytes: number;
  readonly historyBucketMs: number;
  readonly historyRetentionMs: number;
  readonly resolvedRetentionMs: number;

  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
    options: QueryStateOptions = {},
  ) {
    this.inboxLimit = options.inboxLimit ?? 60;
    this.inboxMaxBytes = options.inboxMaxBytes ?? 24 * 1024;
    this.historyBucketMs = options.historyBucketMs ?? 15 * 60_000;
    this.historyRetentionMs = options.historyRetentionMs ?? 24 * 3_600_000;
    this.resolvedRetentionMs = options.resolvedRetentionMs ?? 7 * 24 * 3_600_000;
  }

  /**
   * Appends progress to a query's inbox (bounded and compacted, see inbox-codec.ts): each report
   * encoded on its own, so one that cannot be (`unencodable`) never keeps the others out. `dropped`
   * counts old entries the count or byte bound dropped (the engine then sees a gap, which is better
   * than unbounded memory when detect is down for long). A report pushed again (a poll retried before it
   * saved its cursor re-reads the same rows) is stored again: detect skips what it already observed.
   * Nothing is stored when every report is unencodable.
   */
  async push(queryId: string, progress: Progress[]): Promise<PushOutcome> {
    const unencodable: PushOutcome['unencodable'] = [];
    const reports: string[] = [];
    for (const [index, p] of progress.entries()) {
      try {
        reports.push(progressJson(p));
      } catch (error) {
        unencodable.push({ index, error });
      }
    }
    if (reports.length === 0) return { dropped: 0, unencodable };
    const keys = [this.keys.streamMeta(queryId), this.keys.inbox(queryId)];
    if (reports.length === 1) {
      // The steady state: one report into an empty inbox, which detect drains within the cycle.
      // Stored as plain JSON (compacting costs ~10x the JSON itself, and the entry lives a second);
      // refused when a backlog exists, so a byte-bounded inbox still holds compacted entries (a
      // plain one only at its head, the first one dropped by the bound).
      const dropped = Number(await PUSH.run(this.redis, keys, [this.inboxLimit, this.inboxMaxBytes, '1', reports[0]!]));
      if (dropped !== -1) return { dropped, unencodable };
    }
    const payloads = reports.map((json) => encodeProgressJson(json));
    return { dropped: Number(await PUSH.run(this.redis, keys, [this.inboxLimit, this.inboxMaxBytes, '0', ...payloads])), unencodable };
  }

  async inboxLength(queryId: string): Promise<number> {
    return this.redis.llen(this.keys.inbox(queryId));
  }

  /** Reads everything a detect run needs in one round trip (one read-only script on the query's slot). */
  async loadForDetect(queryId: string, maxEntries = 500): Promise<DetectLoad> {
    return (await this.loadIfPending(queryId, { maxEntries, always: true, snapshot: true }))!;
  }

  /**
   * As `loadForDetect`, but null when the query has nothing pending (empty inbox and outbox), without
   * reading its state: a group run skips queries another run already drained in one cheap call.
   * `always` loads regardless (a tick judges silence on state alone). The stream's snapshot is
   * decoded only when asked (`snapshot`): detect writes a new one and never reads it.
   */
  async loadIfPending(queryId: string, options: { maxEntries?: number; always?: boolean; snapshot?: boolean } = {}): Promise<DetectLoad | null> {
    const reply = (await LOAD.runBuffer(
      this.redis,
      [this.keys.streamMeta(queryId), this.keys.trackerState(queryId), this.keys.inbox(queryId), this.keys.outbox(queryId)],
      [options.maxEntries ?? 500, options.always ? '1' : '0'],
    )) as [number, Buffer[], Buffer | null, Buffer[], number] | [number];
    if (Number(reply[0]) === 0) return null;
    return stageCpu.sync('detect.load', () => this.decodeLoad(queryId, reply as [number, Buffer[], Buffer | null, Buffer[], number], options.snapshot === true));
  }

  private decodeLoad(queryId: string, reply: [number, Buffer[], Buffer | null, Buffer[], number], withSnapshot: boolean): DetectLoad {
    const [, flatMeta, stateBuf, rawEntries, outboxLength] = reply;
    const meta: Record<string, string> = {};
    for (let i = 0; i + 1 < flatMeta.length; i += 2) {
      const field = flatMeta[i]!.toString('utf8');
      if (withSnapshot || field !== 'snapshot') meta[field] = flatMeta[i + 1]!.toString('utf8');
    }
    let state: unknown = null;
    let stateUnreadable = false;
    if (stateBuf && stateBuf.length > 0) {
      try {
        state = decodeState(stateBuf);
      } catch {
        // Rebuilt from scratch rather than wedging the query; detect says so (and closes what it left open).
        stateUnreadable = true;
      }
    }
    // A commit wrote a version, so a state was saved: gone (evicted, emptied, null) is a lost state,
    // whose open incidents detect closes, not a new query's. The commit reads the version the same way.
    const versionText = meta.stateVersion;
    const stateVersion = versionText !== undefined && WHOLE.test(versionText) ? Number(versionText) : 0;
    const stateMissing = state === null && !stateUnreadable && versionText !== undefined && versionText !== '0';
    const entries: InboxEntry[] = [];
    const corruptEntries: { seq: number; problem: string }[] = [];
    const filledEntries: number[] = [];
    let maxSeq = 0;
    for (const raw of rawEntries) {
      const entry = parseEntry(raw);
      maxSeq = Math.max(maxSeq, entry.seq);
      if ('problem' in entry) corruptEntries.push(entry);
      else {
        entries.push({ seq: entry.seq, progress: entry.progress });
        if (entry.filled) filledEntries.push(entry.seq);
      }
    }
    return {
      stream: decodeStream(queryId, meta),
      stateVersion,
      state,
      ...(stateUnreadable ? { stateUnreadable } : {}),
      ...(stateMissing ? { stateMissing } : {}),
      entries,
      corrupt: corruptEntries.length,
      ...(corruptEntries.length > 0 ? { corruptEntries } : {}),
      ...(filledEntries.length > 0 ? { filledEntries } : {}),
      lastSeq: maxSeq,
      outboxLength: Number(outboxLength ?? 0),
    };
  }

  /**
   * Saves a detect run atomically. Throws StateConflictError when another run committed since
   * `loadForDetect` (the job retries on fresh state, so no progress is observed twice).
   */
  async commitDetect(queryId: string, commit: DetectCommit): Promise<DetectCommitResult> {
    const incidentKeys: string[] = [];
    const changeArgs: string[] = [];
    for (const change of commit.changes) {
      const id = incidentIdOf(queryId, change.incident);
      incidentKeys.push(this.keys.incident(queryId, id));
      const openedAtMs = Date.parse(change.incident.openedAt);
      const resolvedAtMs = change.incident.resolvedAt ? Date.parse(change.incident.resolvedAt) : commit.nowMs;
      changeArgs.push(
        id,
        change.incident.kind,
        change.type,
        JSON.stringify(change.incident),
        String(Number.isFinite(openedAtMs) ? openedAtMs : commit.nowMs),
        String(Number.isFinite(resolvedAtMs) ? resolvedAtMs : commit.nowMs),
        change.queryName ?? commit.name ?? '',
      );
    }
    let histBucket = '';
    let histValue = '';
    if (commit.timeBehindSec !== null && Number.isFinite(commit.timeBehindSec)) {
      const at = commit.lastObservedAt ?? commit.nowMs;
      histBucket = String(Math.floor(at / this.historyBucketMs) * this.historyBucketMs);
      histValue = String(Math.round(commit.timeBehindSec * 10) / 10);
    }
    const minBucket = String(commit.nowMs - this.historyRetentionMs - this.historyBucketMs);
    const result = (await COMMIT.run(
      this.redis,
      [
        this.keys.streamMeta(queryId),
        this.keys.trackerState(queryId),
        this.keys.inbox(queryId),
        this.keys.timeBehindHistory(queryId),
        this.keys.outbox(queryId),
        this.keys.queryIncidents(queryId),
        ...incidentKeys,
      ],
      [
        commit.expectedVersion,
        encodeState(commit.state),
        commit.lastSeq,
        commit.snapshot ? JSON.stringify(commit.snapshot) : '',
        commit.health,
        commit.name ?? '',
        commit.lastRunId ?? '',
        commit.lastBatchId === null ? '' : String(commit.lastBatchId),
        commit.lastObservedAt === null ? '' : String(commit.lastObservedAt),
        histBucket,
        histValue,
        minBucket,
        commit.nowMs,
        this.resolvedRetentionMs,
        queryId,
        commit.changes.length,
        commit.observed ?? 0,
        ...changeArgs,
      ],
    )) as [number, number | number[], string[]?];
    if (result[0] === -1) throw new StateConflictError(queryId, commit.expectedVersion, Number(result[1] ?? 0));
    const versions = result[1] as number[];
    const outbox = commit.changes.map((change, i) => ({
      queryId,
      incidentId: incidentIdOf(queryId, change.incident),
      version: Number(versions[i]),
      change: change.type,
    }));
    const repaired = result[2] ?? [];
    return { stateVersion: Number(result[0]), outbox, ...(repaired.length > 0 ? { repaired } : {}) };
  }

  /**
   * Records incident changes that do not come from the engine (job runs, pipeline updates):
   * incident records and notification intents, atomically, without touching tracker state.
   */
  async commitChanges(queryId: string, changes: IncidentChange[], nowMs: number = Date.now()): Promise<OutboxEntry[]> {
    if (changes.length === 0) return [];
    const keys: string[] = [this.keys.outbox(queryId), this.keys.queryIncidents(queryId)];
    const args: (string | number)[] = [this.resolvedRetentionMs, queryId, changes.length];
    for (const change of changes) {
      const id = incidentIdOf(queryId, change.incident);
      keys.push(this.keys.incident(queryId, id));
      const opened = Date.parse(change.incident.openedAt);
      const resolved = change.incident.resolvedAt ? Date.parse(change.incident.resolvedAt) : nowMs;
      args.push(id, change.incident.kind, change.type, JSON.stringify(change.incident), Number.isFinite(opened) ? opened : nowMs, Number.isFinite(resolved) ? resolved : nowMs, change.queryName ?? '');
    }
    const versions = (await CHANGES.run(this.redis, keys, args)) as number[];
    return changes.map((change, i) => ({ queryId, incidentId: incidentIdOf(queryId, change.incident), version: Number(versions[i]), change: change.type }));
  }

  /** Raw tracker state (for tools and tests). */
  async getTrackerState(queryId: string): Promise<{ version: number; state: unknown } | null> {
    const [version, text] = await Promise.all([
      this.redis.hget(this.keys.streamMeta(queryId), 'stateVersion'),
      this.redis.get(this.keys.trackerState(queryId)),
    ]);
    if (!text) return null;
    return { version: Number(version ?? 0), state: decodeState(text) };
  }
}
