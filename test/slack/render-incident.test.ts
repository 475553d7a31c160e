import { describe, expect, it } from 'vitest';
import { incidentIdFromBlockId, renderIncidentMessage } from '../../src/slack/render/incident-message.js';
import { renderAckReply, renderResolvedReply, renderSilenceReply } from '../../src/slack/render/incident-thread.js';
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

  it('says of when the figures of an alert open a while are, not once resolved or when they are the opening ones', () => {
    const openedMs = Date.parse(LAG_INCIDENT.openedAt);
    const figuresAt = new Date(openedMs + 47 * 60_000).toISOString();
    const asOf = `figures as of <!date^${Math.floor((openedMs + 47 * 60_000) / 1000)}^`;
    expect(blockText(renderIncidentMessage(lagRecord({ incident: { ...LAG_INCIDENT, figuresAt } }), { nowMs: NOW }).blocks)).toContain(asOf);
    expect(blockText(renderIncidentMessage(lagRecord({ incident: { ...LAG_INCIDENT, figuresAt: LAG_INCIDENT.openedAt } }), { nowMs: NOW }).blocks)).not.toContain('figures as of');
    const resolvedAt = openedMs + 50 * 60_000;
    const resolved = lagRecord({ state: 'resolved', resolvedAt, incident: { ...LAG_INCIDENT, figuresAt, resolvedAt: new Date(resolvedAt).toISOString() } });
    expect(blockText(renderIncidentMessage(resolved, { nowMs: NOW }).blocks)).not.toContain('figures as of');
  });

  it('says the heading once: a summary that opens with it is shown without it, in the message and its preview', () => {
    const record = lagRecord({ incident: { ...LAG_INCIDENT, summary: 'Falling behind: 14m 20s of data waiting, growing 38s per minute' } });
    const message = renderIncidentMessage(record, { nowMs: NOW });
    expect(message.blocks[1]).toMatchObject({ text: { text: expect.stringMatching(/^14m 20s of data waiting, growing 38s per minute\n/) } });
    expect(message.text).toContain('orders-enrich: Falling behind. 14m 20s of data waiting');
    expect(message.text).not.toContain('Falling behind. Falling behind');
    const advice = blockText(renderAdviceMessage(record, { nowMs: NOW }).blocks);
    expect(advice).toContain('*Falling behind* (critical): 14m 20s of data waiting');
  });

  it('heads a catch-up after a stall "Catching up", with its drain ETA, and names the stall incident it follows', () => {
    const stallOpenedAt = '2026-11-29T08:10:00.000Z';
    const record = lagRecord({
      incident: {
        ...LAG_INCIDENT,
        summary: 'Catching up after a 40m stall (a batch hung from 08:05 UTC, reported as stalled): 9m 06s of data waiting, about 7m 31s to drain',
        metrics: { timeBehindSec: 546, drainEtaSec: 451, batchDurationMs: 524_000, triggerIntervalMs: 10_000 },
        aftermath: { what: 'stall', startedAt: '2026-11-29T08:05:00.000Z', durationMs: 2_400_000, stallOpenedAt },
      },
    });
    const message = renderIncidentMessage(record, { nowMs: NOW });
    const text = blockText(message.blocks);
    expect(message.blocks[0]).toMatchObject({ text: { text: '🔴 Catching up · orders-enrich' } });
    expect(message.text).toContain('orders-enrich: Catching up. Catching up after a 40m stall');
    expect(text).toContain('*Drain ETA*\n~7m 31s');
    // A batch 52 trigger intervals long reads as a multiple, not 5240%.
    expect(text).toContain('*Batch duration*\n8m 44s, 52× the 10s trigger');
    expect(text).toContain(`Follows stall incident \`${record.queryId}.stalled.${Date.parse(stallOpenedAt)}\``);
    expect(blockText(renderAdviceMessage(record, { nowMs: NOW }).blocks)).toContain('Follows stall incident');
    // With the stall alert's link (notify asks Slack for it), one click reaches its thread.
    const linked = blockText(renderIncidentMessage(record, { nowMs: NOW, stallUrl: 'https://acme.slack.com/archives/C0DATAALRT/p1764404000000100' }).blocks);
    expect(linked).toContain(`Follows the <https://acme.slack.com/archives/C0DATAALRT/p1764404000000100|stall alert> (incident \`${record.queryId}.stalled.${Date.parse(stallOpenedAt)}\`)`);
    expect(blockText(renderIncidentMessage(record, { nowMs: NOW, stallUrl: 'javascript:alert(1)' }).blocks)).toContain('Follows stall incident');
    // Once the summary reads it as lag with its own cause, the heading follows.
    const later = renderIncidentMessage({ ...record, incident: { ...record.incident, summary: 'Falling behind: every batch has read the cap' } }, { nowMs: NOW });
    expect(later.blocks[0]).toMatchObject({ text: { text: '🔴 Falling behind · orders-enrich' } });
  });

  it('shows arrivals alone when processing is not known, never "n/a"', () => {
    const record = lagRecord({ incident: { ...LAG_INCIDENT, metrics: { arrivalRate: 21_100, timeBehindSec: 678 } } });
    const text = blockText(renderIncidentMessage(record, { nowMs: NOW }).blocks);
    expect(text).toContain('*Arriving*\n21.1K rows/s');
    expect(text).not.toContain('n/a');
  });

  it('leaves out of a resolved alert the forecasts of its last reading (drain ETA, trend, retention breach)', () => {
    const resolvedAt = Date.parse('2026-11-29T08:54:30.000Z');
    const record = lagRecord({ state: 'resolved', resolvedAt, incident: { ...LAG_INCIDENT, resolvedAt: new Date(resolvedAt).toISOString() } });
    const text = blockText(renderIncidentMessage(record, { nowMs: NOW }).blocks);
    expect(text).toContain('*Time behind*\n14m 20s');
    expect(text).not.toContain('growing');
    expect(text).not.toContain('Drain ETA');
    expect(text).not.toContain('Retention breach');
    const advice = blockText(renderAdviceMessage(record, { nowMs: NOW }).blocks);
    expect(advice).not.toContain('Drain ETA');
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

describe('thread notes', () => {
  it('escapes the stream name in the notification text as in the blocks, so it never pings or links', () => {
    const subject = '<!channel> <@U0EVIL> orders & <https://evil.example|click>';
    const notes = [
      renderAckReply('U024BE7LH', NOW, true, subject),
      renderAckReply('U024BE7LH', NOW, false, subject),
      renderSilenceReply('U024BE7LH', NOW + 3_600_000, NOW, subject),
      renderSilenceReply('U024BE7LH', null, NOW, subject),
    ];
    expect(notes.map((note) => note.text)).toEqual([
      'Acknowledged &lt;!channel&gt; &lt;@U0EVIL&gt; orders &amp; &lt;https://evil.example|click&gt;',
      'Unacknowledged &lt;!channel&gt; &lt;@U0EVIL&gt; orders &amp; &lt;https://evil.example|click&gt;',
      'Silenced &lt;!channel&gt; &lt;@U0EVIL&gt; orders &amp; &lt;https://evil.example|click&gt; for 1h',
      'Unsilenced &lt;!channel&gt; &lt;@U0EVIL&gt; orders &amp; &lt;https://evil.example|click&gt;',
    ]);
    for (const note of notes) {
      expect(hasRawInjection(note.text)).toBe(false);
      expect(hasRawInjection(blockText(note.blocks, 'mrkdwn'))).toBe(false);
    }
    expect(renderAckReply('U024BE7LH', NOW, true).text).toBe('Acknowledged');
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
