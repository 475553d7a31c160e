/**
 * Notification intents (the outbox) of each query: written atomically with the changes that cause
 * them (query-state-store.ts, the detect commit and `commitChanges`), read and removed here. The
 * notify side turns them into jobs with deterministic ids, so draining twice never notifies twice.
 */
import type { Redis } from 'ioredis';
import type { StoreKeys } from './keys.js';
import type { IncidentChange } from '../diagnosis/types.js';
import { parseIncidentId } from './incident-id.js';
import { LuaScript } from './script.js';

/** A notification intent: render incident `incidentId` at least at `version`. */
export interface OutboxEntry {
  queryId: string;
  incidentId: string;
  version: number;
  /** Null for an entry whose change was lost: notify renders the record's latest version anyway. */
  change: IncidentChange['type'] | null;
}

const CHANGES: readonly string[] = ['opened', 'updated', 'resolved'];

/**
 * An outbox entry (`incident|version|change`) as the commits write it. The id and the version are
 * what notify needs (it renders the record's latest version), so an entry whose change is missing
 * or unknown is still an intent, with `change` null. Null when the id or the version is unusable.
 */
export function parseOutboxEntry(queryId: string, raw: string): OutboxEntry | null {
  const [incidentId = '', versionText = '', change, ...rest] = raw.split('|');
  const version = Number(versionText);
  if (rest.length > 0 || !parseIncidentId(incidentId) || versionText === '' || !Number.isSafeInteger(version) || version < 0) return null;
  return { queryId, incidentId, version, change: change !== undefined && CHANGES.includes(change) ? (change as IncidentChange['type']) : null };
}

/** Told about outbox entries that are not what the commits write: salvaged (still notified) or dropped. */
export type OutboxEntryReport = (report: { queryId: string; raw: string; outcome: 'salvaged' | 'dropped' }) => void;

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
   * An entry without its change is published too (`change` null); one naming no incident and
   * version is removed with the others. Both are told to `report`. Returns the count published.
   */
  async drain(queryId: string, publish: (entries: OutboxEntry[]) => Promise<unknown>, report?: OutboxEntryReport): Promise<number> {
    let total = 0;
    for (let round = 0; round < DRAIN_ROUNDS; round++) {
      const { raw, entries } = await this.peek(queryId, DRAIN_PAGE);
      if (raw.length === 0) break;
      if (entries.length > 0) await publish(entries);
      const removed = await this.removeDrained(queryId, raw);
      // Reported once the removal is done (a concurrent drain that removed them first reports them).
      if (removed > 0 && report) reportIrregular(queryId, raw, report);
      total += entries.length;
    }
    return total;
  }
}

function reportIrregular(queryId: string, raw: string[], report: OutboxEntryReport): void {
  for (const text of raw) {
    const entry = parseOutboxEntry(queryId, text);
    if (entry?.change) continue;
    try {
      report({ queryId, raw: text, outcome: entry ? 'salvaged' : 'dropped' });
    } catch {
      // A report never fails the drain.
    }
  }
}
