/**
 * Scores a progress trace recorded from real Spark (test/fixtures/real-spark/, format in its README)
 * against its labels: the reports are fed in order through `parseProgress` and one `QueryTracker`
 * per query id, ticked every `TICK_MS` of the trace's own clock through the gaps between reports
 * (as the worker's detect schedule does), so a stall is judged during the silence. An expected kind
 * is found when it opened between 2 batches before its onset and its `detectByBatchId` (a stall:
 * before the blocked batch's report arrived); every other opening is a false alarm unless its kind
 * is allowed. A relapse (a resolved incident re-opened within its cool-down, same id) counts as an
 * opening where it happens, as in the randomized eval. An expected incident with `resolveByBatchId`
 * must also have resolved, for good, by then. In a trace of several queries interleaved, batchIds are
 * each query's own and an expected incident names its query (`query`).
 */

import { QueryTracker } from '../../diagnosis/query-tracker.js';
import type { IncidentChange, IncidentKind } from '../../diagnosis/types.js';
import { parseProgress } from '../../progress/parse-progress.js';
import { EARLY_TOLERANCE_REPORTS } from '../scenario.js';
import { incidentKey } from './score.js';

export interface RealTraceLabels {
  trace: string;
  description: string;
  /** `query`: the query's name, in a trace of several (their batchIds are each their own). */
  expect: { kind: IncidentKind; query?: string; onsetBatchId: number; detectByBatchId: number; resolveByBatchId?: number }[];
  allow: IncidentKind[];
  unobservable?: { kind: IncidentKind; onsetBatchId: number; why: string }[];
  triggerMs?: number;
}

export interface RealOpening {
  kind: IncidentKind;
  incidentId: string;
  /** The query's name (null when its reports carry none). */
  query: string | null;
  /** batchId of the query's last report seen when it opened (a tick opens between reports). */
  afterBatchId: number | null;
  /** True when it opened at a tick, before the next report. */
  atTick: boolean;
  summary: string;
}

export interface RealTraceScore {
  name: string;
  reports: number;
  /** Distinct queries in the trace. */
  queries: number;
  parseErrors: number;
  expected: {
    kind: IncidentKind;
    query?: string;
    onsetBatchId: number;
    detectByBatchId: number;
    resolveByBatchId?: number;
    found: RealOpening | null;
    delayBatches: number | null;
    /** batchId of the last report seen when the found incident resolved for good; null while open. */
    resolvedAfterBatchId: number | null;
  }[];
  falseAlarms: RealOpening[];
  allowed: RealOpening[];
}

/** How often the worker's detect job judges silence. */
const TICK_MS = 10_000;

export function scoreRealTrace(name: string, jsonl: string, labels: RealTraceLabels): RealTraceScore {
  const trackers = new Map<string, QueryTracker>();
  const openings: RealOpening[] = [];
  let parseErrors = 0;
  let reports = 0;
  let lastEndMs: number | null = null;
  /** Each query's last batchId: in a trace of several, batchIds count per query. */
  const lastBatchOf = new Map<string, number | null>();
  /** Resolved incidents by id: the batch after which they resolved (a relapse takes them out again). */
  const resolvedAfter = new Map<string, number | null>();
  const record = (c: IncidentChange, afterBatchId: number | null, atTick: boolean): void => {
    const { kind, summary } = c.incident;
    // One incident across a relapse: the same query, kind and opening time.
    const id = `${c.queryId}:${incidentKey(c.incident)}`;
    const relapse = c.type === 'updated' && resolvedAfter.has(id);
    if (c.type === 'opened' || relapse) openings.push({ kind, incidentId: id, query: c.queryName, afterBatchId, atTick, summary });
    if (relapse) resolvedAfter.delete(id);
    if (c.type === 'resolved') resolvedAfter.set(id, afterBatchId);
  };
  for (const line of jsonl.split('\n')) {
    if (line.trim() === '') continue;
    reports += 1;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      parseErrors += 1;
      continue;
    }
    const parsed = parseProgress(raw);
    if (!parsed.ok) {
      parseErrors += 1;
      continue;
    }
    const p = parsed.progress;
    const endMs = p.timestampMs + p.batchDurationMs;
    // Ticks through the silence before this report arrived.
    if (lastEndMs !== null) {
      for (let at = lastEndMs + TICK_MS; at < endMs; at += TICK_MS) {
        for (const [id, tracker] of trackers) for (const c of tracker.tick(at)) record(c, lastBatchOf.get(id) ?? null, true);
      }
    }
    const tracker = trackers.get(p.id) ?? QueryTracker.create(p.id, p.name);
    trackers.set(p.id, tracker);
    for (const c of [...tracker.observe(p), ...tracker.tick(endMs)]) record(c, p.batchId, false);
    lastEndMs = Math.max(lastEndMs ?? endMs, endMs);
    lastBatchOf.set(p.id, p.batchId);
  }
  const claimed = new Set<RealOpening>();
  const expected = labels.expect.map((e) => {
    const inWindow = (o: RealOpening) => {
      if (o.kind !== e.kind || o.afterBatchId === null || claimed.has(o) || (e.query !== undefined && o.query !== e.query)) return false;
      // A stall opens during the silence: after the report before the blocked batch, before its own.
      if (e.kind === 'stalled') return o.atTick && o.afterBatchId >= e.onsetBatchId - 1 && o.afterBatchId < e.detectByBatchId;
      return o.afterBatchId >= e.onsetBatchId - EARLY_TOLERANCE_REPORTS && o.afterBatchId <= e.detectByBatchId;
    };
    const found = openings.find(inWindow) ?? null;
    if (found) claimed.add(found);
    const delayBatches = found && found.afterBatchId !== null ? found.afterBatchId - e.onsetBatchId : null;
    const resolvedAfterBatchId = found ? (resolvedAfter.get(found.incidentId) ?? null) : null;
    return { ...e, found, delayBatches, resolvedAfterBatchId };
  });
  const rest = openings.filter((o) => !claimed.has(o));
  return {
    name,
    reports,
    queries: trackers.size,
    parseErrors,
    expected,
    falseAlarms: rest.filter((o) => !labels.allow.includes(o.kind)),
    allowed: rest.filter((o) => labels.allow.includes(o.kind)),
  };
}
