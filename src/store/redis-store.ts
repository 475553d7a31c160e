/**
 * The Redis store: the registry, per-query detect state, the outbox, incidents, silences, routing,
 * history and the rest, one sub-store each. Every key is under `prefix`; per-query keys carry the
 * hash tag `{q:<id>}` (see keys.ts). Callers reach data through the sub-stores only (a stream is
 * `store.streams.get(id)`), never through the Redis client, which stays inside the store.
 */
import { DEFAULTS } from '../config/defaults.js';
import type { Cluster, Redis } from 'ioredis';
import { HistoryStore } from './history-store.js';
import { IncidentStore } from './incident-store.js';
import { StoreKeys } from './keys.js';
import { QueryStateStore, type QueryStateOptions } from './query-state-store.js';
import { RoutingStore } from './routing-store.js';
import { SilenceStore } from './silence-store.js';
import { StreamRegistry } from './stream-registry.js';
import { StormStore, type StormOptions } from './storm-store.js';
import { JobLivenessStore, type JobLivenessOptions } from './job-liveness-store.js';
import { SourceHealthStore } from './source-health-store.js';
import { PendingDetectStore } from './pending-detect-store.js';
import { CursorStore } from './cursor-store.js';
import { OnceMarkers } from './once-markers.js';
import { OutboxStore } from './outbox-store.js';
import { SharedFileStore } from './shared-file-store.js';

export interface RedisStoreOptions extends QueryStateOptions {
  /** Alert-storm grouping. @defaultValue window 30 s, threshold 2 */
  storm?: StormOptions;
  /** An ioredis client (the caller owns its lifecycle). */
  redis: Redis;
  /** Prefix of every key. @defaultValue 'sd' */
  prefix?: string;
  /** Shards of the pending-detect sets (detect jobs that can run at once for one poll). @defaultValue 32 */
  detectShards?: number;
  /** Job liveness answers. @defaultValue kept 1 hour after their poll */
  jobLiveness?: JobLivenessOptions;
}

export class RedisStore {
  private readonly redis: Redis;
  readonly keys: StoreKeys;
  readonly streams: StreamRegistry;
  readonly queries: QueryStateStore;
  /** Notification intents per query, written with the changes that cause them. */
  readonly outbox: OutboxStore;
  /** Each progress source's cursor between polls. */
  readonly cursors: CursorStore;
  /** The last file shared in each Slack channel, for `/stream diagnose`. */
  readonly sharedFiles: SharedFileStore;
  /** At-most-once markers for side effects outside Redis (a digest chart upload). */
  readonly markers: OnceMarkers;
  readonly incidents: IncidentStore;
  readonly silences: SilenceStore;
  readonly routing: RoutingStore;
  readonly history: HistoryStore;
  readonly storms: StormStore;
  readonly jobs: JobLivenessStore;
  /** Per progress source: last successful read, current failure streak, its health incident. */
  readonly sources: SourceHealthStore;
  /** Queries with new progress for detect, by shard (one detect job per shard). */
  readonly pendingDetect: PendingDetectStore;

  constructor(options: RedisStoreOptions) {
    this.redis = options.redis;
    this.keys = new StoreKeys(options.prefix ?? DEFAULTS.prefix);
    this.streams = new StreamRegistry(this.redis, this.keys);
    this.queries = new QueryStateStore(this.redis, this.keys, options);
    this.outbox = new OutboxStore(this.redis, this.keys);
    this.cursors = new CursorStore(this.redis, this.keys);
    this.sharedFiles = new SharedFileStore(this.redis, this.keys);
    this.markers = new OnceMarkers(this.redis, this.keys);
    this.incidents = new IncidentStore(this.redis, this.keys);
    this.silences = new SilenceStore(this.redis, this.keys);
    this.routing = new RoutingStore(this.redis, this.keys);
    this.history = new HistoryStore(this.redis, this.keys);
    this.storms = new StormStore(this.redis, this.keys, options.storm);
    this.jobs = new JobLivenessStore(this.redis, this.keys, options.jobLiveness);
    this.sources = new SourceHealthStore(this.redis, this.keys);
    this.pendingDetect = new PendingDetectStore(this.redis, this.keys, options.detectShards);
  }

  /**
   * Bytes Redis uses for one query (MEMORY USAGE over its keys, incident records included).
   * Used by tests and `bench:pipeline` to hold the per-query bound.
   */
  async memoryPerQuery(queryId: string): Promise<number> {
    const incidentIds = await this.redis.smembers(this.keys.queryIncidents(queryId));
    const keys = [...this.keys.queryFixedKeys(queryId), ...incidentIds.map((id) => this.keys.incident(queryId, id))];
    let total = 0;
    for (const key of keys) {
      const bytes = (await this.redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) as number | null;
      total += bytes ?? 0;
    }
    return total;
  }

  /**
   * Deletes every key under this store's prefix (tests and resets; SCAN, never FLUSHDB). On a Redis
   * Cluster each master is scanned and each key unlinked alone (one UNLINK over keys of several slots
   * is CROSSSLOT).
   */
  async deleteEverything(): Promise<number> {
    const cluster = (this.redis as unknown as { isCluster?: boolean }).isCluster ? (this.redis as unknown as Cluster) : null;
    let deleted = 0;
    const pattern = `${this.keys.prefix}:*`;
    // A cluster client learns its nodes on connecting: one command first, so none is missed.
    if (cluster) await cluster.ping();
    for (const node of cluster ? cluster.nodes('master') : [this.redis]) {
      let cursor = '0';
      for (let rounds = 0; rounds < 100_000; rounds++) {
        const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        if (batch.length > 0) {
          deleted += cluster
            ? (await Promise.all(batch.map((key) => this.redis.unlink(key)))).reduce((a, b) => a + b, 0)
            : await this.redis.unlink(...batch);
        }
        cursor = next;
        if (cursor === '0') break;
      }
    }
    return deleted;
  }
}
