/**
 * The detect job: a group of queries (those with new progress in one poll slice, or a slice of every
 * stream for the sweep's tick), or one query. Per query: loads the tracker state and the inbox (one
 * script; a query another run already drained is skipped without reading its state), feeds the
 * engine the progress it has not seen (in order, duplicates skipped), ticks at now, and commits state,
 * snapshot, history, incident records and notification intents in one atomic script on the query's
 * slot, guarded by the state version. The queries of a group are loaded together and committed
 * together (concurrent commands, auto-pipelined into one round trip each), never in one cross-slot
 * transaction. Then the intents become notify jobs with deterministic ids, so a retry or a replay
 * never notifies twice.
 *
 * A saved tracker state that cannot be used (not JSON, a shape `restore` refuses, or one the engine
 * throws on) is discarded with one warning and the query starts afresh on the same progress: one
 * bad state never wedges its query or holds up the others. The incidents it had open are closed
 * in the same commit, saying why (`closedUnconfirmed`), rather than left open in Slack with nothing
 * left to resolve them; a new alert opens if the problem goes on.
 */
import type { Job } from 'bullmq';
import { TRACKER_INCIDENT_KINDS } from '../src/diagnosis/tracker-state.js';
import type { IncidentChange } from '../src/diagnosis/types.js';
import type { Logger } from '../src/observability/logger.js';
import type { PipelineMetrics } from '../src/observability/metrics.js';
import { sparkOrder } from '../src/progress/spark-order.js';
import type { Progress } from '../src/progress/types.js';
import { StateConflictError, incidentIdOf, type RedisStore } from '../src/store/index.js';
import type { IncidentRecord } from '../src/store/types.js';
import type { DetectLoad } from '../src/store/query-state-store.js';
import { drainOutbox } from './notify-intents.js';
import { detectJobSchema, jobDataOf, QUEUE, type DetectJobData } from './queue-names.js';
import type { PipelineQueues } from './queues.js';
import { hostLiveness, type HostLiveness } from './signal-incidents.js';
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
  /** Queries run (a group's others had nothing pending). */
  queries?: number;
}

/** Queries loaded and committed together inside a group (bounds memory and event-loop turns). */
const CHUNK = 50;
/** A commit that lost the version race is re-run on fresh state this many times in the job. */
const CONFLICT_RETRIES = 3;

/** An open incident whose tracker state was discarded, resolved with a summary that says so. */
export function closedUnconfirmed(record: IncidentRecord, nowMs: number): IncidentChange {
  return {
    type: 'resolved',
    queryId: record.queryId,
    queryName: record.queryName,
    incident: {
      ...record.incident,
      resolvedAt: new Date(nowMs).toISOString(),
      resolvedAtBatchId: null,
      summary: `Closed unconfirmed: StreamDoctor could not use its saved detection state for this query and started it over, so it cannot tell when this ends; a new alert opens if it goes on. It read: ${record.incident.summary}`,
    },
  };
}

/**
 * Whether `p` was already observed, given the last observed run/batch/time, in the order the inbox
 * is read in (`sparkOrder`): within a run batch ids decide, whatever a timestamp says; across runs
 * (a restart) or without batch ids, trigger time does, and a later batch id across a restart on one
 * checkpoint is never taken for an old one. A report without a timestamp (`timestampMissing`) has
 * no time to judge by: the tracker places it, and counts it if it skips it.
 */
export function alreadyObserved(p: Progress, last: { runId: string | null; batchId: number | null; atMs: number | null }): boolean {
  if (p.batchId !== null && last.batchId !== null && p.runId === last.runId) return p.batchId <= last.batchId;
  if (p.timestampMissing) return false;
  return last.atMs !== null && p.timestampMs <= last.atMs && (p.batchId === null || last.batchId === null || p.batchId <= last.batchId);
}

export function createDetectProcessor(deps: DetectDeps) {
  const now = deps.now ?? Date.now;

  /**
   * Feeds the engine one query's new progress and ticks (synchronous: the engine is pure). A state
   * the engine cannot restore, or throws on, is discarded: the same progress goes to a fresh
   * tracker and `discarded` says why (a fresh tracker that throws is the engine's fault: it throws).
   */
  function run(queryId: string, load: DetectLoad, host: HostLiveness) {
    const cpuLoad = stageCpu.enabled ? process.cpuUsage() : null;
    const name = load.stream?.name ?? null;
    let tracker: TrackerLike | null = null;
    let discarded: string | null = load.stateUnreadable
      ? 'the saved state is not readable JSON'
      : load.stateMissing
        ? 'the saved state is gone or empty (evicted?) though a commit saved one'
        : null;
    // Any saved value but none: JSON 0 or "" is a state restore refuses, not a new query.
    if (load.state !== null && load.state !== undefined) {
      try {
        tracker = deps.trackers.restore(load.state);
      } catch (err) {
        discarded = `the saved state cannot be restored: ${errorText(err)}`;
      }
    }
    if (cpuLoad) {
      const d = process.cpuUsage(cpuLoad);
      stageCpu.add('detect.load', d.user + d.system);
    }
    if (tracker) {
      try {
        return evaluate(queryId, load, host, tracker, null);
      } catch (err) {
        discarded = `the engine failed on the saved state: ${errorText(err)}`;
      }
    }
    return evaluate(queryId, load, host, deps.trackers.create(queryId, name), discarded);
  }

  function evaluate(queryId: string, load: DetectLoad, host: HostLiveness, tracker: TrackerLike, discarded: string | null) {
    const name = load.stream?.name ?? null;
    const cpuRun = stageCpu.enabled ? process.cpuUsage() : null;
    const last = {
      runId: load.stream?.lastRunId ?? null,
      batchId: load.stream?.lastObservedBatchId ?? null,
      atMs: load.stream?.lastObservedAt ?? null,
    };
    const changes: IncidentChange[] = [];
    let observed = 0;
    let duplicates = 0;
    // As Spark ran them: by time, a report dated a day ahead would sort last (and be dropped as
    // seen) and one dated back (or without a time) first, with the batches before it dropped.
    const ordered = sparkOrder(
      [...load.entries].sort((a, b) => a.seq - b.seq),
      (entry) => entry.progress,
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
      if (!progress.timestampMissing) last.atMs = progress.timestampMs;
    }
    // Reports the engine did not take as they came (QueryTracker.irregular): said, never silent.
    const irregular = tracker.irregular;
    if (irregular && irregular.older + irregular.duplicate + irregular.misdated > 0) deps.logger.warn({ queryId, ...irregular }, 'progress reports skipped (older, duplicate) or misdated (kept at the time their batches allow)');
    const nowMs = now();
    // The tick judges silence (stalled). A query whose job (or pipeline) is down is silent for a
    // reason the host's `failed` incident already gives: one alert for one cause. A silent query
    // whose job runs is still judged stalled, from the run's start when it restarted since its
    // last report.
    if (!host.down) {
      try {
        changes.push(...tracker.tick(nowMs, { runStartedAtMs: host.runStartedAtMs }));
      } catch (err) {
        deps.metrics.apiErrors.inc({ service: 'engine', kind: 'streamdoctor_engine_error' });
        deps.logger.error({ err, queryId }, 'engine tick failed; skipped');
      }
    }
    // An alert open for hours shows today's figures: told again once they moved (never in a storm
    // of edits: at most every `TUNING.refreshFiguresMs` by the time the figures are of).
    try {
      changes.push(...(tracker.refreshFigures?.() ?? []));
    } catch (err) {
      deps.metrics.apiErrors.inc({ service: 'engine', kind: 'streamdoctor_engine_error' });
      deps.logger.error({ err, queryId }, 'engine could not refresh the figures of open incidents; skipped');
    }
    const snapshot = tracker.snapshot();
    if (cpuRun) {
      const d = process.cpuUsage(cpuRun);
      stageCpu.add('detect.run', d.user + d.system);
    }
    // Serializing is part of the commit's cost.
    const state = stageCpu.sync('detect.commit', () => tracker.toState());
    return {
      nowMs,
      observed,
      duplicates,
      changes,
      discarded,
      commit: {
        expectedVersion: load.stateVersion,
        state,
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
      },
    };
  }

  /** The tracker's incidents still open for a query whose state was discarded, closed (none the fresh tracker changes). */
  async function closeLeftOpen(queryId: string, fresh: IncidentChange[], nowMs: number): Promise<IncidentChange[]> {
    const taken = new Set(fresh.map((change) => incidentIdOf(queryId, change.incident)));
    const records = await deps.store.incidents.listForQuery(queryId);
    return records
      .filter((record) => record.state === 'open' && TRACKER_INCIDENT_KINDS.has(record.kind) && !taken.has(record.id))
      .map((record) => closedUnconfirmed(record, nowMs));
  }

  /** One query, from its load to its notify jobs; a lost version race re-runs on fresh state. */
  async function detectQuery(queryId: string, first: DetectLoad, hostOf: (load: DetectLoad) => Promise<HostLiveness>, totals: DetectOutcome): Promise<void> {
    let load = first;
    for (let attempt = 0; ; attempt++) {
      const outcome = run(queryId, load, await hostOf(load));
      const closed = outcome.discarded === null ? [] : await closeLeftOpen(queryId, outcome.changes, outcome.nowMs);
      // Before the fresh tracker's own changes (they share the commit's array).
      outcome.changes.unshift(...closed);
      try {
        const { repaired } = await stageCpu.sync('detect.commit', () => deps.store.queries.commitDetect(queryId, outcome.commit));
        if (repaired) deps.logger.warn({ queryId, repaired }, 'stored values of this query were malformed; the commit repaired them');
      } catch (err) {
        if (!(err instanceof StateConflictError) || attempt >= CONFLICT_RETRIES) throw err;
        // Another run committed since the load: what it observed is skipped on fresh state.
        load = await deps.store.queries.loadForDetect(queryId);
        continue;
      }
      if (outcome.discarded !== null) {
        deps.logger.warn({ queryId, reason: outcome.discarded, closed: closed.map((c) => incidentIdOf(queryId, c.incident)) }, 'tracker state discarded; detection starts afresh for this query');
      }
      totals.observed += outcome.observed;
      totals.duplicates += outcome.duplicates;
      totals.changes += outcome.changes.length;
      for (const change of outcome.changes) deps.metrics.detections.inc({ kind: change.incident.kind, change: change.type });
      if (load.corrupt > 0) deps.logger.warn({ queryId, corrupt: load.corrupt, entries: load.corruptEntries }, 'skipped unreadable inbox entries (consumed)');
      if (load.filledEntries) deps.logger.info({ queryId, seqs: load.filledEntries }, 'inbox entries of an older shape read with the parser\'s defaults');
      // Also drains intents a crashed run committed but never enqueued.
      if (outcome.changes.length > 0 || load.outboxLength > 0) await stageCpu.sync('detect.commit', () => drainOutbox(deps.store, deps.queues, queryId, outcome.nowMs, deps.logger));
      return;
    }
  }

  return async function processDetect(job: Job<DetectJobData>): Promise<DetectOutcome> {
    const data = jobDataOf(detectJobSchema, QUEUE.detect, job);
    const { shard } = data;
    const marked = shard !== undefined ? await deps.store.pendingDetect.read(shard) : null;
    const ids = marked ? marked.map((m) => m.queryId) : data.queryIds && data.queryIds.length > 0 ? [...new Set(data.queryIds)] : [data.queryId!];
    // A job for one query (a stream falling behind, or an older producer's) always runs and ticks,
    // as does the sweep's group; a shard's run skips queries whose progress another run consumed.
    const always = marked === null && (data.queryIds === undefined || data.tick === true);
    // What is known of a stream's host, asked once per source / job / pipeline per job.
    const hosts = new Map<string, Promise<HostLiveness>>();
    const hostOf = (load: DetectLoad): Promise<HostLiveness> => {
      const stream = load.stream;
      const key = `${stream?.source ?? ''}|${stream?.jobId ?? ''}|${stream?.pipelineId ?? ''}`;
      let answer = hosts.get(key);
      if (!answer) {
        answer = hostLiveness(deps.store, stream);
        hosts.set(key, answer);
      }
      return answer;
    };
    const totals: DetectOutcome = { observed: 0, duplicates: 0, changes: 0, queries: 0 };
    let failure: unknown = null;
    const failed = new Set<string>();
    for (let i = 0; i < ids.length; i += CHUNK) {
      const chunk = ids.slice(i, i + CHUNK);
      // Concurrent single-slot scripts: auto-pipelining sends them in one round trip.
      const loads = await Promise.all(chunk.map((queryId) => deps.store.queries.loadIfPending(queryId, { always })));
      const results = await Promise.allSettled(
        chunk.map((queryId, k) => {
          const load = loads[k];
          if (!load) return Promise.resolve();
          totals.queries! += 1;
          return detectQuery(queryId, load, hostOf, totals);
        }),
      );
      for (const [k, result] of results.entries()) {
        if (result.status === 'rejected') {
          failure ??= result.reason;
          failed.add(chunk[k]!);
          deps.logger.warn({ err: result.reason, queryId: chunk[k] }, 'detect failed for a query; the job retries (queries already committed have nothing pending)');
        }
      }
    }
    // Done with what was read; a query marked again since, or one that failed, stays marked.
    if (marked && shard !== undefined) await deps.store.pendingDetect.unmark(shard, marked.filter((m) => !failed.has(m.queryId)));
    deps.metrics.progressEvents.inc(totals.observed);
    if (totals.duplicates > 0) deps.metrics.progressDuplicates.inc(totals.duplicates);
    if (failure) throw failure;
    return totals;
  };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
