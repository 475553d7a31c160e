/**
 * Notification intents become notify jobs: one per incident version, with a deterministic id, so a
 * retry, a replay or two drains racing never notify twice. Detect, the signal step of poll and
 * source health all commit intents to the store's outbox and drain it through here.
 */
import type { RedisStore } from '../src/store/index.js';
import type { Logger } from '../src/observability/logger.js';
import type { OutboxEntry, OutboxEntryReport } from '../src/store/outbox-store.js';
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
 * make that harmless. Entries not as the commits write them are logged to `logger`, never dropped
 * silently (the processors pass theirs).
 */
export function drainOutbox(store: RedisStore, queues: PipelineQueues, queryId: string, nowMs: number, logger?: Logger): Promise<number> {
  return store.outbox.drain(queryId, (entries) => queues.notify.addBulk(entries.map((e) => notifyJobFor(e, nowMs))), logger ? irregularEntryLog(logger) : undefined);
}

function irregularEntryLog(logger: Logger): OutboxEntryReport {
  return ({ queryId, raw, outcome }) => {
    const entry = raw.slice(0, 300);
    if (outcome === 'salvaged') logger.warn({ queryId, entry }, "outbox entry without its change: notifying the incident's latest record");
    else logger.error({ queryId, entry }, 'outbox entry dropped: it names no incident and version to notify');
  };
}
