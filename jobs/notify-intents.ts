/**
 * Notification intents become notify jobs: one per incident version, with a deterministic id, so a
 * retry, a replay or two drains racing never notify twice. Detect, the signal step of poll and
 * source health all commit intents to the store's outbox and drain it through here.
 */
import type { RedisStore } from '../src/store/index.js';
import type { OutboxEntry } from '../src/store/outbox-store.js';
import { safeJobId } from './job-ids.js';
import type { NotifyJobData } from './queue-names.js';
import type { PipelineQueues } from './queues.js';

export function notifyJobFor(entry: OutboxEntry, committedAt: number): { name: string; data: NotifyJobData; opts: { jobId: string } } {
  return {
    name: 'incident',
    data: { kind: 'incident', queryId: entry.queryId, incidentId: entry.incidentId, version: entry.version, change: entry.change, committedAt },
    opts: { jobId: safeJobId('notify', entry.incidentId, `v${entry.version}`) },
  };
}

/**
 * Enqueues a query's pending intents as notify jobs and removes exactly the entries enqueued
 * (`OutboxStore.drain`). Enqueue before remove: a crash in between re-enqueues, and the job ids
 * make that harmless.
 */
export function drainOutbox(store: RedisStore, queues: PipelineQueues, queryId: string, nowMs: number): Promise<number> {
  return store.outbox.drain(queryId, (entries) => queues.notify.addBulk(entries.map((e) => notifyJobFor(e, nowMs))));
}
