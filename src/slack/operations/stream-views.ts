/** Store records → what the renderers read. */
import type { Health } from '../../diagnosis/types.js';
import type { IncidentRecord, SilenceRecord, StreamRecord } from '../../store/types.js';
import type { StatusStreamView } from '../render/status-table.js';
import { databricksUrlFor } from './databricks-url.js';

/**
 * The snapshot's health, raised to the worst open incident's severity: the snapshot is the last
 * batch's view (right after a stall resolves it may read ok while the lag it left is still open).
 */
function healthWith(health: Health, open: IncidentRecord[]): Health {
  if (open.some((record) => record.incident.severity === 'critical')) return 'critical';
  if (open.length > 0 && health !== 'critical') return 'warning';
  return health;
}

export function toStreamView(stream: StreamRecord, incidents: IncidentRecord[] = [], silence?: SilenceRecord | null): StatusStreamView {
  const open = incidents.filter((record) => record.queryId === stream.queryId && record.state === 'open');
  return {
    queryId: stream.queryId,
    name: stream.name,
    health: healthWith(stream.snapshot?.health ?? stream.health, open),
    timeBehindSec: stream.snapshot?.timeBehindSec ?? null,
    timeBehindEstimated: stream.snapshot?.timeBehindEstimated ?? false,
    filesWaiting: stream.snapshot?.filesWaiting ?? null,
    filesWaitingTrendPerMin: stream.snapshot?.filesWaitingTrendPerMin ?? null,
    backlogUnreported: stream.snapshot?.backlogUnreported ?? false,
    batchDurationMs: stream.snapshot?.batchDurationMs ?? null,
    triggerMs: stream.snapshot?.triggerMs ?? null,
    stateRows: stream.snapshot?.stateRows ?? null,
    lastProgressAt: stream.snapshot?.lastProgressAt ?? stream.lastObservedAt ?? null,
    lastBatchId: stream.snapshot?.lastBatchId ?? null,
    runPageUrl: databricksUrlFor(stream),
    silencedUntilMs: silence?.untilMs ?? null,
    openIncidents: open.length,
    stalled: open.some((record) => record.kind === 'stalled'),
  };
}
