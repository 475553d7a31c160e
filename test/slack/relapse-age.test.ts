/**
 * An incident that relapsed: opened 10:00, resolved 10:30, back within the cool-down at 12:00 as the
 * same incident (same id, same message). Its age counts from the re-opening: at 12:10 it has been open
 * for 10 minutes, not 2h 10m (the 1h 30m it spent resolved is no time open); the first opening is
 * said beside it.
 */
import { describe, expect, it } from 'vitest';
import { renderAppHome } from '../../src/slack/render/app-home.js';
import { renderDigest } from '../../src/slack/render/digest.js';
import { renderIncidentMessage } from '../../src/slack/render/incident-message.js';
import { renderResolvedReply } from '../../src/slack/render/incident-thread.js';
import type { IncidentRecordView } from '../../src/slack/render/types.js';
import { blockText } from './helpers/block-kit-limits.js';
import { LAG_INCIDENT, lagRecord } from './helpers/incidents.js';

const FIRST = Date.parse('2026-11-29T10:00:00Z');
const BACK = Date.parse('2026-11-29T12:00:00Z');
const NOW = Date.parse('2026-11-29T12:10:00Z');
const RESOLVED = Date.parse('2026-11-29T12:40:00Z');

const date = (ms: number, format = '{date_short_pretty} {time}'): string => `<!date^${ms / 1000}^${format}|`;

/** As the store holds it after the relapse: openedAt is the first opening (the id's time). */
function relapsed(overrides: Partial<IncidentRecordView> = {}): IncidentRecordView {
  return lagRecord({
    openedAt: FIRST,
    incident: { ...LAG_INCIDENT, openedAt: new Date(FIRST).toISOString(), relapses: 1, relapsedAt: new Date(BACK).toISOString(), figuresAt: new Date(BACK).toISOString() },
    ...overrides,
  });
}

function resolvedAgain(): IncidentRecordView {
  const record = relapsed({ state: 'resolved', resolvedAt: RESOLVED });
  return { ...record, incident: { ...record.incident, resolvedAt: new Date(RESOLVED).toISOString(), resolvedAtBatchId: 18_900 } };
}

describe('a relapsed incident', () => {
  it('App Home: open since it re-opened, with its first opening', () => {
    const text = blockText(renderAppHome({ userId: 'U024BE7LH', nowMs: NOW, openIncidents: [{ ...relapsed(), channel: 'C0DATAALRT' }], silences: [], watches: [] }).blocks as never);
    expect(text).toContain(`\`orders-enrich\` · Falling behind · re-opened 10m ago, first opened ${date(FIRST)}`);
    expect(text).not.toContain('2h 10m');
  });

  it('digest: open since it re-opened; resolved, lasted since it re-opened', () => {
    const open = blockText(renderDigest({ channelLabel: '#data-alerts', nowMs: NOW, streams: [], incidents: [relapsed()] }).blocks);
    expect(open).toContain(`🔴 \`orders-enrich\` · Falling behind · re-opened 10m ago, first opened ${date(FIRST)}`);
    expect(open).not.toContain('open for');
    // Both times within the digest's 24 hours: the time alone.
    const resolved = blockText(renderDigest({ channelLabel: '#data-alerts', nowMs: RESOLVED + 60_000, streams: [], incidents: [resolvedAgain()] }).blocks);
    expect(resolved).toContain(`🟢 \`orders-enrich\` · Falling behind · lasted 40m · re-opened ${date(BACK, '{time}')}`);
    expect(resolved).toContain(`, first opened ${date(FIRST, '{time}')}`);
  });

  it('digest: sorts a relapse among the newest by its re-opening, not its first opening', () => {
    // Opened at 11:00, after the relapse's first opening (10:00) and before its re-opening (12:00).
    const between = lagRecord({ id: 'b2-payments.lag.1', queryId: 'b2c3d4e5-0000-4000-8000-000000000002', queryName: 'payments', openedAt: Date.parse('2026-11-29T11:00:00Z'), incident: { ...LAG_INCIDENT, openedAt: '2026-11-29T11:00:00.000Z' } });
    const text = blockText(renderDigest({ channelLabel: '#data-alerts', nowMs: NOW, streams: [], incidents: [between, relapsed()] }).blocks);
    expect(text.indexOf('`orders-enrich`')).toBeGreaterThanOrEqual(0);
    expect(text.indexOf('`orders-enrich`')).toBeLessThan(text.indexOf('`payments`'));
  });

  it('alert: says when it re-opened, and lasted counts from then', () => {
    const open = blockText(renderIncidentMessage(relapsed(), { nowMs: NOW }).blocks);
    expect(open).toContain(`opened ${date(FIRST)}`);
    expect(open).toContain(`re-opened ${date(BACK)}`);
    // The figures are the re-opening's own, not told again since.
    expect(open).not.toContain('figures as of');
    const resolved = blockText(renderIncidentMessage(resolvedAgain(), { nowMs: RESOLVED }).blocks);
    expect(resolved).toContain(`re-opened ${date(BACK)}`);
    expect(resolved).toContain('lasted 40m');
    expect(resolved).not.toContain('2h 40m');
  });

  it('alert: a third return says how many times', () => {
    const record = relapsed();
    const text = blockText(renderIncidentMessage({ ...record, incident: { ...record.incident, relapses: 3 } }, { nowMs: NOW }).blocks);
    expect(text).toContain(`re-opened ${date(BACK)}`);
    expect(text).toContain('(came back 3 times)');
  });

  it('thread: the resolve reply under "Back" counts from the re-opening', () => {
    const reply = renderResolvedReply(resolvedAgain(), RESOLVED);
    expect(reply.text).toBe('Resolved 40m after re-opening');
    expect(blockText(reply.blocks)).toContain('🟢 *Resolved* *40m* after re-opening (Falling behind).');
  });

  it('a re-opening that is not after the first opening is not believed', () => {
    const record = relapsed();
    const odd = { ...record, incident: { ...record.incident, relapsedAt: new Date(FIRST - 60_000).toISOString() } };
    expect(blockText(renderDigest({ channelLabel: '#data-alerts', nowMs: NOW, streams: [], incidents: [odd] }).blocks)).toContain('open for 2h 10m');
  });
});
