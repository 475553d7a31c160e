/**
 * Every incident the engine finds in the labelled scenario corpus renders as an alert, an advice
 * message and modal, and in a digest, within Block Kit limits and with everything escaped.
 */
import { describe, expect, it } from 'vitest';
import { diagnose } from '../../src/diagnosis/engine.js';
import type { Incident } from '../../src/diagnosis/types.js';
import { parseProgress } from '../../src/progress/parse-progress.js';
import { SCENARIOS, simulateScenario } from '../../src/simulator/index.js';
import { formatRate } from '../../src/slack/format.js';
import { renderAdviceMessage, renderAdviceModal } from '../../src/slack/render/advice.js';
import { renderDiagnoseReport } from '../../src/slack/render/diagnose-report.js';
import { renderDigest } from '../../src/slack/render/digest.js';
import { renderIncidentMessage } from '../../src/slack/render/incident-message.js';
import type { IncidentRecordView } from '../../src/slack/render/types.js';
import { blockKitViolations, blockText } from './helpers/block-kit-limits.js';

function engineIncidents(): { scenario: string; queryId: string; name: string; incident: Incident; nowMs: number }[] {
  const out: { scenario: string; queryId: string; name: string; incident: Incident; nowMs: number }[] = [];
  for (const scenario of SCENARIOS) {
    const progress = simulateScenario(scenario).flatMap((batch) => {
      const parsed = parseProgress(JSON.parse(batch.json));
      return parsed.ok ? [parsed.progress] : [];
    });
    const last = progress[progress.length - 1]!;
    const nowMs = last.timestampMs + last.batchDurationMs + (scenario.nowAfterLastMs ?? 0);
    const output = diagnose(progress, { ...scenario.engine, nowMs });
    for (const query of output.queries) for (const incident of query.incidents) out.push({ scenario: scenario.name, queryId: query.id, name: query.name ?? query.id, incident, nowMs });
  }
  return out;
}

describe('rendering real engine output', () => {
  const found = engineIncidents();

  it('finds incidents of several kinds in the corpus', () => {
    const kinds = new Set(found.map((entry) => entry.incident.kind));
    expect(found.length).toBeGreaterThan(10);
    expect(kinds.has('lag')).toBe(true);
    expect(kinds.size).toBeGreaterThanOrEqual(3);
  });

  it('renders every incident within Block Kit limits, with its numbers, causes and advice', () => {
    for (const entry of found) {
      const record: IncidentRecordView = {
        id: `${entry.queryId}.${entry.incident.kind}.${Date.parse(entry.incident.openedAt)}`,
        queryId: entry.queryId,
        queryName: entry.name,
        kind: entry.incident.kind,
        state: entry.incident.resolvedAt ? 'resolved' : 'open',
        incident: entry.incident,
        openedAt: entry.incident.openedAt,
        resolvedAt: entry.incident.resolvedAt,
      };
      const alert = renderIncidentMessage(record, { nowMs: entry.nowMs, databricksUrl: 'https://adb-1.azuredatabricks.net/jobs/1/runs/2' });
      expect(blockKitViolations(alert.blocks), `${entry.scenario}: alert`).toEqual([]);
      const body = blockText(alert.blocks);
      expect(body).toContain(entry.name);
      if (entry.incident.metrics?.timeBehindSec != null) expect(body, entry.scenario).toContain('*Time behind*');
      const topCause = [...entry.incident.causes].sort((a, b) => b.confidence - a.confidence)[0];
      if (topCause) expect(body, entry.scenario).toContain(topCause.evidence.slice(0, 20).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));
      const advice = renderAdviceMessage(record, { nowMs: entry.nowMs });
      expect(blockKitViolations(advice.blocks), `${entry.scenario}: advice`).toEqual([]);
      expect(blockKitViolations(renderAdviceModal(record, { nowMs: entry.nowMs }).blocks as never, 100)).toEqual([]);
      expect(alert.text.length).toBeLessThanOrEqual(3000);
    }
  });

  it('every number in an alert and its advice reads in one style (counts, rates, bytes)', () => {
    let rates = 0;
    for (const entry of found) {
      const record: IncidentRecordView = {
        id: `${entry.queryId}.${entry.incident.kind}`,
        queryId: entry.queryId,
        queryName: entry.name,
        kind: entry.incident.kind,
        state: 'open',
        incident: entry.incident,
        openedAt: entry.incident.openedAt,
        resolvedAt: null,
      };
      const alert = renderIncidentMessage(record, { nowMs: entry.nowMs });
      const advice = renderAdviceMessage(record, { nowMs: entry.nowMs });
      const text = `${alert.text}\n${blockText(alert.blocks)}\n${blockText(advice.blocks)}`;
      // Lower-case count suffixes, decimal byte labels, rates without their unit.
      expect(text.match(/\d(?:k|[KMGT]B)\b/g) ?? [], entry.scenario).toEqual([]);
      expect(text.match(/\d[KMBT]?\/s\b/g) ?? [], entry.scenario).toEqual([]);
      expect(text, entry.scenario).not.toMatch(/rows\/s per second/);
      const arrival = entry.incident.metrics?.arrivalRate;
      if (arrival != null && entry.incident.causes.some((c) => /\d[KMB]? rows\/s arrive/.test(c.evidence))) {
        // The evidence (judged when the cause was found) and the fields (latest) print rates alike.
        const style = /^\d+(?:\.\d+)?[KMB]? rows\/s$/;
        expect(formatRate(arrival)).toMatch(style);
        // Arrivals stand alone when processing is not known (a data-loss risk reports none).
        expect(text, entry.scenario).toMatch(new RegExp(`\\*Arriving( vs processed)?\\*\\n${formatRate(arrival).replace('.', '\\.')}`));
        const inEvidence = /(\S+ rows\/s) arrive/.exec(entry.incident.causes.map((c) => c.evidence).join(' '))![1]!;
        expect(inEvidence, entry.scenario).toMatch(style);
        rates += 1;
      }
    }
    expect(rates).toBeGreaterThan(3);
  });

  it('puts the whole corpus in one digest and one diagnose report within limits', () => {
    const records = found.map((entry, index) => ({
      id: `i${index}`,
      queryId: entry.queryId,
      queryName: entry.name,
      kind: entry.incident.kind,
      state: (entry.incident.resolvedAt ? 'resolved' : 'open') as 'open' | 'resolved',
      incident: entry.incident,
      openedAt: entry.nowMs - 3_600_000,
      resolvedAt: entry.incident.resolvedAt ? entry.nowMs - 60_000 : null,
    }));
    const nowMs = Math.max(...found.map((entry) => entry.nowMs));
    const digest = renderDigest({ channelLabel: '#data-alerts', nowMs, streams: [], incidents: records });
    expect(blockKitViolations(digest.blocks)).toEqual([]);
    const report = renderDiagnoseReport(
      { queries: found.map((entry) => ({ id: entry.queryId, name: entry.name, health: entry.incident.severity, incidents: [entry.incident] })) },
      { nowMs, records: 1000, warnings: [], inputLabel: 'corpus' },
    );
    expect(blockKitViolations(report.blocks)).toEqual([]);
  });
});
