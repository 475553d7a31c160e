/** Store records → what the renderers read. */
import type { IncidentRecord, SilenceRecord, StreamRecord } from '../../store/types.js';
import type { StreamView } from '../render/types.js';
import { databricksUrlFor } from './databricks-url.js';

export function toStreamView(stream: StreamRecord, incidents: IncidentRecord[] = [], silence?: SilenceRecord | null): StreamView {
  return {
    queryId: stream.queryId,
    name: stream.name,
    health: stream.snapshot?.health ?? stream.health,
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
    openIncidents: incidents.filter((record) => record.queryId === stream.queryId && record.state === 'open').length,
  };
}
