import { describe, expect, it } from 'vitest';
import { incidentIdFromBlockId, renderIncidentMessage } from '../../src/slack/render/incident-message.js';
import { renderResolvedReply } from '../../src/slack/render/incident-thread.js';
import { renderAdviceMessage, renderAdviceModal } from '../../src/slack/render/advice.js';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import { blockKitViolations, blockText, hasRawInjection } from './helpers/block-kit-limits.js';
import { LAG_INCIDENT, NOW, lagRecord, stateRecord } from './helpers/incidents.js';

const RUN_URL = 'https://adb-1234567890123456.7.azuredatabricks.net/jobs/812/runs/99120';

function actions(blocks: ReturnType<typeof renderIncidentMessage>['blocks']) {
  const block = blocks.find((candidate) => candidate.type === 'actions');
  return block && block.type === 'actions' ? block : null;
}

describe('renderIncidentMessage', () => {
  it('shows the query, kind, key numbers, top causes, first advice and all four controls', () => {
    const message = renderIncidentMessage(lagRecord(), { nowMs: NOW, databricksUrl: RUN_URL });
    const text = blockText(message.blocks);
    expect(message.blocks[0]).toMatchObject({ type: 'header', text: { text: '🔴 Falling behind · orders-enrich' } });
    expect(text).toContain('14m 20s · +38s/min (growing)');
    expect(text).toContain('not draining at current rates');
    expect(text).toContain('48s vs 30s trigger (159%)');
    expect(text).toContain('58.7K rows/s vs 41.2K rows/s');
    expect(text).toContain('Retention breach*\nin ~12h 40m');
    expect(text).toContain('Not enough processing capacity* (82%)');
    expect(text).toContain('Bounded by Kafka partitions');
    expect(text).not.toContain('batches of 1.97M rows'); // 4th cause cut
    expect(text).toContain('1 more cause not shown');
    expect(text).toContain('`maxOffsetsPerTrigger = 1100000`');
    expect(text).toContain('2 more in Tuning advice');
    const buttons = actions(message.blocks)!;
    expect(buttons.elements.map((element) => element.action_id)).toEqual([
      ACTION_IDS.acknowledge,
      ACTION_IDS.silence,
      ACTION_IDS.tuningAdvice,
      ACTION_IDS.openDatabricks,
    ]);
    expect(incidentIdFromBlockId(buttons.block_id)).toBe(lagRecord().id);
    const select = buttons.elements[1] as { options: { value: string; text: { text: string } }[] };
    expect(select.options.map((option) => option.value)).toEqual(['1800000', '7200000', '28800000', '86400000']);
    expect(message.text).toContain('[critical] orders-enrich: Falling behind');
    expect(blockKitViolations(message.blocks)).toEqual([]);
  });

  it('shows who acknowledged and when, and offers Unacknowledge instead', () => {
    const message = renderIncidentMessage(lagRecord({ acknowledgedBy: 'U024BE7LH', acknowledgedAt: NOW - 60_000 }), { nowMs: NOW });
    const text = blockText(message.blocks);
    expect(message.blocks[0]).toMatchObject({ text: { text: expect.stringMatching(/^🟡 /) } });
    expect(text).toContain('Acknowledged by <@U024BE7LH> <!date^');
    const ids = actions(message.blocks)!.elements.map((element) => element.action_id);
    expect(ids).toContain(ACTION_IDS.unacknowledge);
    expect(ids).not.toContain(ACTION_IDS.acknowledge);
    expect(ids).not.toContain(ACTION_IDS.openDatabricks); // no URL known
  });

  it('shows a silence with its end and an Unsilence button', () => {
    const message = renderIncidentMessage(lagRecord(), { nowMs: NOW, silencedUntilMs: NOW + 7_200_000, silencedBy: 'U1ALICE' });
    expect(message.blocks[0]).toMatchObject({ text: { text: expect.stringMatching(/^🔕 /) } });
    expect(blockText(message.blocks)).toContain('Silenced until <!date^');
    const ids = actions(message.blocks)!.elements.map((element) => element.action_id);
    expect(ids).toContain(ACTION_IDS.unsilence);
    expect(ids).not.toContain(ACTION_IDS.silence);
    // An expired silence no longer shows.
    const expired = renderIncidentMessage(lagRecord(), { nowMs: NOW, silencedUntilMs: NOW - 1 });
    expect(expired.blocks[0]).toMatchObject({ text: { text: expect.stringMatching(/^🔴 /) } });
  });

  it('renders the resolved state with the duration and without ack or silence controls', () => {
    const resolvedAt = Date.parse('2026-11-29T08:54:30.000Z');
    const record = lagRecord({ state: 'resolved', resolvedAt, incident: { ...LAG_INCIDENT, resolvedAt: new Date(resolvedAt).toISOString(), resolvedAtBatchId: 18501 } });
    const message = renderIncidentMessage(record, { nowMs: NOW, databricksUrl: RUN_URL });
    expect(message.blocks[0]).toMatchObject({ text: { text: '🟢 Resolved: Falling behind · orders-enrich' } });
    expect(blockText(message.blocks)).toContain('lasted 42m');
    const ids = actions(message.blocks)!.elements.map((element) => element.action_id);
    expect(ids).toEqual([ACTION_IDS.tuningAdvice, ACTION_IDS.openDatabricks]);
    expect(renderResolvedReply(record, NOW).text).toBe('Resolved after 42m');
  });

  it('escapes names and evidence from Databricks and never lets them ping or link', () => {
    const hostile = lagRecord({
      queryName: '<!channel> orders & <https://evil.example|click>',
      incident: {
        ...LAG_INCIDENT,
        summary: 'behind <!here> by <@U0EVIL>',
        causes: [{ code: 'slow_sink', confidence: 0.9, evidence: 'sink <https://evil.example> & <!everyone>' }],
        advice: [{ text: 'set `x` <!channel>', setting: 'a`b', value: '<1>' }],
      },
    });
    const message = renderIncidentMessage(hostile, { nowMs: NOW, databricksUrl: 'javascript:alert(1)' });
    // Plain text (header, buttons) is never parsed by Slack; mrkdwn must be escaped.
    const text = blockText(message.blocks, 'mrkdwn');
    expect(hasRawInjection(text)).toBe(false);
    expect(hasRawInjection(message.text)).toBe(false);
    expect(text).toContain('&lt;!here&gt;');
    expect(actions(message.blocks)!.elements.map((element) => element.action_id)).not.toContain(ACTION_IDS.openDatabricks);
  });

  it('keeps a storm of 120 streams in one message within Block Kit limits', () => {
    const grouped = Array.from({ length: 120 }, (_, index) =>
      stateRecord({ id: `q${index}.state_growth.1`, queryId: `q${index}`, queryName: `pipeline-${index}-${'x'.repeat(80)}` }),
    );
    const message = renderIncidentMessage(lagRecord({ queryName: 'n'.repeat(400) }), { nowMs: NOW, grouped });
    expect(blockKitViolations(message.blocks)).toEqual([]);
    expect(blockText(message.blocks)).toContain('110 more streams not shown');
    expect(message.text.length).toBeLessThanOrEqual(3000);
  });
});

describe('tuning advice', () => {
  it('lists every cause with evidence and every advice item with its setting', () => {
    const message = renderAdviceMessage(lagRecord(), { nowMs: NOW, databricksUrl: RUN_URL });
    const text = blockText(message.blocks);
    for (const cause of LAG_INCIDENT.causes) expect(text).toContain(cause.evidence);
    expect(text).toContain('*1.* Cap each batch');
    expect(text).toContain('`spark.executor.instances = 12`');
    expect(text).toContain('*3.* Increase the Kafka topic to 48 partitions');
    expect(blockKitViolations(message.blocks)).toEqual([]);
    const modal = renderAdviceModal(lagRecord(), { nowMs: NOW });
    expect(modal.title.text.length).toBeLessThanOrEqual(24);
    expect(blockKitViolations(modal.blocks as never, 100)).toEqual([]);
    expect(JSON.parse(modal.private_metadata!)).toEqual({ incidentId: lagRecord().id });
  });
});
