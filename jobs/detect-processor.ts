/**
 * The detect job: one query. Loads the tracker state and the inbox, feeds the engine the progress
 * it has not seen (in order, duplicates skipped), ticks at now, and commits state, snapshot,
 * history, incident records and notification intents in one atomic step. Then it turns the
 * intents into notify jobs with deterministic ids, so a retry or a replay never notifies twice.
 */
import type { Job } from 'bullmq';
import type { IncidentChange } from '../src/diagnosis/types.js';
import type { Logger } from '../src/observability/logger.js';
import type { PipelineMetrics } from '../src/observability/metrics.js';
import type { Progress } from '../src/progress/types.js';
import type { RedisStore } from '../src/store/index.js';
import type { OutboxEntry } from '../src/store/query-state-store.js';
import { safeJobId } from './job-ids.js';
import type { DetectJobData, NotifyJobData } from './queue-names.js';
import type { PipelineQueues } from './queues.js';
import { hostIsDown } from './signal-incidents.js';
import type { TrackerFactory, TrackerLike } from './tracker-factory.js';
import { stageCpu } from '../src/util/stage-cpu.js';

export interface DetectDeps {
  store: RedisStore;
  queues: PipelineQueues;
  trackers: TrackerFactory;
  metrics: PipelineMetrics;
  logger: Logger;
  /** Clock. @defaultValue Date.now */
  now?: () => number;
}

export interface DetectOutcome {
  observed: number;
  duplicates: number;
  changes: number;
}

/** Whether `p` was already observed, given the last observed run/batch/time. */
export function alreadyObserved(p: Progress, last: { runId: string | null; batchId: number | null; atMs: number | null }): boolean {
  if (p.batchId !== null && last.batchId !== null && p.runId === last.runId) return p.batchId <= last.batchId;
  // Different run (restart) or no batch ids: order by trigger time.
  return last.atMs !== null && p.timestampMs <= last.atMs && (p.batchId === null || last.batchId === null || p.batchId <= last.batchId);
}

export function notifyJobFor(entry: OutboxEntry, committedAt: number): { name: string; data: NotifyJobData; opts: { jobId: string } } {
  return {
    name: 'incident',
    data: { kind: 'incident', queryId: entry.queryId, incidentId: entry.incidentId, version: entry.version, change: entry.change, committedAt },
    opts: { jobId: safeJobId('notify', entry.incidentId, `v${entry.version}`) },
  };
}

/**
 * Enqueues a query's pending notification intents, then removes exactly the entries it read (one
 * script), so a drain running concurrently, or intents committed meanwhile, are never dropped.
 * Enqueue before remove: a crash in between re-enqueues, and the job ids make that harmless.
 */
export async function drainOutbox(store: RedisStore, queues: PipelineQueues, queryId: string, nowMs: number): Promise<number> {
  let total = 0;
  for (let round = 0; round < 20; round++) {
    const { raw, entries } = await store.queries.peekOutbox(queryId, 100);
    if (raw.length === 0) break;
    if (entries.length > 0) await queues.notify.addBulk(entries.map((e) => notifyJobFor(e, nowMs)));
    // Unreadable entries are removed with the readable ones they were read with.
    await store.queries.removeDrained(queryId, raw);
    total += entries.length;
  }
  return total;
}

export function createDetectProcessor(deps: DetectDeps) {
  const now = deps.now ?? Date.now;
  return async function processDetect(job: Job<DetectJobData>): Promise<DetectOutcome> {
    const { queryId } = job.data;
    const load = await deps.store.queries.loadForDetect(queryId);
    const name = load.stream?.name ?? null;
    const cpuLoad = stageCpu.enabled ? process.cpuUsage() : null;
    let tracker: TrackerLike;
    if (load.state) {
      try {
        tracker = deps.trackers.restore(load.state);
      } catch (err) {
        deps.logger.warn({ err, queryId }, 'tracker state unreadable; starting a fresh tracker');
        tracker = deps.trackers.create(queryId, name);
      }
    } else {
      tracker = deps.trackers.create(queryId, name);
    }
    if (cpuLoad) {
      const d = process.cpuUsage(cpuLoad);
      stageCpu.add('detect.load', d.user + d.system);
    }
    const cpuRun = stageCpu.enabled ? process.cpuUsage() : null;
    const last = {
      runId: load.stream?.lastRunId ?? null,
      batchId: load.stream?.lastObservedBatchId ?? null,
      atMs: load.stream?.lastObservedAt ?? null,
    };
    const changes: IncidentChange[] = [];
    let observed = 0;
    let duplicates = 0;
    const ordered = [...load.entries].sort(
      (a, b) => a.progress.timestampMs - b.progress.timestampMs || (a.progress.batchId ?? 0) - (b.progress.batchId ?? 0) || a.seq - b.seq,
    );
    for (const { progress } of ordered) {
      if (progress.id !== queryId || alreadyObserved(progress, last)) {
        duplicates += 1;
        continue;
      }
      try {
        changes.push(...tracker.observe(progress));
      } catch (err) {
        // One unusable report must not wedge the query: it is consumed, logged and counted.
        deps.metrics.apiErrors.inc({ service: 'engine', kind: 'streamdoctor_engine_error' });
        deps.logger.error({ err, queryId, batchId: progress.batchId, runId: progress.runId }, 'engine could not observe a progress report; skipped');
      }
      observed += 1;
      last.runId = progress.runId;
      last.batchId = progress.batchId;
      last.atMs = progress.timestampMs;
    }
    if (cpuRun) {
      const d = process.cpuUsage(cpuRun);
      stageCpu.add('detect.run', d.user + d.system);
    }
    const nowMs = now();
    // The tick judges silence (stalled). A query whose job (or pipeline) is down is silent for a
    // reason the host's `failed` incident already gives: one alert for one cause. A silent query
    // whose job runs is still judged stalled.
    const skipTick = await hostIsDown(deps.store, load.stream);
    const snapshot = stageCpu.sync('detect.run', () => {
      if (!skipTick) {
        try {
          changes.push(...tracker.tick(nowMs));
        } catch (err) {
          deps.metrics.apiErrors.inc({ service: 'engine', kind: 'streamdoctor_engine_error' });
          deps.logger.error({ err, queryId }, 'engine tick failed; skipped');
        }
      }
      return tracker.snapshot();
    });
    await stageCpu.sync('detect.commit', () => deps.store.queries.commitDetect(queryId, {
      expectedVersion: load.stateVersion,
      state: tracker.toState(),
      lastSeq: load.lastSeq,
      snapshot,
      health: snapshot.health,
      name: ordered.at(-1)?.progress.name ?? name,
      lastRunId: last.runId,
      lastBatchId: last.batchId,
      lastObservedAt: last.atMs,
      timeBehindSec: observed > 0 ? snapshot.timeBehindSec : null,
      changes,
      nowMs,
      observed,
    }));
    deps.metrics.progressEvents.inc(observed);
    if (duplicates > 0) deps.metrics.progressDuplicates.inc(duplicates);
    for (const change of changes) deps.metrics.detections.inc({ kind: change.incident.kind, change: change.type });
    if (load.corrupt > 0) deps.logger.warn({ queryId, corrupt: load.corrupt }, 'skipped unreadable inbox entries');
    // Also drains intents a crashed run committed but never enqueued.
    if (changes.length > 0 || load.outboxLength > 0) await stageCpu.sync('detect.commit', () => drainOutbox(deps.store, deps.queues, queryId, nowMs));
    return { observed, duplicates, changes: changes.length };
  };
}
