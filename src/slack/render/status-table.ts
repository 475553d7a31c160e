/**
 * `/stream status`: one line per stream, worst first, with the numbers that say how far behind it
 * is and why. Long lists are cut with a count of what was left out.
 */
import type { KnownBlock } from '@slack/types';
import { filesWaiting } from '../../diagnosis/format.js';
import { formatDuration } from '../../util/duration.js';
import { formatBatchVsTrigger, formatCount, formatSeconds, healthEmoji, healthRank, toMs } from '../format.js';
import { SLACK_LIMITS, contextBlock, fallbackText, headerBlock, linesToSections, moreLine, sectionBlock } from '../limits.js';
import { boldName, escapeMrkdwn, slackDate } from '../mrkdwn.js';
import type { RenderedMessage, StreamView } from './types.js';

export interface StatusOptions {
  nowMs: number;
  /** e.g. "streams routed to #data-alerts" or "all streams". */
  scopeLabel: string;
  /**
   * What was asked for; decides the hint shown when there is nothing to list.
   * @defaultValue 'channel'
   */
  scope?: 'channel' | 'all';
  /**
   * Most streams listed before "and N more".
   * @defaultValue 40
   */
  maxStreams?: number;
}

export function sortWorstFirst(streams: StreamView[]): StreamView[] {
  return [...streams].sort(
    (a, b) =>
      healthRank(a.health) - healthRank(b.health) ||
      (b.timeBehindSec ?? -1) - (a.timeBehindSec ?? -1) ||
      (a.name ?? a.queryId).localeCompare(b.name ?? b.queryId),
  );
}

/** A stream as its status line reads it. */
export interface StatusStreamView extends StreamView {
  /** An open stall incident: no progress comes, so the last report's time behind means nothing now. */
  stalled?: boolean;
}

/**
 * Time behind as of now. A report's figure is the age of the oldest data not yet processed when
 * its batch ended; with no report since, that data is still waiting and older by the time passed:
 * a slow batch's stream is at least that far behind now. A minute or more after a report behind
 * by anything, that lower bound is what is shown, with the report's own figure.
 */
export function timeBehindNow(timeBehindSec: number, lastProgressMs: number, nowMs: number, estimated = false): string {
  const elapsedSec = (nowMs - lastProgressMs) / 1000;
  const mark = estimated ? '~' : '';
  if (!(timeBehindSec > 0) || !(elapsedSec >= 60)) return `${mark}${formatSeconds(timeBehindSec)} behind${estimated ? ' (est.)' : ''}`;
  return `at least ${mark}${formatSeconds(timeBehindSec + elapsedSec)} behind now (${mark}${formatSeconds(timeBehindSec)} at the last report)`;
}

export function streamLine(stream: StatusStreamView, nowMs: number): string {
  const parts = [`${healthEmoji(stream.health)} ${boldName(stream.name || stream.queryId, stream.runPageUrl)}`];
  const last = toMs(stream.lastProgressAt ?? null);
  if (stream.stalled) {
    // No report comes: the last one's time behind is stale, so say how long it has been silent.
    parts.push(Number.isFinite(last) ? `silent: no progress for ${formatDuration(Math.max(0, nowMs - last))}, time behind unknown` : 'silent: no progress yet, time behind unknown');
  } else if (stream.timeBehindSec != null) {
    parts.push(timeBehindNow(stream.timeBehindSec, last, nowMs, stream.timeBehindEstimated));
  } else if (stream.filesWaiting != null) {
    parts.push(filesWaiting(stream.filesWaiting, stream.filesWaitingTrendPerMin ?? null));
  } else if (stream.backlogUnreported) {
    parts.push('backlog not reported (capped; these reports print none)');
  }
  if (stream.batchDurationMs != null) parts.push(`batch ${formatBatchVsTrigger(stream.batchDurationMs, stream.triggerMs)}`);
  if (stream.stateRows != null && stream.stateRows > 0) parts.push(`${formatCount(stream.stateRows)} state rows`);
  // A stalled stream's silence is said above, once.
  if (!stream.stalled) parts.push(Number.isFinite(last) ? `last progress ${formatDuration(Math.max(0, nowMs - last))} ago` : 'no progress yet');
  if (stream.openIncidents) parts.push(`${stream.openIncidents} open incident${stream.openIncidents === 1 ? '' : 's'}`);
  if (stream.silencedUntilMs != null && stream.silencedUntilMs > nowMs) parts.push(`🔕 until ${slackDate(stream.silencedUntilMs)}`);
  return parts.join(' · ');
}

export function healthSummary(streams: StreamView[]): string {
  const counts = { critical: 0, warning: 0, ok: 0, unknown: 0 };
  for (const stream of streams) {
    const key = stream.health === 'critical' || stream.health === 'warning' || stream.health === 'ok' ? stream.health : 'unknown';
    counts[key] += 1;
  }
  const parts = [
    counts.critical ? `🔴 ${counts.critical} critical` : '',
    // "critical", "ok" and "no data" read the same for one and many; "warning" is a noun.
    counts.warning ? `🟠 ${counts.warning} warning${counts.warning === 1 ? '' : 's'}` : '',
    counts.ok ? `🟢 ${counts.ok} ok` : '',
    counts.unknown ? `⚪ ${counts.unknown} no data` : '',
  ].filter(Boolean);
  return parts.join(' · ') || 'no streams';
}

export function overallHealth(streams: StreamView[]): 'ok' | 'warning' | 'critical' | 'unknown' {
  if (streams.length === 0) return 'unknown';
  const worst = Math.min(...streams.map((stream) => healthRank(stream.health)));
  return worst === 0 ? 'critical' : worst === 1 ? 'warning' : worst === 2 ? 'ok' : 'unknown';
}

export function renderStatus(streams: StreamView[], options: StatusOptions): RenderedMessage {
  const blocks: KnownBlock[] = [headerBlock(`Stream health · ${options.scopeLabel}`)];
  if (streams.length === 0) {
    const hint =
      options.scope === 'all'
        ? 'No streams are watched yet. Add one to the watch file, or route one here with `/stream watch <query|job|pipeline>`.'
        : 'No streams here yet. Route one to this channel with `/stream watch <query|job|pipeline>`, or try `/stream status all`.';
    blocks.push(sectionBlock(hint));
    return { text: fallbackText(`No streams yet · stream health of ${escapeMrkdwn(options.scopeLabel)}`), blocks };
  }
  blocks.push(sectionBlock(healthSummary(streams)));
  const maxStreams = options.maxStreams ?? 40;
  const sorted = sortWorstFirst(streams);
  const lines = sorted.slice(0, maxStreams).map((stream) => streamLine(stream, options.nowMs));
  const { blocks: sections, omitted } = linesToSections(lines, SLACK_LIMITS.messageBlocks - 4);
  blocks.push(...sections);
  const left = omitted + Math.max(0, sorted.length - maxStreams);
  if (left > 0) blocks.push(contextBlock([moreLine(left, 'stream')]));
  blocks.push(contextBlock([`As of ${slackDate(options.nowMs)} · \`/stream tune <query>\` for advice`]));
  return {
    text: fallbackText(`Stream health (${escapeMrkdwn(options.scopeLabel)}): ${healthSummary(streams)}`),
    blocks,
  };
}
