/**
 * App Home for the person looking: their open incidents (in channels they watch, or all), silenced
 * streams with an Unsilence button, and the streams they watch. ≤ 100 blocks.
 */
import type { HomeView, KnownBlock } from '@slack/types';
import { ACTION_IDS } from '../action-ids.js';
import { kindLabel } from '../format.js';
import { SLACK_LIMITS, capBlocks, contextBlock, headerBlock, moreLine, sectionBlock, truncate } from '../limits.js';
import { channelMention, escapeMrkdwn, inlineCode, nameCode, slackDate, userMention } from '../mrkdwn.js';
import { openAge } from './incident-age.js';
import { displayName, lastUpdateWhen } from './incident-message.js';
import { streamLine, timeBehindNow } from './status-table.js';
import type { IncidentRecordView, StreamView } from './types.js';

export interface HomeSilence {
  queryId: string;
  name?: string | null;
  untilMs: number;
  byUser?: string | null;
}

export interface HomeWatch {
  /** What is watched: a query, a job or a pipeline. */
  target: string;
  kind?: 'query' | 'job' | 'pipeline' | string;
  channel: string;
}

export interface AppHomeInput {
  userId: string;
  nowMs: number;
  /**
   * `timeBehindNowSec`: the stream's time behind in its latest snapshot, as of `timeBehindAtMs` (its
   * last progress); the incident's summary is from its last update, which can be long before.
   */
  openIncidents: (IncidentRecordView & { channel?: string | null; timeBehindNowSec?: number | null; timeBehindAtMs?: number | null })[];
  silences: HomeSilence[];
  watches: HomeWatch[];
  /** Streams in the watched channels, for the health list. */
  streams?: StreamView[];
  /**
   * Lines per list before "and N more".
   * @defaultValue 15
   */
  maxPerList?: number;
}

/**
 * The Home when it cannot be built (its store is away): why, in the person's words (`reason`, mrkdwn
 * built from error codes, nothing to escape), and Refresh to try again. A Home event has no other way
 * to answer, and an old Home left in place would read as current.
 */
export function renderAppHomeUnavailable(reason: string): HomeView {
  return {
    type: 'home',
    blocks: [headerBlock('StreamDoctor'), sectionBlock(`⚠️ ${reason}`), refreshActions(), contextBlock(['`/stream help` lists the commands.'])],
  };
}

function refreshActions(): KnownBlock {
  return { type: 'actions', elements: [{ type: 'button', action_id: ACTION_IDS.homeRefresh, text: { type: 'plain_text', text: 'Refresh' } }] };
}

export function renderAppHome(input: AppHomeInput): HomeView {
  const max = input.maxPerList ?? 15;
  const blocks: KnownBlock[] = [
    headerBlock('StreamDoctor'),
    sectionBlock(`Hi ${userMention(input.userId)}. Here is what needs attention now (${slackDate(input.nowMs)}).`),
    { type: 'divider' },
    headerBlock(`Open incidents (${input.openIncidents.length})`),
  ];
  // A green verdict only about streams the person watches: with none shown (none in their channels,
  // or their channels could not be read) it would vouch for streams nobody looked at.
  if (input.openIncidents.length === 0) blocks.push(sectionBlock(input.watches.length > 0 ? 'None. All watched streams are keeping up. 🟢' : 'No open incidents in your channels.'));
  for (const record of input.openIncidents.slice(0, max)) {
    const ack = record.acknowledgedBy ? ` · 👀 ${userMention(record.acknowledgedBy)}` : '';
    const where = record.channel ? ` · ${channelMention(record.channel)}` : '';
    const behind = record.timeBehindNowSec != null ? timeBehindNow(record.timeBehindNowSec, record.timeBehindAtMs ?? Number.NaN, input.nowMs) : null;
    const now = behind === null ? '' : ` · ${behind.startsWith('at least') ? behind : `now ${behind}`}`;
    // The summary is from the incident's last update, which can be long before now.
    const when = lastUpdateWhen(record.incident);
    const asOf = when ? `As of its last update, ${when}: ` : 'As of its last update: ';
    blocks.push(
      sectionBlock(
        `${record.incident.severity === 'critical' ? '🔴' : '🟠'} ${nameCode(displayName(record))} · ${escapeMrkdwn(kindLabel(record.kind))} · ${openAge(record, input.nowMs)}${now}${ack}${where}\n${asOf}${escapeMrkdwn(truncate(record.incident.summary, 300))}`,
      ),
    );
  }
  if (input.openIncidents.length > max) blocks.push(contextBlock([moreLine(input.openIncidents.length - max, 'open incident')]));

  blocks.push({ type: 'divider' }, headerBlock(`Silenced streams (${input.silences.length})`));
  if (input.silences.length === 0) blocks.push(sectionBlock('Nothing is silenced.'));
  for (const silence of input.silences.slice(0, max)) {
    blocks.push(
      sectionBlock(
        `🔕 ${nameCode(silence.name || silence.queryId)} until ${slackDate(silence.untilMs)}${silence.byUser ? ` · by ${userMention(silence.byUser)}` : ''}`,
        {
          accessory: {
            type: 'button',
            action_id: ACTION_IDS.homeUnsilence,
            text: { type: 'plain_text', text: 'Unsilence' },
            value: truncate(silence.queryId, SLACK_LIMITS.buttonValue, ''),
          },
        },
      ),
    );
  }
  if (input.silences.length > max) blocks.push(contextBlock([moreLine(input.silences.length - max, 'silence')]));

  blocks.push({ type: 'divider' }, headerBlock(`Watches: streams, jobs and pipelines (${input.watches.length})`));
  if (input.watches.length === 0) blocks.push(sectionBlock('No watches in your channels yet. `/stream watch <query|job|pipeline> [#channel]` adds one.'));
  else {
    const lines = input.watches.slice(0, max).map((watch) => `• ${watch.kind ? `${escapeMrkdwn(watch.kind)} ` : ''}${inlineCode(watch.target)} → ${channelMention(watch.channel)}`);
    if (input.watches.length > max) lines.push(moreLine(input.watches.length - max, 'watch', 'watches'));
    blocks.push(sectionBlock(lines.join('\n')));
  }
  if (input.streams && input.streams.length > 0) {
    const lines = input.streams.slice(0, max).map((stream) => streamLine(stream, input.nowMs));
    if (input.streams.length > max) lines.push(moreLine(input.streams.length - max, 'stream'));
    blocks.push(sectionBlock(lines.join('\n')));
  }
  blocks.push(refreshActions(), contextBlock(['`/stream help` lists the commands.']));
  return { type: 'home', blocks: capBlocks(blocks, SLACK_LIMITS.viewBlocks, Infinity) };
}
