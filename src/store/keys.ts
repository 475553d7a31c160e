/**
 * Redis key layout. Everything lives under one configurable prefix. Keys that belong to one query
 * share the hash tag `{q:<queryId>}` and keys of one Slack channel share `{c:<channel>}`, so the
 * multi-key scripts (detect commit, storm grouping) touch a single slot on Redis Cluster.
 * Global indexes (registry, open incidents, silences, routing) are single keys written by
 * separate, idempotent commands, never in one MULTI with a per-query key (test/store/slot-safety.test.ts).
 */

/** Characters that would break a hash tag or a key separator are percent-encoded. */
function tagSafe(id: string): string {
  return id.replace(/[{}%:\s]/g, (ch) => `%${ch.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

export class StoreKeys {
  constructor(readonly prefix: string) {}

  // Per query (slot {q:id})
  queryTag(queryId: string): string {
    return `${this.prefix}:{q:${tagSafe(queryId)}}`;
  }
  streamMeta(queryId: string): string {
    return `${this.queryTag(queryId)}:meta`;
  }
  trackerState(queryId: string): string {
    return `${this.queryTag(queryId)}:state`;
  }
  inbox(queryId: string): string {
    return `${this.queryTag(queryId)}:inbox`;
  }
  outbox(queryId: string): string {
    return `${this.queryTag(queryId)}:outbox`;
  }
  timeBehindHistory(queryId: string): string {
    return `${this.queryTag(queryId)}:tb`;
  }
  incident(queryId: string, incidentId: string): string {
    return `${this.queryTag(queryId)}:inc:${tagSafe(incidentId)}`;
  }
  queryIncidents(queryId: string): string {
    return `${this.queryTag(queryId)}:incs`;
  }
  silence(queryId: string): string {
    return `${this.queryTag(queryId)}:silence`;
  }
  /** Every key of one query, for cleanup and memory accounting (incident keys are listed separately). */
  queryFixedKeys(queryId: string): string[] {
    return [
      this.streamMeta(queryId),
      this.trackerState(queryId),
      this.inbox(queryId),
      this.outbox(queryId),
      this.timeBehindHistory(queryId),
      this.queryIncidents(queryId),
      this.silence(queryId),
    ];
  }

  // Per channel (slot {c:channel})
  channelTag(channel: string): string {
    return `${this.prefix}:{c:${tagSafe(channel)}}`;
  }
  channelIncidents(channel: string): string {
    return `${this.channelTag(channel)}:incs24h`;
  }
  channelOpenings(channel: string): string {
    return `${this.channelTag(channel)}:openings`;
  }
  channelActiveGroup(channel: string): string {
    return `${this.channelTag(channel)}:group`;
  }
  group(channel: string, groupId: string): string {
    return `${this.channelTag(channel)}:grp:${tagSafe(groupId)}`;
  }
  channelPostSlot(channel: string): string {
    return `${this.channelTag(channel)}:postslot`;
  }
  messageClaim(channel: string, messageKey: string): string {
    return `${this.channelTag(channel)}:claim:${tagSafe(messageKey)}`;
  }
  messageRef(channel: string, messageKey: string): string {
    return `${this.channelTag(channel)}:msg:${tagSafe(messageKey)}`;
  }

  // Global single keys
  streams(): string {
    return `${this.prefix}:streams`;
  }
  openIncidents(): string {
    return `${this.prefix}:incidents:open`;
  }
  silences(): string {
    return `${this.prefix}:silences`;
  }
  /** Open incidents kept quiet by a silence, scored by when it ends (so they alert after it). */
  silencedHeld(): string {
    return `${this.prefix}:silences:held`;
  }
  routes(): string {
    return `${this.prefix}:routes`;
  }
  channelBindings(): string {
    return `${this.prefix}:channel-bindings`;
  }
  /** Job id → whether it had an active run at the last job-runs poll. */
  jobLiveness(): string {
    return `${this.prefix}:jobs:liveness`;
  }
  /** Queries with progress detect has not run yet, one sorted set per shard (pending-detect-store.ts). */
  pendingDetect(shard: number): string {
    return `${this.prefix}:detect:pending:${shard}`;
  }
  sourceCursor(sourceId: string): string {
    return `${this.prefix}:cursor:${tagSafe(sourceId)}`;
  }
  /** The last file shared in a Slack channel (kept as it always was: not hash-tagged). */
  lastSharedFile(channel: string): string {
    return `${this.prefix}:slack:last-file:${channel}`;
  }
  /** Until when a Slack Web API method is rate limited for the workspace (its Tier budget spent). */
  slackMethodCooldown(method: string): string {
    return `${this.prefix}:slack:cooldown:${tagSafe(method)}`;
  }
  lock(name: string): string {
    return `${this.prefix}:lock:${tagSafe(name)}`;
  }
}
