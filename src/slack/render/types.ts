/**
 * What the renderers read. Structural, so the store's records (src/store/) fit without copying:
 * times are epoch ms or ISO strings, optional fields may be absent or null.
 */
import type { Health, Incident, IncidentKind } from '../../diagnosis/types.js';

export type TimeValue = number | string;

export interface IncidentRecordView {
  id: string;
  queryId: string;
  queryName?: string | null;
  kind: IncidentKind | string;
  state: 'open' | 'resolved';
  incident: Incident;
  acknowledgedBy?: string | null;
  acknowledgedAt?: TimeValue | null;
  openedAt: TimeValue;
  resolvedAt?: TimeValue | null;
  groupId?: string | null;
  /** A storm group's other member whose stream is silenced: until when (the group lists it so). */
  silencedUntilMs?: number | null;
}

/** One stream as the status table and the digest list it. */
export interface StreamView {
  queryId: string;
  name?: string | null;
  health?: Health | string | null;
  timeBehindSec?: number | null;
  /** `timeBehindSec` is estimated from files (Auto Loader). */
  timeBehindEstimated?: boolean;
  /** Delta / Auto Loader files outstanding, and their growth per minute (shown when time behind is unknown). */
  filesWaiting?: number | null;
  filesWaitingTrendPerMin?: number | null;
  /** Capped, and the reports carry no backlog figure (see QuerySnapshot.backlogUnreported). */
  backlogUnreported?: boolean;
  batchDurationMs?: number | null;
  triggerMs?: number | null;
  stateRows?: number | null;
  lastProgressAt?: TimeValue | null;
  lastBatchId?: number | null;
  runPageUrl?: string | null;
  silencedUntilMs?: number | null;
  openIncidents?: number;
}

export interface RenderedMessage {
  text: string;
  blocks: import('@slack/types').KnownBlock[];
}
