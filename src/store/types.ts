/**
 * Records the store keeps. All of them are plain JSON-able values; the store owns their Redis
 * encoding. Times are epoch milliseconds unless the name says otherwise.
 */
import type { Health, Incident, IncidentKind } from '../diagnosis/types.js';

/** Latest key numbers of one query (QueryTracker.snapshot(), stored as the engine gives it). */
export interface StreamSnapshot {
  timeBehindSec: number | null;
  batchDurationMs: number | null;
  triggerMs: number | null;
  stateRows: number | null;
  health: Health;
  /** ISO time (engine) or epoch ms. */
  lastProgressAt: string | number | null;
  lastBatchId: number | null;
  arrivalRate?: number | null;
  processingRate?: number | null;
  /** Engine QuerySnapshot extras (Delta / Auto Loader): see src/diagnosis/types.ts. */
  timeBehindEstimated?: boolean;
  filesWaiting?: number | null;
  filesWaitingTrendPerMin?: number | null;
  backlogUnreported?: boolean;
}

/** Where a stream comes from and how to link to it. */
export interface StreamInfo {
  queryId: string;
  name: string | null;
  /** Id of the progress source that reports it (poll job key). */
  source?: string;
  /** The watch file's name of its Databricks workspace (which client reads its jobs). */
  workspace?: string;
  /** Origin of that workspace (`https://adb-….azuredatabricks.net`), for links to its jobs and pipelines. */
  workspaceUrl?: string;
  jobId?: string;
  pipelineId?: string;
  runPageUrl?: string;
}

/** A registered stream with its latest snapshot. */
export interface StreamRecord extends StreamInfo {
  snapshot: StreamSnapshot | null;
  health: Health;
  /** When the registry entry was last written. */
  updatedAt: number;
  /** runId and batchId of the last progress the engine observed (duplicate guard). */
  lastRunId: string | null;
  lastObservedBatchId: number | null;
  lastObservedAt: number | null;
  /** Progress events the engine observed for this stream, ever (each exactly once). */
  observedCount: number;
}

export type IncidentState = 'open' | 'resolved';

export interface SlackRef {
  channel: string;
  ts: string;
}

export interface IncidentRecord {
  /** Deterministic: `<queryId>.<kind>.<openedAtMs>`; no ':' so it can be part of a BullMQ job id. */
  id: string;
  queryId: string;
  queryName: string | null;
  kind: IncidentKind;
  state: IncidentState;
  incident: Incident;
  /** Bumped by every change (engine or user); notify jobs render the latest version. */
  version: number;
  acknowledgedBy: string | null;
  acknowledgedAt: number | null;
  /** Where the incident's message lives, once posted. */
  slack: SlackRef | null;
  /** Channel the incident is routed to (fixed when it opens). */
  channel: string | null;
  openedAt: number;
  resolvedAt: number | null;
  /** Storm group the incident belongs to, when it opened inside an alert storm. */
  groupId: string | null;
  /** Version last rendered to Slack. */
  notifiedVersion: number;
  /** Set by a person from Slack (resolve button), as opposed to the engine. */
  resolvedBy: string | null;
}

export interface SilenceRecord {
  queryId: string;
  untilMs: number;
  byUser: string;
  createdAt: number;
}

/** Routing targets: a query, a Databricks job or a Lakeflow pipeline. */
export type RouteScope = 'query' | 'job' | 'pipeline';

export interface RouteRule {
  scope: RouteScope;
  id: string;
  channel: string;
}

/** Defaults from the watch file; Slack `watch` overrides stored in Redis win over them. */
export interface RoutingDefaults {
  queries?: Record<string, string>;
  jobs?: Record<string, string>;
  pipelines?: Record<string, string>;
  /** Channel for everything not matched. */
  defaultChannel?: string | null;
}

export interface TimeBehindSample {
  /** Start of the bucket. */
  atMs: number;
  /** Maximum time behind seen in the bucket, seconds. */
  timeBehindSec: number;
}

export interface ChannelIncidentEntry {
  incidentId: string;
  queryId: string;
  openedAt: number;
}

/** A grouped storm message: one Slack message listing many incidents of one channel. */
export interface StormGroup {
  id: string;
  channel: string;
  openedAt: number;
  incidentIds: string[];
  /** The member whose first message the group took over (null: the group posted its own). */
  anchorId: string | null;
  version: number;
  slack: SlackRef | null;
  notifiedVersion: number;
}
