/**
 * The alert: one top-level message per incident (or grouped storm), re-rendered and updated in
 * place as the incident evolves. Pure: record and options in, `{ text, blocks }` out.
 * State shows as the header emoji: 🔴 critical · 🟠 warning · 🟡 acknowledged · 🔕 silenced · 🟢 resolved.
 */
import type { ActionsBlock, Button, KnownBlock, StaticSelect } from '@slack/types';
import { ACTION_IDS, SILENCE_CHOICES } from '../action-ids.js';
import { formatSpan, kindLabel, toMs } from '../format.js';
import {
  SLACK_LIMITS,
  capBlocks,
  contextBlock,
  fallbackText,
  fieldsBlock,
  headerBlock,
  moreLine,
  sectionBlock,
  truncate,
} from '../limits.js';
import { escapeMrkdwn, inlineCode, isSafeUrl, mrkdwnLink, slackDate, userMention } from '../mrkdwn.js';
import { causeLabel } from './cause-labels.js';
import { incidentIdOf } from '../../store/incident-id.js';
import { episodeOf } from './incident-age.js';
import { metricFields } from './incident-metrics.js';
import { hostLabel, subjectLabel } from './subject-label.js';
import type { IncidentRecordView, RenderedMessage } from './types.js';

export interface IncidentMessageOptions {
  /** Time the message is rendered at, for ETAs and durations. */
  nowMs: number;
  /** Display name from the stream registry; falls back to the record's name, then the query id. */
  queryName?: string | null;
  /** Run page or query link in Databricks; no button when absent or not http(s). */
  databricksUrl?: string | null;
  /** When set and in the future, the stream is silenced until then. */
  silencedUntilMs?: number | null;
  silencedBy?: string | null;
  /** Other incidents grouped into this message (an alert storm); the record is the lead one. */
  grouped?: IncidentRecordView[];
  /** Link to the alert of the stall a catch-up follows. @defaultValue none: named by its id */
  stallUrl?: string | null;
  /**
   * How many causes to show.
   * @defaultValue 3
   */
  maxCauses?: number;
  /**
   * How many grouped incidents to list before "and N more".
   * @defaultValue 10
   */
  maxGrouped?: number;
}

export type IncidentDisplayState = 'critical' | 'warning' | 'acknowledged' | 'silenced' | 'resolved';

const STATE_EMOJI: Record<IncidentDisplayState, string> = {
  critical: '🔴',
  warning: '🟠',
  acknowledged: '🟡',
  silenced: '🔕',
  resolved: '🟢',
};

export function incidentDisplayState(record: IncidentRecordView, options: Pick<IncidentMessageOptions, 'nowMs' | 'silencedUntilMs'>): IncidentDisplayState {
  if (record.state === 'resolved') return 'resolved';
  if (options.silencedUntilMs != null && options.silencedUntilMs > options.nowMs) return 'silenced';
  if (record.acknowledgedBy) return 'acknowledged';
  return record.incident.severity === 'critical' ? 'critical' : 'warning';
}

export function displayName(record: Pick<IncidentRecordView, 'queryId' | 'queryName'>, override?: string | null): string {
  return override || record.queryName || record.queryId;
}

/**
 * Figures this much later than the opening were told again (refreshes come 15 minutes apart at the
 * soonest); a stall's first figures are of the tick that found it, a few minutes after the time it
 * is dated from.
 */
const FIGURES_TOLD_AGAIN_MS = 10 * 60_000;

export function renderIncidentMessage(record: IncidentRecordView, options: IncidentMessageOptions): RenderedMessage {
  const { incident } = record;
  const name = displayName(record, options.queryName);
  const state = incidentDisplayState(record, options);
  const emoji = STATE_EMOJI[state];
  const grouped = options.grouped ?? [];
  const blocks: KnownBlock[] = [];

  const label = headline(record);
  const summary = summaryUnder(incident.summary, label);
  const title = grouped.length > 0 ? `${label} · ${name} +${grouped.length} more` : `${label} · ${name}`;
  blocks.push(headerBlock(`${emoji} ${state === 'resolved' ? 'Resolved: ' : ''}${title}`));

  const resolvedMs = state === 'resolved' ? toMs(record.resolvedAt ?? incident.resolvedAt) : Infinity;
  const { firstMs: openedMs, sinceMs, reopened } = episodeOf(record, resolvedMs);
  const relapses = incident.relapses ?? 0;
  const statusParts = [
    `*${state === 'resolved' ? 'Resolved' : incident.severity === 'critical' ? 'Critical' : 'Warning'}*`,
    subjectLabel(record.queryId, name),
    Number.isFinite(openedMs) ? `opened ${slackDate(openedMs)}` : '',
  ].filter(Boolean);
  // One episode, one alert: a relapse in the cool-down re-opened this one, and its age counts from then.
  if (reopened) statusParts.push(`re-opened ${slackDate(sinceMs)}${relapses > 1 ? ` (came back ${relapses} times)` : ''}`);
  if (state === 'resolved') statusParts.push(`lasted ${formatSpan(sinceMs, resolvedMs)}`);
  // The figures of an alert open for a while were told again (QueryTracker.refreshFigures): say of when.
  const figuresMs = toMs(incident.figuresAt ?? null);
  if (state !== 'resolved' && Number.isFinite(figuresMs) && figuresMs - sinceMs >= FIGURES_TOLD_AGAIN_MS) statusParts.push(`figures as of ${slackDate(figuresMs)}`);
  // A record that counts relapses but not when the last one was.
  if (relapses > 0 && !reopened) statusParts.push(relapses === 1 ? 'came back once' : `came back ${relapses} times`);
  blocks.push(sectionBlock(`${escapeMrkdwn(summary)}\n${statusParts.join(' · ')}`));

  const fields = metricFields(incident.metrics, options.nowMs, { forecasts: state !== 'resolved' });
  if (fields.length > 0) blocks.push(fieldsBlock(fields));

  const maxCauses = options.maxCauses ?? 3;
  if (incident.causes.length > 0) {
    const ranked = [...incident.causes].sort((a, b) => b.confidence - a.confidence);
    const lines = ranked
      .slice(0, maxCauses)
      .map((cause) => `• *${escapeMrkdwn(causeLabel(cause.code))}* (${Math.round(cause.confidence * 100)}%): ${escapeMrkdwn(cause.evidence)}`);
    if (ranked.length > maxCauses) lines.push(moreLine(ranked.length - maxCauses, 'cause'));
    blocks.push(sectionBlock(`*Likely causes*\n${lines.join('\n')}`));
  }

  const first = incident.advice[0];
  if (first && state !== 'resolved') {
    const setting = first.setting ? `\n${inlineCode(`${first.setting}${first.value != null ? ` = ${first.value}` : ''}`)}` : '';
    const more = incident.advice.length > 1 ? `\n_${incident.advice.length - 1} more in Tuning advice._` : '';
    blocks.push(sectionBlock(`*First thing to try*\n${escapeMrkdwn(first.text)}${setting}${more}`));
  }

  if (grouped.length > 0) {
    const maxGrouped = options.maxGrouped ?? 10;
    const lines = grouped
      .slice(0, maxGrouped)
      .map((other) => `• ${hostLabel(other.queryId, displayName(other)) ?? inlineCode(displayName(other))}: ${escapeMrkdwn(kindLabel(other.kind))}${memberState(other, options.nowMs)}`);
    if (grouped.length > maxGrouped) lines.push(moreLine(grouped.length - maxGrouped, 'stream'));
    blocks.push(sectionBlock(`*Also affected (${grouped.length})*\n${lines.join('\n')}`));
  }

  const context: string[] = [];
  if (record.acknowledgedBy) {
    const ackMs = toMs(record.acknowledgedAt ?? null);
    context.push(`👀 Acknowledged by ${userMention(record.acknowledgedBy)}${Number.isFinite(ackMs) ? ` ${slackDate(ackMs)}` : ''}`);
  }
  if (state === 'silenced' && options.silencedUntilMs != null) {
    context.push(`🔕 Silenced until ${slackDate(options.silencedUntilMs)}${options.silencedBy ? ` by ${userMention(options.silencedBy)}` : ''}`);
  }
  const stall = stallReference(record, options.stallUrl);
  if (stall) context.push(stall);
  context.push(`Incident ${inlineCode(record.id)} · query id ${inlineCode(record.queryId)}`);
  blocks.push(contextBlock(context));

  const actions = incidentActions(record, options, state);
  if (actions.elements.length > 0) blocks.push(actions);

  const text = fallbackText(
    `${emoji} ${state === 'resolved' ? 'Resolved: ' : `[${incident.severity}] `}${escapeMrkdwn(name)}: ${label}. ${escapeMrkdwn(summary)}`,
  );
  return { text, blocks: capBlocks(blocks, SLACK_LIMITS.messageBlocks) };
}

/**
 * The incident's name in the header: its kind, or for lag that is the aftermath of a stall or a
 * restart "Catching up" (the summary says after what), since "Falling behind" misreads a drain. Only
 * while the summary says so: a catch-up later read as lag with its own cause is "Falling behind".
 */
export function headline(record: Pick<IncidentRecordView, 'kind' | 'incident'>): string {
  const { aftermath, summary } = record.incident;
  return record.kind === 'lag' && aftermath && summary.startsWith(CATCHING_UP) ? CATCHING_UP : kindLabel(record.kind);
}

const CATCHING_UP = 'Catching up';

/**
 * The summary as shown under a heading that already names it: a lead equal to the heading
 * ("Falling behind: …" under "Falling behind") is said once, not twice.
 */
export function summaryUnder(summary: string, label: string): string {
  const lead = `${label}: `;
  if (!summary.startsWith(lead) || summary.length === lead.length) return summary;
  const rest = summary.slice(lead.length);
  return `${rest[0]!.toUpperCase()}${rest.slice(1)}`;
}

/**
 * When an incident's summary and figures are from, for "As of its last update …": the time its
 * figures are of (`figuresAt`), else, for a record stored before that was kept, "at or after" its
 * latest (re)opening. Null when neither is a time.
 */
export function lastUpdateWhen(incident: IncidentRecordView['incident']): string | null {
  const figures = toMs(incident.figuresAt ?? null);
  if (Number.isFinite(figures)) return slackDate(figures);
  const reopened = Math.max(toMs(incident.openedAt), incident.relapsedAt ? toMs(incident.relapsedAt) : -Infinity);
  return Number.isFinite(reopened) ? `at or after ${slackDate(reopened)}` : null;
}

/**
 * The stall incident a catch-up follows, by its id (the same id its own alert shows) and, when its
 * alert's link is known, linked to it, so people reach the root cause's thread in one click.
 */
export function stallReference(record: IncidentRecordView, stallUrl?: string | null): string | null {
  const stallOpenedAt = record.incident.aftermath?.stallOpenedAt;
  const openedMs = stallOpenedAt ? Date.parse(stallOpenedAt) : Number.NaN;
  if (!Number.isFinite(openedMs)) return null;
  const id = inlineCode(stallIncidentId(record)!);
  const what = stallUrl && isSafeUrl(stallUrl) ? `the ${mrkdwnLink(stallUrl, 'stall alert')} (incident ${id})` : `stall incident ${id}`;
  return `Follows ${what}, opened ${slackDate(openedMs)}`;
}

/** Id of the stall incident a catch-up follows, or null when it follows none. */
export function stallIncidentId(record: IncidentRecordView): string | null {
  const stallOpenedAt = record.incident.aftermath?.stallOpenedAt;
  return stallOpenedAt ? incidentIdOf(record.queryId, { kind: 'stalled', openedAt: stallOpenedAt }) : null;
}

/** A grouped member's state beside its name: resolved, or its stream silenced (the lead's shows in the header). */
function memberState(other: IncidentRecordView, nowMs: number): string {
  if (other.state === 'resolved') return ' (resolved)';
  return other.silencedUntilMs != null && other.silencedUntilMs > nowMs ? ` (🔕 silenced until ${slackDate(other.silencedUntilMs)})` : '';
}

function incidentActions(record: IncidentRecordView, options: IncidentMessageOptions, state: IncidentDisplayState): ActionsBlock {
  const elements: (Button | StaticSelect)[] = [];
  const value = truncate(record.id, SLACK_LIMITS.buttonValue);
  if (state !== 'resolved') {
    if (!record.acknowledgedBy) {
      elements.push({ type: 'button', action_id: ACTION_IDS.acknowledge, text: { type: 'plain_text', text: 'Acknowledge' }, style: 'primary', value });
    } else {
      elements.push({ type: 'button', action_id: ACTION_IDS.unacknowledge, text: { type: 'plain_text', text: 'Unacknowledge' }, value });
    }
    if (state === 'silenced') {
      elements.push({ type: 'button', action_id: ACTION_IDS.unsilence, text: { type: 'plain_text', text: 'Unsilence' }, value });
    } else {
      elements.push({
        type: 'static_select',
        action_id: ACTION_IDS.silence,
        placeholder: { type: 'plain_text', text: 'Silence…' },
        options: SILENCE_CHOICES.map((choice) => ({
          text: { type: 'plain_text' as const, text: `Silence ${choice.label}` },
          value: String(choice.ms),
        })),
      });
    }
  }
  elements.push({ type: 'button', action_id: ACTION_IDS.tuningAdvice, text: { type: 'plain_text', text: 'Tuning advice' }, value });
  if (isSafeUrl(options.databricksUrl)) {
    elements.push({ type: 'button', action_id: ACTION_IDS.openDatabricks, text: { type: 'plain_text', text: 'Open in Databricks' }, url: options.databricksUrl, value });
  }
  // The silence options carry only the duration; handlers read the incident id from the block id.
  return { type: 'actions', block_id: incidentBlockId(record.id), elements };
}

const BLOCK_PREFIX = 'incident:';

export function incidentBlockId(incidentId: string): string {
  return truncate(`${BLOCK_PREFIX}${incidentId}`, SLACK_LIMITS.blockId, '');
}

/** The incident id from an actions block id, or null when the block is not ours. */
export function incidentIdFromBlockId(blockId: string | undefined): string | null {
  return blockId && blockId.startsWith(BLOCK_PREFIX) && blockId.length > BLOCK_PREFIX.length ? blockId.slice(BLOCK_PREFIX.length) : null;
}
