/**
 * Applies source signals about jobs and pipelines to their `failed` incidents (and a job's
 * `source_unreadable` one when its runs cannot be read; what each signal means is core:
 * src/diagnosis/host-signals.ts), and says whether a stream's host is known down.
 */
import { signalOutcome, withResolveNote, type Signal } from '../src/diagnosis/host-signals.js';
import type { IncidentChange } from '../src/diagnosis/types.js';
import type { RedisStore } from '../src/store/index.js';
import type { StreamInfo } from '../src/store/types.js';

/** How fresh a job-runs answer must be to count (a few missed polls). */
const LIVENESS_MAX_AGE_MS = 5 * 60_000;

/** What detect knows of the job or pipeline hosting a stream, for judging its silence. */
export interface HostLiveness {
  /**
   * Known to be down: its `failed` incident is open, or the last job-runs poll (at most 5 minutes
   * ago) saw no active run of its job; or the source that reports it cannot be read now. Such a
   * stream's silence is explained; the detect step does not judge it `stalled`. Unknown is "not down".
   */
  down: boolean;
  /** Start of the job's active run per that poll (the engine's `LiveFacts`); null when unknown. */
  runStartedAtMs: number | null;
}

export async function hostLiveness(store: RedisStore, stream: { jobId?: string; pipelineId?: string; source?: string } | null | undefined, wallNowMs: number = Date.now()): Promise<HostLiveness> {
  const down = { down: true, runStartedAtMs: null };
  // A source the bot cannot read explains its streams' silence too (its own source-health incident).
  if (stream?.source && (await store.sources.isFailing(stream.source))) return down;
  const seen = stream?.jobId ? await store.jobs.current(stream.jobId, wallNowMs, LIVENESS_MAX_AGE_MS) : null;
  if (seen && !seen.running) return down;
  const hosts = [stream?.jobId ? `job-${stream.jobId}` : null, stream?.pipelineId ? `pipeline-${stream.pipelineId}` : null].filter((h): h is string => h !== null);
  for (const host of hosts) {
    if ((await store.incidents.listForQuery(host)).some((r) => r.kind === 'failed' && r.state === 'open')) return down;
  }
  return { down: false, runStartedAtMs: seen?.runStartedAtMs ?? null };
}

/**
 * Applies signals; returns the queries whose outbox got intents (the caller drains them).
 * The open incidents of each job or pipeline (of the kinds the signal is about: `failed`,
 * `source_unreadable` for a job that cannot be read, both for one taken out of the watch file) are
 * found among its stream's incident records.
 */
export async function applySignals(store: RedisStore, signals: unknown[], sourceId: string, nowMs: number): Promise<string[]> {
  const touched = new Set<string>();
  for (const raw of signals) {
    if (!raw || typeof raw !== 'object' || typeof (raw as { type?: unknown }).type !== 'string') continue;
    const outcome = signalOutcome(raw as Signal, nowMs);
    if (!outcome) continue;
    const { hostId: queryId, ...host } = outcome.host;
    const stream = { queryId, ...host, source: sourceId } satisfies StreamInfo;
    const { action } = outcome;
    const records = await store.incidents.listForQuery(queryId);
    const changes: IncidentChange[] = [];
    if ('open' in action) {
      const incoming = action.open;
      const open = records.find((r) => r.kind === incoming.kind && r.state === 'open');
      if (!open) {
        await store.streams.upsert(stream, nowMs);
        changes.push({ type: 'opened', queryId, queryName: stream.name, incident: incoming });
      } else if (open.incident.summary !== incoming.summary) {
        // A later failed run: "Open in Databricks" should lead to that run's page.
        if (stream.runPageUrl) await store.streams.upsert(stream, nowMs);
        changes.push({ type: 'updated', queryId, queryName: stream.name, incident: { ...incoming, openedAt: open.incident.openedAt } });
      }
    } else {
      const kinds = action.kinds ?? ['failed'];
      // Only a run or update that started after the failure resolves it (an older one is the failure's own).
      for (const open of records.filter((r) => r.state === 'open' && kinds.includes(r.kind) && action.resolveAtMs >= r.openedAt)) {
        const resolvedAt = new Date(action.resolveAtMs).toISOString();
        const summary = action.note ? withResolveNote(open.incident.summary, action.note) : open.incident.summary;
        changes.push({ type: 'resolved', queryId, queryName: stream.name, incident: { ...open.incident, resolvedAt, summary } });
      }
    }
    if (changes.length > 0) {
      await store.queries.commitChanges(queryId, changes, nowMs);
      touched.add(queryId);
    }
  }
  return [...touched];
}
