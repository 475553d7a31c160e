/**
 * The poll job: one source, one cycle. Reads new progress since the stored cursor, registers the
 * streams it mentions, appends the progress to each query's inbox, saves the cursor, then asks for
 * one detect run per query that got something. A crash before the cursor is saved re-reads the same
 * progress next time and may store it in the inbox again (entries carry no identity); the detect
 * step skips what it already observed, a second copy in the same inbox too, so nothing is lost or
 * doubled. One report that cannot be stored (an id no query has, a value that cannot be encoded) is
 * skipped with a warning: it never keeps the rest of the cycle, or the cursor, from moving on.
 * The sweep job (same queue) asks for a detect tick on every stream, for time-based detections.
 */
import { UnrecoverableError, type Job } from 'bullmq';
import { ReplyError } from 'ioredis';
import type { Logger } from '../src/observability/logger.js';
import { errorKind, type PipelineMetrics } from '../src/observability/metrics.js';
import type { Progress } from '../src/progress/types.js';
import type { SourceRegistry } from '../src/sources/source.js';
import type { RedisStore } from '../src/store/index.js';
import { storableProgress } from '../src/store/inbox-codec.js';
import type { StreamInfo } from '../src/store/types.js';
import { truncateText } from '../src/util/truncate-text.js';
import { POLL_JOB, type PollJobData } from './queue-names.js';
import { DETECT_GROUP_SIZE, type PipelineQueues } from './queues.js';
import { safeJobId } from './job-ids.js';
import { drainOutbox } from './notify-intents.js';
import { requestRefresh } from './notify-processor.js';
import { isSignalStream } from '../src/diagnosis/host-signals.js';
import { applySignals } from './signal-incidents.js';
import { DEFAULT_SOURCE_FAILING_AFTER_MS, recordReadFailure, recordReadSuccess } from './source-health.js';
import { stageCpu } from '../src/util/stage-cpu.js';

export interface PollDeps {
  store: RedisStore;
  queues: PipelineQueues;
  sources: SourceRegistry;
  metrics: PipelineMetrics;
  logger: Logger;
  /** Clock the sweep judges silence ends by (the same as notify's). @defaultValue Date.now */
  now?: () => number;
  /**
   * A stream with no progress for this long and no open incident leaves the registry at the sweep
   * (a query restarted from a new checkpoint gets a new id; the old one would be swept forever). It
   * comes back with its next progress.
   * @defaultValue 7 days
   */
  streamRetentionMs?: number;
  /**
   * A source whose polls have failed for this long gets its source-health incident ("StreamDoctor
   * cannot read …") in the defaults channel; the next successful poll resolves it
   * (`STREAMDOCTOR_SOURCE_FAILING_SECONDS`).
   * @defaultValue 300000 (5 minutes)
   */
  sourceFailingAfterMs?: number;
  /**
   * How long this process trusts what it last wrote to the registry per query (most polls change
   * nothing there) before writing it again, so a registry lost with a Redis without persistence comes back.
   * @defaultValue 600000 (10 minutes)
   */
  registryRefreshMs?: number;
}

export interface PollOutcome {
  sourceId?: string;
  progress: number;
  queries: number;
  dropped?: number;
  /** Reports that could not be stored (each logged with its query and row). */
  skipped?: number;
  /** Streams the sweep retired (silent past the retention, no open incident). */
  retired?: number;
  /** Time spent in the source (Databricks) and in the store + queues, ms. */
  sourceMs?: number;
  storeMs?: number;
}

/** Arrival over processing rate of the latest report (> 1: falling behind); 0 when unknown. */
export function pressure(progress: Progress[]): number {
  const last = progress[progress.length - 1];
  if (!last || !last.inputRowsPerSecond || !last.processedRowsPerSecond) return 0;
  return last.inputRowsPerSecond / last.processedRowsPerSecond;
}

/**
 * Backstop for the delayed job notify enqueues at a silence's end: incidents a silence held whose
 * silence has ended get their refresh, then leave the held set. The job id names this sweep too: an
 * incident held again under the same end (a silence that outlived what its record said) must get a
 * new job, not be taken for the finished one and dropped. A second refresh of a message already
 * shown is only an update. Held entries leave only once their jobs are enqueued (a failed enqueue
 * throws first and leaves them for the next sweep).
 */
export async function releaseEndedSilences(deps: Pick<PollDeps, 'store' | 'queues' | 'now'>): Promise<number> {
  const nowMs = (deps.now ?? Date.now)();
  const due = await deps.store.silences.dueHeld(nowMs);
  for (const held of due) await requestRefresh(deps.queues, held.incidentId, 'silence-ended', `${held.untilMs}.${nowMs}`, { nowMs });
  await deps.store.silences.releaseDue(due.map((held) => held.incidentId), nowMs);
  return due.length;
}

/**
 * An error Redis answered about one query's own keys (a field of the wrong type, a value no script
 * can use): that query's reports cannot be stored, while the others can. Connection errors and
 * server states (LOADING, READONLY, OOM, …) are not: the poll fails and is retried.
 */
function queryDataError(err: unknown): boolean {
  return err instanceof ReplyError && /^(ERR|WRONGTYPE) /.test((err as Error).message);
}

/** Removes streams silent past the retention that have no open incident; returns their ids. */
export async function retireSilentStreams(deps: Pick<PollDeps, 'store' | 'streamRetentionMs' | 'logger'>, nowMs: number = Date.now()): Promise<Set<string>> {
  // Real time: `updatedAt` is written with it (refreshed at least every 10 min while progress flows).
  const cutoff = nowMs - (deps.streamRetentionMs ?? 7 * 86_400_000);
  const stale = (await deps.store.streams.list()).filter((stream) => Math.max(stream.lastObservedAt ?? 0, stream.updatedAt) < cutoff);
  if (stale.length === 0) return new Set();
  const retired = new Set<string>();
  for (const stream of stale) {
    // Its own records, not the open index (an incident not yet notified is not indexed).
    if ((await deps.store.incidents.listForQuery(stream.queryId)).some((record) => record.state === 'open')) continue;
    await deps.store.streams.remove(stream.queryId);
    retired.add(stream.queryId);
  }
  if (retired.size > 0) deps.logger.info({ retired: retired.size }, 'retired streams with no progress for the retention period');
  return retired;
}

/**
 * Longest query or run id a report may carry: Spark's are UUIDs (36 characters). A longer one is
 * not a query's (the id names its Redis keys, the run id is kept in the engine state).
 */
const MAX_ID_CHARS = 128;

export function createPollProcessor(deps: PollDeps) {
  // What this process last wrote to the registry per query (forgotten every `registryRefreshMs`).
  const registryRefreshMs = deps.registryRefreshMs ?? 600_000;
  const registered = new Map<string, string>();
  let registeredSince = Date.now();

  /** Source health: the streak, and its incident past the threshold (never fails the poll further). */
  async function noteFailure(sourceId: string, workspace: string | undefined, err: unknown): Promise<void> {
    try {
      const nowMs = Date.now();
      const touched = await recordReadFailure(deps.store, { sourceId, ...(workspace ? { workspace } : {}), failingAfterMs: deps.sourceFailingAfterMs ?? DEFAULT_SOURCE_FAILING_AFTER_MS }, err, nowMs);
      if (touched) await drainOutbox(deps.store, deps.queues, touched, nowMs, deps.logger);
      const { lastSuccessAt } = await deps.store.sources.get(sourceId);
      if (lastSuccessAt !== null) deps.metrics.sourceLastSuccess.set({ source: sourceId }, lastSuccessAt / 1000);
    } catch (healthErr) {
      deps.logger.warn({ err: healthErr, sourceId }, 'could not record the source failure');
    }
  }

  async function noteSuccess(sourceId: string): Promise<void> {
    const nowMs = Date.now();
    deps.metrics.sourceLastSuccess.set({ source: sourceId }, nowMs / 1000);
    const touched = await recordReadSuccess(deps.store, sourceId, nowMs);
    if (touched) await drainOutbox(deps.store, deps.queues, touched, nowMs, deps.logger);
  }

  return async function processPoll(job: Job<PollJobData>): Promise<PollOutcome> {
    if (job.name === POLL_JOB.sweep) {
      const retired = await retireSilentStreams(deps);
      const ids = (await deps.store.streams.listIds()).filter((id) => !isSignalStream(id) && !retired.has(id));
      await deps.queues.enqueueDetectGroups(ids, { tick: true });
      await releaseEndedSilences(deps);
      return { progress: 0, queries: ids.length, ...(retired.size > 0 ? { retired: retired.size } : {}) };
    }
    const sourceId = job.data.sourceId;
    const entry = sourceId ? deps.sources.get(sourceId) : undefined;
    if (!sourceId || !entry) {
      deps.metrics.polls.inc({ source: sourceId ?? 'none', outcome: 'unknown_source' });
      throw new UnrecoverableError(`streamdoctor_poll_unknown_source: no progress source "${sourceId ?? ''}" is configured`);
    }
    const cursorText = await deps.store.cursors.get(sourceId);
    let cursor: unknown = null;
    if (cursorText) {
      try {
        cursor = JSON.parse(cursorText);
      } catch {
        deps.logger.warn({ sourceId }, 'stored cursor unreadable; polling from the start window');
      }
    }
    let result;
    const pollStarted = Date.now();
    try {
      result = await stageCpu.around('poll.fetch', () => entry.source.poll(cursor));
    } catch (err) {
      deps.metrics.polls.inc({ source: sourceId, outcome: 'error' });
      deps.metrics.apiErrors.inc({ service: 'databricks', kind: errorKind(err) });
      deps.logger.warn({ err, sourceId }, 'poll failed');
      await noteFailure(sourceId, entry.workspace, err);
      throw err;
    }
    await noteSuccess(sourceId);
    for (const warning of result.warnings ?? []) deps.logger.warn({ sourceId, warning }, 'source warning');
    // Which watched jobs run now: detect judges a silent query stalled only while its job runs.
    // Recording also drops answers of jobs no longer watched (past the store's retention).
    const liveness = entry.source.liveness();
    if (liveness !== null) {
      const pruned = await deps.store.jobs.record(liveness, Date.now());
      if (pruned > 0) deps.logger.debug({ sourceId, pruned }, 'job liveness: dropped answers of jobs no longer watched');
    }
    let signalQueries: string[] = [];
    if (result.signals && result.signals.length > 0) {
      signalQueries = await applySignals(deps.store, result.signals, sourceId, Date.now());
      for (const queryId of signalQueries) await drainOutbox(deps.store, deps.queues, queryId, Date.now(), deps.logger);
    }

    const sourceMs = Date.now() - pollStarted;
    const byQuery = new Map<string, { stream: StreamInfo; progress: Progress[]; rows: string[] }>();
    let skipped = 0;
    // Names the report and its row (the source's reference: table, query, run, batch; never credentials).
    const skip = (progress: Progress, row: string, reason: string) => {
      skipped += 1;
      deps.logger.warn(
        { sourceId, queryId: truncateText(String(progress.id), MAX_ID_CHARS), runId: truncateText(String(progress.runId), MAX_ID_CHARS), batchId: progress.batchId, row: truncateText(row, 400), reason },
        'progress report skipped: it cannot be stored',
      );
    };
    const cpuGroup = process.cpuUsage();
    for (const item of result.progress) {
      const queryId = item.progress.id;
      if (!queryId) continue;
      const row = item.origin?.ref ?? '';
      if (queryId.length > MAX_ID_CHARS || item.progress.runId.length > MAX_ID_CHARS) {
        skip(item.progress, row, `query or run id longer than ${MAX_ID_CHARS} characters`);
        continue;
      }
      // What the inbox keeps (depth and text bounded): the registry takes its name from it too.
      let progress: Progress;
      try {
        progress = storableProgress(item.progress);
      } catch (err) {
        skip(item.progress, row, err instanceof Error ? err.message : String(err));
        continue;
      }
      let group = byQuery.get(queryId);
      if (!group) {
        group = { stream: { queryId, name: progress.name, source: sourceId, ...entry.describe?.(progress) }, progress: [], rows: [] };
        byQuery.set(queryId, group);
      }
      group.progress.push(progress);
      group.rows.push(row);
    }
    if (Date.now() - registeredSince > registryRefreshMs) {
      registered.clear();
      registeredSince = Date.now();
    }
    let dropped = 0;
    // Streams under pressure first: their detect jobs reach the front of the queue, so the alerts
    // that matter do not wait behind thousands of healthy streams. (A scheduling hint, not a verdict.)
    const entries = [...byQuery.values()].sort((a, b) => pressure(b.progress) - pressure(a.progress));
    const groupCpu = process.cpuUsage(cpuGroup);
    stageCpu.add('poll.store', stageCpu.enabled ? groupCpu.user + groupCpu.system : 0);
    // Bounded parallelism: one source may report thousands of queries per cycle.
    for (let i = 0; i < entries.length; i += DETECT_GROUP_SIZE) {
      const all = entries.slice(i, i + DETECT_GROUP_SIZE);
      // Each query's writes on their own: one whose keys Redis refuses (a meta field of the wrong
      // type) is skipped with a warning naming it; the others are stored and detected.
      const settled = await Promise.allSettled(
        all.map(async ({ stream, progress }) => {
          const signature = JSON.stringify(stream);
          if (registered.get(stream.queryId) !== signature) {
            await deps.store.streams.upsert(stream);
            registered.set(stream.queryId, signature);
          }
          return stageCpu.sync('poll.store', () => deps.store.queries.push(stream.queryId, progress));
        }),
      );
      const slice: typeof all = [];
      for (const [k, result] of settled.entries()) {
        const { stream, progress, rows } = all[k]!;
        if (result.status === 'rejected') {
          if (!queryDataError(result.reason)) throw result.reason;
          registered.delete(stream.queryId);
          skipped += progress.length;
          deps.logger.warn(
            { sourceId, queryId: stream.queryId, reports: progress.length, err: result.reason, fix: 'a field of its keys holds a value of the wrong type (err says which kind): correct or delete that field' },
            'progress of a query skipped: its keys in Redis cannot be written',
          );
          continue;
        }
        slice.push(all[k]!);
        dropped += result.value.dropped;
        for (const { index, error } of result.value.unencodable) {
          skip(progress[index]!, rows[index]!, error instanceof Error ? error.message : String(error));
        }
      }
      // Detect starts on this slice while the next one is stored: a stream falling behind gets a job
      // of its own (at the front, one pending per query); the others are marked pending in their
      // shard, with one detect job per shard (one pending per shard) that runs them together.
      const strained = slice.filter((e) => pressure(e.progress) > 1).map((e) => e.stream.queryId);
      const steady = slice.filter((e) => !(pressure(e.progress) > 1)).map((e) => e.stream.queryId);
      await stageCpu.sync('poll.store', async () => {
        if (strained.length > 0) await deps.queues.enqueueDetect(strained);
        if (steady.length > 0) await deps.queues.enqueueDetectShards(await deps.store.pendingDetect.mark(steady));
      });
    }
    await deps.store.cursors.set(sourceId, JSON.stringify(result.cursor ?? null));
    if (result.more) {
      // The source stopped at its page bound: catch up now rather than at the next tick.
      await deps.queues.poll.add(POLL_JOB.poll, { sourceId }, { jobId: safeJobId('poll-more', sourceId, job.id ?? 'x'), delay: 50 });
    }

    deps.metrics.polls.inc({ source: sourceId, outcome: 'ok' });
    deps.metrics.progressIngested.inc({ source: sourceId }, result.progress.length);
    if (dropped > 0) {
      deps.metrics.progressDropped.inc(dropped);
      deps.logger.warn({ sourceId, dropped }, 'inbox bound dropped old progress (detect is falling behind)');
    }
    return { sourceId, progress: result.progress.length, queries: byQuery.size, dropped, ...(skipped > 0 ? { skipped } : {}), sourceMs, storeMs: Date.now() - pollStarted - sourceMs };
  };
}
