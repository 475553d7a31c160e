/**
 * Notification intents (the outbox) of each query: written atomically with the changes that cause
 * them (query-state-store.ts, the detect commit and `commitChanges`), read and removed here. The
 * notify side turns them into jobs with deterministic ids, so draining twice never notifies twice.
 */
import type { Redis } from 'ioredis';
import type { StoreKeys } from './keys.js';
import type { IncidentChange } from '../diagnosis/types.js';
import { LuaScript } from './script.js';

/** A notification intent: render incident `incidentId` at least at `version`. */
export interface OutboxEntry {
  queryId: string;
  incidentId: string;
  version: number;
  change: IncidentChange['type'];
}

/** An outbox entry (`incident|version|change`) as the commits write it; null for anything else. */
export function parseOutboxEntry(queryId: string, raw: string): OutboxEntry | null {
  const parts = raw.split('|');
  if (parts.length !== 3) return null;
  const version = Number(parts[1]);
  const change = parts[2] as OutboxEntry['change'];
  if (!Number.isFinite(version) || !['opened', 'updated', 'resolved'].includes(change)) return null;
  return { queryId, incidentId: parts[0]!, version, change };
}

// Removes one occurrence of each drained entry (unique per intent; a duplicate would be the same
// intent, whose notify job id is the same).
const REMOVE_DRAINED = new LuaScript(`
local n = 0
for i = 1, #ARGV do n = n + redis.call('LREM', KEYS[1], 1, ARGV[i]) end
return n
`);

/** Entries read per round of a drain, and rounds per drain (a backlog beyond is left for the next). */
const DRAIN_PAGE = 100;
const DRAIN_ROUNDS = 20;

export class OutboxStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
  ) {}

  /** Pending notification intents of a query (oldest first). */
  async read(queryId: string, max = 100): Promise<OutboxEntry[]> {
    return (await this.peek(queryId, max)).entries;
  }

  /** Removes the first `count` intents (tools and tests; draining uses `removeDrained`). */
  async ack(queryId: string, count: number): Promise<void> {
    if (count > 0) await this.redis.ltrim(this.keys.outbox(queryId), count, -1);
  }

  /** The first `max` outbox entries as stored (`raw`) and those readable as intents (`entries`). */
  async peek(queryId: string, max = 100): Promise<{ raw: string[]; entries: OutboxEntry[] }> {
    const raw = await this.redis.lrange(this.keys.outbox(queryId), 0, max - 1);
    return { raw, entries: raw.map((r) => parseOutboxEntry(queryId, r)).filter((e): e is OutboxEntry => e !== null) };
  }

  /**
   * Removes exactly the entries a drain read (one script on the outbox's slot), once their notify
   * jobs are enqueued. Entries committed meanwhile, or already removed by a concurrent drain, are
   * left alone: nothing unread is ever dropped (a count-based trim could drop what arrived between
   * the read and the trim).
   */
  async removeDrained(queryId: string, raw: string[]): Promise<number> {
    if (raw.length === 0) return 0;
    return Number(await REMOVE_DRAINED.run(this.redis, [this.keys.outbox(queryId)], raw));
  }

  /**
   * Hands a query's pending intents to `publish` page by page, then removes exactly the entries it
   * read, so a drain running concurrently, or intents committed meanwhile, are never dropped.
   * Publish before remove: a crash in between publishes again, which the caller makes harmless.
   * Unreadable entries are removed with the readable ones they were read with. Returns the count published.
   */
  async drain(queryId: string, publish: (entries: OutboxEntry[]) => Promise<unknown>): Promise<number> {
    let total = 0;
    for (let round = 0; round < DRAIN_ROUNDS; round++) {
      const { raw, entries } = await this.peek(queryId, DRAIN_PAGE);
      if (raw.length === 0) break;
      if (entries.length > 0) await publish(entries);
      await this.removeDrained(queryId, raw);
      total += entries.length;
    }
    return total;
  }
}
