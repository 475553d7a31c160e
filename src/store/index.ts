/** The Redis store: see redis-store.ts for the facade and keys.ts for the layout. */
export { RedisStore, type RedisStoreOptions } from './redis-store.js';
export { StoreKeys } from './keys.js';
export { StreamRegistry, decodeStream } from './stream-registry.js';
export {
  QueryStateStore,
  type QueryStateOptions,
  type InboxEntry,
  type DetectLoad,
  type DetectCommit,
  type DetectCommitResult,
} from './query-state-store.js';
export { OutboxStore, parseOutboxEntry, type OutboxEntry } from './outbox-store.js';
export { CursorStore } from './cursor-store.js';
export { SharedFileStore, type SharedFileRef } from './shared-file-store.js';
export { OnceMarkers } from './once-markers.js';
export { IncidentStore, decodeIncident } from './incident-store.js';
export { SilenceStore } from './silence-store.js';
export { RoutingStore, resolveRoute } from './routing-store.js';
export { HistoryStore } from './history-store.js';
export { incidentIdOf, parseIncidentId } from './incident-id.js';
export { StoreError, StateConflictError, type StoreErrorCode } from './errors.js';
export { LuaScript } from './script.js';
export type * from './types.js';
export { StormStore, type StormOptions, type StormDecision } from './storm-store.js';
export { JobLivenessStore, type JobLiveness, type JobLivenessOptions } from './job-liveness-store.js';
export { PendingDetectStore } from './pending-detect-store.js';
export { SourceHealthStore, sourceStreamId, type SourceHealth } from './source-health-store.js';
