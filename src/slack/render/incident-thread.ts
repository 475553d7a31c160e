/**
 * Thread replies under an alert: the timeline (opened, severity changes, acknowledgements,
 * silences) and the one reply on resolve with the duration. Short, so the thread stays readable.
 */
import { formatDuration } from '../../util/duration.js';
import { formatSpan, kindLabel, toMs } from '../format.js';
import { fallbackText, sectionBlock, truncate } from '../limits.js';
import { escapeMrkdwn, inlineCode, slackDate, userMention } from '../mrkdwn.js';
import { episodeOf } from './incident-age.js';
import type { IncidentRecordView, RenderedMessage } from './types.js';

function reply(mrkdwn: string, text: string): RenderedMessage {
  return { text: fallbackText(text), blocks: [sectionBlock(mrkdwn)] };
}

/** The reply posted once when the incident resolves. */
export function renderResolvedReply(record: IncidentRecordView, nowMs: number): RenderedMessage {
  const parsed = toMs(record.resolvedAt ?? record.incident.resolvedAt ?? nowMs);
  const resolvedMs = Number.isFinite(parsed) ? parsed : nowMs;
  // A relapse's reply follows "🔁 Back" in the thread: the time since then, not since the first opening.
  const { sinceMs, reopened } = episodeOf(record, resolvedMs);
  const lasted = formatSpan(sinceMs, resolvedMs);
  const ack = record.acknowledgedBy ? ` Acknowledged by ${userMention(record.acknowledgedBy)}.` : '';
  const kind = escapeMrkdwn(kindLabel(record.kind));
  return reopened
    ? reply(`🟢 *Resolved* *${lasted}* after re-opening (${kind}).${ack}`, `Resolved ${lasted} after re-opening`)
    : reply(`🟢 *Resolved* after *${lasted}* (${kind}).${ack}`, `Resolved after ${lasted}`);
}

/**
 * The reply posted when a resolved incident comes back within its cool-down: the same alert, open
 * again, so the channel reads the relapse in the thread rather than as a new alert.
 */
export function renderRelapseReply(record: IncidentRecordView, nowMs: number): RenderedMessage {
  const { incident } = record;
  const atMs = toMs(incident.relapsedAt ?? nowMs);
  const times = (incident.relapses ?? 1) > 1 ? ` (back ${incident.relapses} times)` : '';
  return reply(
    `🔁 *Back* ${slackDate(Number.isFinite(atMs) ? atMs : nowMs, '{time}')}${times}: ${escapeMrkdwn(incident.summary)}`,
    `Back: ${escapeMrkdwn(incident.summary)}`,
  );
}

/** How much of the summary a severity line repeats: the alert above shows it whole. */
const SEVERITY_SUMMARY_CHARS = 300;

/**
 * The reply posted once per severity change of an open incident ("🔺 Escalated to critical" /
 * "🔻 Down to warning"); the alert itself is edited in place. `subject` names the stream where the
 * thread is shared by several (a storm group's).
 */
export function renderSeverityReply(record: IncidentRecordView, subject?: string): RenderedMessage {
  const { severity, summary } = record.incident;
  const up = severity === 'critical';
  const short = truncate(summary, SEVERITY_SUMMARY_CHARS);
  const change = up ? 'Escalated to critical' : 'Down to warning';
  const lower = up ? 'escalated to critical' : 'down to warning';
  // The fallback text is shown as notification text: escaped like the blocks.
  const plain = subject === undefined ? change : `${escapeMrkdwn(subject)} ${lower}`;
  const head = subject === undefined ? `*${change}*` : `${inlineCode(subject)} ${lower}`;
  return reply(`${up ? '🔺' : '🔻'} ${head}: ${escapeMrkdwn(short)}`, `${plain}: ${escapeMrkdwn(short)}`);
}

/**
 * ` name` for the fallback text, or nothing. That text is shown as notification text and Slack
 * parses it, so it is escaped like the blocks: a stream name must not ping or link.
 */
function plainSubject(subject: string | undefined): string {
  return subject === undefined ? '' : ` ${escapeMrkdwn(subject)}`;
}

/**
 * `subject`: the stream the note is about, named where the thread is shared by several (a storm
 * group's); without it the note is about the alert's own stream.
 */
export function renderAckReply(userId: string, atMs: number, acknowledged: boolean, subject?: string): RenderedMessage {
  const of = subject === undefined ? '' : ` ${inlineCode(subject)}`;
  const plain = plainSubject(subject);
  return acknowledged
    ? reply(`👀 ${userMention(userId)} acknowledged${of} ${slackDate(atMs, '{time}')}.`, `Acknowledged${plain}`)
    : reply(`↩️ ${userMention(userId)} removed the acknowledgement${subject === undefined ? '' : ` of ${inlineCode(subject)}`} ${slackDate(atMs, '{time}')}.`, `Unacknowledged${plain}`);
}

export function renderSilenceReply(userId: string, untilMs: number | null, nowMs: number, subject?: string): RenderedMessage {
  const stream = subject === undefined ? 'this stream' : inlineCode(subject);
  const plain = plainSubject(subject);
  if (untilMs == null) return reply(`🔔 ${userMention(userId)} unsilenced ${stream}.`, `Unsilenced${plain}`);
  return reply(
    `🔕 ${userMention(userId)} silenced ${stream} for ${formatDuration(untilMs - nowMs)} (until ${slackDate(untilMs)}).`,
    `Silenced${plain} for ${formatDuration(untilMs - nowMs)}`,
  );
}
