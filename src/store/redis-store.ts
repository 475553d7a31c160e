/**
 * The Redis store: one facade over the registry, per-query detect state, incidents, silences,
 * routing and history. Every key is under `prefix`; per-query keys carry the hash tag `{q:<id>}`
 * (see keys.ts). The sub-stores are public for callers that want the full API; the most used
 * operations are also methods here.
 */
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
import type {
  IncidentRecord,
  RouteScope,
  RoutingDefaults,
  SilenceRecord,
  StreamInfo,
  StreamRecord,
  TimeBehindSample,
} from './types.js';

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
  readonly redis: Redis;
  readonly keys: StoreKeys;
  readonly streams: StreamRegistry;
  readonly queries: QueryStateStore;
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
    this.keys = new StoreKeys(options.prefix ?? 'sd');
    this.streams = new StreamRegistry(this.redis, this.keys);
    this.queries = new QueryStateStore(this.redis, this.keys, options);
    this.incidents = new IncidentStore(this.redis, this.keys);
    this.silences = new SilenceStore(this.redis, this.keys);
    this.routing = new RoutingStore(this.redis, this.keys);
    this.history = new HistoryStore(this.redis, this.keys);
    this.storms = new StormStore(this.redis, this.keys, options.storm);
    this.jobs = new JobLivenessStore(this.redis, this.keys, options.jobLiveness);
    this.sources = new SourceHealthStore(this.redis, this.keys);
    this.pendingDetect = new PendingDetectStore(this.redis, this.keys, options.detectShards);
  }

  // Registry
  registerStream(info: StreamInfo): Promise<void> {
    return this.streams.upsert(info);
  }
  getStream(queryId: string): Promise<StreamRecord | null> {
    return this.streams.get(queryId);
  }
  listStreams(): Promise<StreamRecord[]> {
    return this.streams.list();
  }

  // Incidents
  getIncident(incidentId: string): Promise<IncidentRecord | null> {
    return this.incidents.get(incidentId);
  }
  listOpenIncidents(): Promise<IncidentRecord[]> {
    return this.incidents.listOpen();
  }
  acknowledge(incidentId: string, userId: string): Promise<IncidentRecord | null> {
    return this.incidents.acknowledge(incidentId, userId);
  }

  // Silences
  silence(queryId: string, untilMs: number, byUser: string): Promise<SilenceRecord> {
    return this.silences.silence(queryId, untilMs, byUser);
  }
  unsilence(queryId: string): Promise<boolean> {
    return this.silences.unsilence(queryId);
  }
  isSilenced(queryId: string): Promise<boolean> {
    return this.silences.isSilenced(queryId);
  }
  listSilences(): Promise<SilenceRecord[]> {
    return this.silences.list();
  }

  // Routing
  setRoute(scope: RouteScope, id: string, channel: string): Promise<void> {
    return this.routing.setRoute(scope, id, channel);
  }
  resolveChannel(stream: Pick<StreamInfo, 'queryId' | 'jobId' | 'pipelineId'>, defaults?: RoutingDefaults): Promise<string | null> {
    return this.routing.resolve(stream, defaults);
  }
  bindChannel(channel: string, queryId: string): Promise<void> {
    return this.routing.bindChannel(channel, queryId);
  }
  getChannelBinding(channel: string): Promise<string | null> {
    return this.routing.getChannelBinding(channel);
  }

  // History
  timeBehindHistory(queryId: string, sinceMs?: number): Promise<TimeBehindSample[]> {
    return this.history.timeBehind(queryId, sinceMs);
  }

  // Source cursors (poll)
  async getCursor(sourceId: string): Promise<string | null> {
    return this.redis.get(this.keys.sourceCursor(sourceId));
  }
  async setCursor(sourceId: string, cursor: string | null): Promise<void> {
    if (cursor === null) await this.redis.del(this.keys.sourceCursor(sourceId));
    else await this.redis.set(this.keys.sourceCursor(sourceId), cursor);
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
