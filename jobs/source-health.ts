/**
 * Source health: when a progress source cannot be read for longer than a threshold (credentials
 * refused, warehouse gone or stopped, table missing, permission denied, repeated timeouts), one
 * `source_unreadable` incident says "StreamDoctor cannot read <source>: <reason>, <what to do>" in
 * the defaults channel (its stream entry `source-<id>` has no job or pipeline, so routing falls
 * through to the default channel unless a `/stream watch source-<id>` routes it). It is updated in
 * place when the reason changes and resolved by the next successful read. Without it, a source the
 * bot cannot read looks like healthy silence.
 */
import { DEFAULTS } from '../src/config/defaults.js';
import {
  DatabricksApiError,
  DatabricksUnavailableError,
  NotFoundError,
  RateLimitedError,
  StatementFailedError,
  UnauthenticatedError,
} from '../src/databricks/errors.js';
import type { Incident, IncidentChange, Severity } from '../src/diagnosis/types.js';
import { redactSecrets } from '../src/observability/logger.js';
import type { RedisStore } from '../src/store/index.js';
import { incidentIdOf } from '../src/store/incident-id.js';
import { sourceStreamId } from '../src/store/source-health-store.js';
import type { StreamInfo } from '../src/store/types.js';

/** Default of `PollDeps.sourceFailingAfterMs` (`STREAMDOCTOR_SOURCE_FAILING_SECONDS`). */
export const DEFAULT_SOURCE_FAILING_AFTER_MS = DEFAULTS.sourceFailingSeconds * 1000;

export type ReadFailureCode =
  | 'auth_refused'
  | 'permission_denied'
  | 'warehouse_gone'
  | 'warehouse_stopped'
  | 'table_missing'
  | 'not_found'
  | 'result_expired'
  | 'timeout'
  | 'unavailable'
  | 'rate_limited'
  | 'error';

export interface ReadFailure {
  code: ReadFailureCode;
  /** What went wrong, plain text (Databricks' own words, secrets scrubbed, bounded). */
  reason: string;
  /** What to do about it, plain text. */
  action: string;
  severity: Severity;
}

/** Databricks' message, bounded, with anything shaped like a credential removed. */
function said(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return redactSecrets(text).replace(/\s+/g, ' ').trim().slice(0, 240);
}

/** Maps a failed poll to a stable reason and what to do about it. */
export function classifyReadFailure(err: unknown): ReadFailure {
  const message = err instanceof Error ? err.message : String(err);
  const text = said(err);
  if (err instanceof UnauthenticatedError) {
    // A 403 "Invalid access token." is the token, not a permission: `credentialsRejected` tells them apart.
    if (!err.credentialsRejected) {
      return {
        code: 'permission_denied',
        reason: `Databricks refused access (${text})`,
        action: 'grant StreamDoctor’s principal CAN USE on the SQL warehouse and SELECT on the progress table (or access to the job / pipeline)',
        severity: 'critical',
      };
    }
    return {
      code: 'auth_refused',
      reason: `Databricks refused the credentials (${text})`,
      action: 're-issue the token (or the OAuth client secret) and update the workspace’s credentials, then restart',
      severity: 'critical',
    };
  }
  if (err instanceof StatementFailedError) {
    const sqlState = err.sqlState ?? '';
    if (sqlState === '42P01' || /TABLE_OR_VIEW_NOT_FOUND|SCHEMA_NOT_FOUND|CATALOG_NOT_FOUND/.test(message)) {
      return { code: 'table_missing', reason: `the progress table cannot be found (${text})`, action: 'check the table name (`progress_table` in the watch file) or create it with listener/progress_table.sql', severity: 'critical' };
    }
    if (sqlState === '42501' || /INSUFFICIENT_PERMISSIONS|PERMISSION_DENIED/.test(message) || err.errorCode === 'PERMISSION_DENIED') {
      return { code: 'permission_denied', reason: `permission denied (${text})`, action: 'grant SELECT on the progress table (and USE CATALOG / USE SCHEMA) to StreamDoctor’s principal', severity: 'critical' };
    }
    if (/warehouse/i.test(message) && /stopp|not running|STOPPED|DELETED/i.test(message)) {
      return { code: 'warehouse_stopped', reason: `the SQL warehouse is not running (${text})`, action: 'start the SQL warehouse (or turn its auto-start back on)', severity: 'critical' };
    }
    return { code: 'error', reason: `the progress statement failed (${text})`, action: 'read the statement error above; the bot retries every poll', severity: 'warning' };
  }
  if (err instanceof NotFoundError) {
    // Only the submit names the warehouse; a statement or chunk read later is gone once its result expires.
    if (err.endpoint === 'POST /api/2.0/sql/statements') {
      return { code: 'warehouse_gone', reason: `the SQL warehouse does not exist (${text})`, action: 'set `warehouse_id` (or DATABRICKS_WAREHOUSE_ID) to an existing warehouse StreamDoctor may use', severity: 'critical' };
    }
    if (/\/sql\/statements\/./.test(err.endpoint ?? '')) {
      return { code: 'result_expired', reason: `the statement or its result was not found, most likely expired (${text})`, action: 'nothing to do if it passes: the next poll runs the statement again', severity: 'warning' };
    }
    return { code: 'not_found', reason: `Databricks does not know it (${text})`, action: 'check the job / pipeline id in the watch file', severity: 'critical' };
  }
  if (err instanceof RateLimitedError) {
    return { code: 'rate_limited', reason: `Databricks kept answering 429 (${text})`, action: 'poll less often (STREAMDOCTOR_POLL_SECONDS) or ask for a higher API limit', severity: 'warning' };
  }
  if (err instanceof DatabricksUnavailableError) {
    if (/TIMEOUT|did not answer in time/i.test(`${err.errorCode} ${message}`)) {
      return { code: 'timeout', reason: `Databricks did not answer in time (${text})`, action: 'check the workspace’s status and the network path from the bot; a starting warehouse answers after a few minutes', severity: 'warning' };
    }
    return { code: 'unavailable', reason: `Databricks is unavailable (${text})`, action: 'check the workspace’s status page and the network path from the bot; reads resume by themselves', severity: 'warning' };
  }
  if (err instanceof DatabricksApiError && err.errorCode === 'DEADLINE_EXCEEDED') {
    return { code: 'timeout', reason: `statements did not finish in time (${text})`, action: 'start the SQL warehouse if it is stopped, or give it more capacity if it is overloaded', severity: 'warning' };
  }
  return { code: 'error', reason: text || 'an unknown error', action: 'see the worker log for this source; the bot retries every poll', severity: 'warning' };
}

/** How people know the source: "prod progress table (prod.progress)". */
export function sourceLabel(sourceId: string, workspace?: string): string {
  return workspace && !sourceId.startsWith(`${workspace}.`) ? `${workspace} / ${sourceId}` : sourceId;
}

function unreadable(label: string, failure: ReadFailure, openedAtMs: number): Incident {
  // A time, not a duration: the summary is written once per reason and shown for hours.
  const since = `${new Date(openedAtMs).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return {
    kind: 'source_unreadable',
    severity: failure.severity,
    openedAtBatchId: null,
    openedAt: new Date(openedAtMs).toISOString(),
    resolvedAtBatchId: null,
    resolvedAt: null,
    summary: `StreamDoctor cannot read ${label}: ${failure.reason}, ${failure.action}. Failing since ${since}; its streams are not being watched meanwhile.`.slice(0, 500),
    causes: [],
    advice: [{ text: `${failure.action[0]!.toUpperCase()}${failure.action.slice(1)}.` }],
    metrics: {},
  };
}

export interface SourceHealthTarget {
  sourceId: string;
  /** Workspace name, for the message. */
  workspace?: string;
  /** Failing longer than this opens the incident. */
  failingAfterMs: number;
}

/**
 * Records a failed poll and opens (or re-words) the source's incident once the streak is older than
 * the threshold. Returns the stream id whose outbox got an intent, or null.
 */
export async function recordReadFailure(store: RedisStore, target: SourceHealthTarget, err: unknown, nowMs: number): Promise<string | null> {
  const failure = classifyReadFailure(err);
  const health = await store.sources.recordFailure(target.sourceId, failure.code, nowMs);
  const since = health.failingSince ?? nowMs;
  if (nowMs - since < target.failingAfterMs) return null;
  if (health.incidentId && health.incidentReason === failure.code) return null;
  const queryId = sourceStreamId(target.sourceId);
  const label = sourceLabel(target.sourceId, target.workspace);
  const stream: StreamInfo = { queryId, name: label, source: target.sourceId, ...(target.workspace ? { workspace: target.workspace } : {}) };
  // The streak's start is the incident's opening: the same id whoever opens it (a retried or a
  // concurrent poll commits the same record).
  const incident = unreadable(label, failure, since);
  const change: IncidentChange = health.incidentId
    ? { type: 'updated', queryId, queryName: label, incident }
    : { type: 'opened', queryId, queryName: label, incident };
  if (!health.incidentId) await store.streams.upsert(stream, nowMs);
  await store.queries.commitChanges(queryId, [change], nowMs);
  await store.sources.markIncident(target.sourceId, incidentIdOf(queryId, incident), failure.code);
  return queryId;
}

/**
 * Records a successful poll; resolves the streak's incident if one is open. Returns the stream id
 * whose outbox got an intent, or null. `lastSuccessAt` is the previous success (for the gauge).
 */
export async function recordReadSuccess(store: RedisStore, sourceId: string, nowMs: number): Promise<string | null> {
  const before = await store.sources.recordSuccess(sourceId, nowMs);
  if (!before.incidentId) return null;
  const queryId = sourceStreamId(sourceId);
  const record = await store.incidents.get(before.incidentId);
  if (record && record.state === 'open') {
    const resolvedAt = new Date(Math.max(nowMs, record.openedAt)).toISOString();
    await store.queries.commitChanges(queryId, [{ type: 'resolved', queryId, queryName: record.queryName, incident: { ...record.incident, resolvedAt } }], nowMs);
  }
  await store.sources.endStreak(sourceId);
  return record && record.state === 'open' ? queryId : null;
}
