/**
 * The full tuning advice for an incident, as an ephemeral message (`/stream tune`, the Tuning advice
 * button) or a modal. Every cause with its evidence and every advice item with the setting to change.
 */
import type { ModalView } from '@slack/types';
import type { KnownBlock } from '@slack/types';
import { SLACK_LIMITS, capBlocks, contextBlock, fallbackText, fieldsBlock, headerBlock, moreLine, plainText, sectionBlock } from '../limits.js';
import { escapeMrkdwn, inlineCode, isSafeUrl, mrkdwnLink, slackDate } from '../mrkdwn.js';
import { VIEW_IDS } from '../action-ids.js';
import { causeLabel } from './cause-labels.js';
import { displayName, headline, lastUpdateWhen, stallReference, summaryUnder } from './incident-message.js';
import { liveFields, metricFields, type LiveFigures } from './incident-metrics.js';
import { toMs } from '../format.js';
import type { IncidentRecordView, RenderedMessage } from './types.js';

export interface AdviceOptions {
  nowMs: number;
  queryName?: string | null;
  databricksUrl?: string | null;
  /**
   * Most advice items listed.
   * @defaultValue 15
   */
  maxAdvice?: number;
  /** Modal only: offer a "Share in thread" submit button (when the alert has a thread). @defaultValue false */
  shareable?: boolean;
  /**
   * The stream's latest figures (its stored snapshot). The incident's own figures, causes and advice
   * are from its last update (the engine re-describes it only when it escalates or its top cause
   * changes), so with these the advice shows both, each saying when it is from.
   * @defaultValue none: the incident's figures alone
   */
  live?: (LiveFigures & { lastProgressAt?: string | number | null; lastBatchId?: number | null }) | null;
}

/** "Now" fields from the latest batch read, and what dates the incident's figures. */
function liveBlocks(record: IncidentRecordView, live: NonNullable<AdviceOptions['live']>): { now: KnownBlock[]; thenLabel: KnownBlock } {
  const fields = liveFields(live);
  const readAt = live.lastProgressAt != null ? toMs(live.lastProgressAt) : NaN;
  const batch = live.lastBatchId != null ? `batch ${live.lastBatchId}` : 'the latest batch';
  const when = Number.isFinite(readAt) ? `${batch}, ${slackDate(readAt)}` : batch;
  const now: KnownBlock[] = [sectionBlock(`*Now* (${when})${fields.length === 0 ? ': no figures read yet.' : ''}`)];
  if (fields.length > 0) now.push(fieldsBlock(fields));
  const updated = lastUpdateWhen(record.incident);
  const thenLabel = sectionBlock(
    `*As of the incident's last update*${updated ? `, ${updated}` : ''} (it is re-described when it escalates, its top cause changes or its figures move by a quarter): the summary above, the figures below, the causes and the advice are from then; size changes on the figures under *Now*.`,
  );
  return { now, thenLabel };
}

function adviceBlocks(record: IncidentRecordView, options: AdviceOptions, maxBlocks: number, maxText: number): KnownBlock[] {
  const { incident } = record;
  const name = displayName(record, options.queryName);
  const blocks: KnownBlock[] = [headerBlock(`🛠 Tuning advice · ${name}`)];
  const link = isSafeUrl(options.databricksUrl) ? ` · ${mrkdwnLink(options.databricksUrl, 'Open in Databricks')}` : '';
  const label = headline(record);
  blocks.push(
    sectionBlock(`*${escapeMrkdwn(label)}* (${incident.severity}${record.state === 'resolved' ? ', resolved' : ''}): ${escapeMrkdwn(summaryUnder(incident.summary, label))}${link}`),
  );
  if (options.live) {
    const { now, thenLabel } = liveBlocks(record, options.live);
    blocks.push(...now, thenLabel);
  }
  const fields = metricFields(incident.metrics, options.nowMs, { forecasts: record.state !== 'resolved' });
  if (fields.length > 0) blocks.push(fieldsBlock(fields));
  if (incident.causes.length > 0) {
    const causes = [...incident.causes].sort((a, b) => b.confidence - a.confidence);
    const lines = causes.map(
      (cause) => `• *${escapeMrkdwn(causeLabel(cause.code))}* (${Math.round(cause.confidence * 100)}%)\n   ${escapeMrkdwn(cause.evidence)}`,
    );
    blocks.push(sectionBlock(`*Why*\n${lines.join('\n')}`));
  }
  const maxAdvice = options.maxAdvice ?? 15;
  if (incident.advice.length === 0) {
    blocks.push(sectionBlock('_No specific advice for this incident yet; the causes above say where to look._'));
  }
  incident.advice.slice(0, maxAdvice).forEach((advice, index) => {
    const setting = advice.setting ? `\n${inlineCode(`${advice.setting}${advice.value != null ? ` = ${advice.value}` : ''}`)}` : '';
    if (blocks.length < maxBlocks - 2) blocks.push(sectionBlock(`*${index + 1}.* ${escapeMrkdwn(advice.text)}${setting}`));
  });
  if (incident.advice.length > maxAdvice) blocks.push(contextBlock([moreLine(incident.advice.length - maxAdvice, 'advice item')]));
  const stall = stallReference(record);
  blocks.push(contextBlock([...(stall ? [stall] : []), `Incident ${inlineCode(record.id)} · query id ${inlineCode(record.queryId)}`]));
  return capBlocks(blocks, maxBlocks, maxText);
}

/** Ephemeral message (≤ 50 blocks). */
export function renderAdviceMessage(record: IncidentRecordView, options: AdviceOptions): RenderedMessage {
  const name = displayName(record, options.queryName);
  const first = record.incident.advice[0]?.text ?? record.incident.summary;
  return {
    text: fallbackText(`Tuning advice for ${escapeMrkdwn(name)}: ${escapeMrkdwn(first)}`),
    blocks: adviceBlocks(record, options, SLACK_LIMITS.messageBlocks, SLACK_LIMITS.messageText),
  };
}

/** Modal (≤ 100 blocks), opened from the Tuning advice button. */
export function renderAdviceModal(record: IncidentRecordView, options: AdviceOptions): ModalView {
  return {
    type: 'modal',
    callback_id: VIEW_IDS.adviceModal,
    title: plainText('Tuning advice', SLACK_LIMITS.modalTitle),
    close: plainText('Close', SLACK_LIMITS.modalTitle),
    ...(options.shareable ? { submit: plainText('Share in thread', SLACK_LIMITS.modalTitle) } : {}),
    blocks: adviceBlocks(record, options, SLACK_LIMITS.viewBlocks, Infinity),
    private_metadata: JSON.stringify({ incidentId: record.id }).slice(0, SLACK_LIMITS.privateMetadata),
  };
}
