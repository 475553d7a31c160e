/**
 * `/stream status` as a person reads it: a stalled stream says it is silent rather than a time
 * behind from its last report, a stream with an open incident is never shown 🟢, and the summary
 * line is grammatical for one and many.
 */
import { describe, expect, it } from 'vitest';
import type { IncidentRecord, StreamRecord } from '../../src/store/types.js';
import { toStreamView } from '../../src/slack/operations/stream-views.js';
import { healthSummary, streamLine } from '../../src/slack/render/status-table.js';
import { LAG_INCIDENT, NOW } from './helpers/incidents.js';

const QID = '8b1f2c3d-4e5f-4a6b-9c7d-000000000001';
const MIN = 60_000;

function streamRecord(snapshot: Partial<NonNullable<StreamRecord['snapshot']>>, health: StreamRecord['health'] = 'ok'): StreamRecord {
  return {
    queryId: QID,
    name: 'orders-enrich',
    snapshot: { health, timeBehindSec: null, lastProgressAt: new Date(NOW - MIN).toISOString(), ...snapshot },
    health,
    updatedAt: NOW,
    lastRunId: null,
    lastObservedBatchId: null,
    lastObservedAt: null,
    observedCount: 10,
  } as unknown as StreamRecord;
}

function openIncident(kind: IncidentRecord['kind'], severity: 'warning' | 'critical'): IncidentRecord {
  return {
    id: `${QID}.${kind}.1`,
    queryId: QID,
    queryName: 'orders-enrich',
    kind,
    state: 'open',
    incident: { ...LAG_INCIDENT, kind, severity },
    version: 1,
    acknowledgedBy: null,
    acknowledgedAt: null,
    slack: null,
    channel: null,
    openedAt: NOW - 20 * MIN,
    resolvedAt: null,
    groupId: null,
    notifiedVersion: 1,
    resolvedBy: null,
  };
}

describe('status line', () => {
  it('a stalled stream says it is silent, not the time behind of its last report', () => {
    const record = streamRecord({ timeBehindSec: 10, lastProgressAt: new Date(NOW - 16 * MIN).toISOString() }, 'critical');
    const line = streamLine(toStreamView(record, [openIncident('stalled', 'critical')]), NOW);
    expect(line).not.toContain('10s behind');
    expect(line).toContain('silent: no progress for 16m');
    expect(line).toContain('time behind unknown');
    expect(line.match(/16m/g)).toHaveLength(1);
  });

  it('a stream with an open incident is not shown 🟢 whatever its last snapshot said', () => {
    const record = streamRecord({ timeBehindSec: 2_400 }, 'ok');
    const line = streamLine(toStreamView(record, [openIncident('lag', 'warning')]), NOW);
    expect(line.startsWith('🟠')).toBe(true);
    expect(streamLine(toStreamView(record, [openIncident('lag', 'critical')]), NOW).startsWith('🔴')).toBe(true);
    // Without an incident the snapshot's health stands.
    expect(streamLine(toStreamView(record, []), NOW).startsWith('🟢')).toBe(true);
  });

  it('counts health grammatically for one and many', () => {
    expect(healthSummary([{ queryId: 'a', health: 'warning' }])).toBe('🟠 1 warning');
    expect(healthSummary([{ queryId: 'a', health: 'warning' }, { queryId: 'b', health: 'warning' }])).toBe('🟠 2 warnings');
    expect(healthSummary([{ queryId: 'a', health: 'critical' }, { queryId: 'b', health: 'critical' }, { queryId: 'c', health: 'ok' }])).toBe('🔴 2 critical · 🟢 1 ok');
  });
});
