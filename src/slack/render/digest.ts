/**
 * The daily digest for one channel: overall health, one line per stream (worst first), the incidents
 * of the last 24 hours with their durations. The chart is a separate PNG upload
 * (src/slack/chart/time-behind-chart.ts). At most 50 blocks and Slack's text per message; long lists
 * end with a count.
 */
import type { KnownBlock } from '@slack/types';
import { formatSpan, healthEmoji, kindLabel, toMs } from '../format.js';
import { SLACK_LIMITS, capBlocks, contextBlock, fallbackText, headerBlock, linesToSections, moreLine, sectionBlock } from '../limits.js';
import { escapeMrkdwn, inlineCode, slackDate, userMention } from '../mrkdwn.js';
import { episodeOf, openAge } from './incident-age.js';
import { displayName } from './incident-message.js';
import { healthSummary, overallHealth, sortWorstFirst, streamLine } from './status-table.js';
import type { IncidentRecordView, RenderedMessage, StreamView } from './types.js';

export interface DigestInput {
  /** Plain-text channel label for the header, e.g. `#data-alerts`. */
  channelLabel: string;
  nowMs: number;
  streams: StreamView[];
  /** Incidents opened or open during the window (newest first is not required). */
  incidents: IncidentRecordView[];
  /**
   * Window the digest covers.
   * @defaultValue 24 hours
   */
  windowMs?: number;
  /** Whether a chart is uploaded with the digest (adds a pointer to it). */
  withChart?: boolean;
  /**
   * Stream lines before "and N more".
   * @defaultValue 25
   */
  maxStreams?: number;
  /**
   * Incident lines before "and N more".
   * @defaultValue 20
   */
  maxIncidents?: number;
}

/** Where an incident goes in the digest's list: open before resolved, critical before warning. */
function rank(record: IncidentRecordView): number {
  return (record.state === 'open' ? 0 : 2) + (record.incident.severity === 'critical' ? 0 : 1);
}

/**
 * Characters each list (streams, incidents) may take: both, with the header and the lines around
 * them, stay within the text Slack takes in one message's blocks (`SLACK_LIMITS.messageText`).
 */
const LIST_CHARS = 4_500;

const HEALTH_WORD = { ok: 'All streams healthy', warning: 'Some streams need attention', critical: 'Streams in trouble', unknown: 'No data yet' } as const;

function incidentLine(record: IncidentRecordView, nowMs: number, since: number): string {
  const name = inlineCode(displayName(record));
  const kind = escapeMrkdwn(kindLabel(record.kind));
  if (record.state === 'resolved') {
    const resolved = toMs(record.resolvedAt ?? null);
    const { firstMs, sinceMs, reopened } = episodeOf(record, resolved);
    // The time alone reads as within the window: one before it gets its date.
    const at = (ms: number): string => slackDate(ms, ms >= since ? '{time}' : '{date_short_pretty} {time}');
    const opened = reopened ? `re-opened ${at(sinceMs)}, first opened ${at(firstMs)}` : `opened ${at(firstMs)}`;
    return `🟢 ${name} · ${kind} · lasted ${formatSpan(sinceMs, resolved)} · ${opened}`;
  }
  const ack = record.acknowledgedBy ? ` · ack ${userMention(record.acknowledgedBy)}` : '';
  return `${record.incident.severity === 'critical' ? '🔴' : '🟠'} ${name} · ${kind} · ${openAge(record, nowMs)}${ack}`;
}

export function renderDigest(input: DigestInput): RenderedMessage {
  const windowMs = input.windowMs ?? 24 * 3_600_000;
  const since = input.nowMs - windowMs;
  const health = overallHealth(input.streams);
  const blocks: KnownBlock[] = [headerBlock(`📊 Daily stream health · ${input.channelLabel}`)];
  blocks.push(sectionBlock(`${healthEmoji(health === 'unknown' ? null : health)} *${HEALTH_WORD[health]}* · ${healthSummary(input.streams)}`));

  const maxStreams = input.maxStreams ?? 25;
  const streams = sortWorstFirst(input.streams);
  if (streams.length > 0) {
    blocks.push(sectionBlock('*Streams* (worst first)'));
    const lines = streams.slice(0, maxStreams).map((stream: StreamView) => streamLine(stream, input.nowMs));
    const { blocks: sections, omitted } = linesToSections(lines, 12, LIST_CHARS);
    blocks.push(...sections);
    const left = omitted + Math.max(0, streams.length - maxStreams);
    if (left > 0) blocks.push(contextBlock([moreLine(left, 'stream')]));
  } else {
    blocks.push(sectionBlock('No streams are routed to this channel. `/stream watch <query|job|pipeline>` adds one.'));
  }

  const recent = input.incidents
    .filter((record) => record.state === 'open' || toMs(record.resolvedAt ?? null) >= since || toMs(record.openedAt) >= since)
    // Open first, critical before warning, then newest (a relapse by its re-opening): the cut below
    // must never drop the worst.
    .sort((a, b) => rank(a) - rank(b) || episodeOf(b).sinceMs - episodeOf(a).sinceMs);
  const maxIncidents = input.maxIncidents ?? 20;
  if (recent.length === 0) {
    blocks.push(sectionBlock('*Incidents active in the last 24 h*\nNone. 🎉'));
  } else {
    const open = recent.filter((record) => record.state === 'open').length;
    // Open ones count however long ago they opened: "active", not "opened", in the window.
    blocks.push(sectionBlock(`*Incidents active in the last 24 h* · ${recent.length} (${open} still open)`));
    const lines = recent.slice(0, maxIncidents).map((record) => incidentLine(record, input.nowMs, since));
    const { blocks: sections, omitted } = linesToSections(lines, 12, LIST_CHARS);
    blocks.push(...sections);
    const left = omitted + Math.max(0, recent.length - maxIncidents);
    if (left > 0) blocks.push(contextBlock([moreLine(left, 'incident')]));
  }
  blocks.push(
    contextBlock([
      `${slackDate(since)} – ${slackDate(input.nowMs)}${input.withChart ? ' · chart of time behind per stream in the thread' : ''} · \`/stream status\` for live numbers`,
    ]),
  );
  const text = `Daily stream health for ${escapeMrkdwn(input.channelLabel)}: ${HEALTH_WORD[health]} (${healthSummary(input.streams)}); ${recent.length} incident${recent.length === 1 ? '' : 's'} active in 24 h`;
  return { text: fallbackText(text), blocks: capBlocks(blocks, SLACK_LIMITS.messageBlocks) };
}
