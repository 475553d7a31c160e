/** `/stream help` and the short usage reply for anything the parser does not understand. */
import { fallbackText, sectionBlock, contextBlock } from '../limits.js';
import { escapeMrkdwn } from '../mrkdwn.js';
import type { RenderedMessage } from './types.js';

export const COMMAND_LINES: [string, string][] = [
  ['status [query|all]', 'health of the streams routed to this channel (or one stream, or all)'],
  ['tune <query>', 'the full tuning advice, with numbers'],
  ['diagnose [progress JSON]', 'run the engine on pasted progress JSON, or on the last .json/.jsonl file shared here'],
  ['mute <query> [#channel] <duration>', 'silence alerts for a stream, e.g. `mute orders 2h` or `mute orders 2 hours` (up to 7d)'],
  ['unmute <query>', 'end a silence'],
  ['ack <query>', 'acknowledge the open incident'],
  ['watch <query|job <id>|pipeline <id>> [#channel]', 'route alerts to a channel (this one by default)'],
  ['unwatch <query|job <id>|pipeline <id>> [#channel]', 'stop routing them'],
  ['digest', 'post the daily digest now'],
  ['help', 'this list'],
];

export function renderHelp(command = '/stream'): RenderedMessage {
  const lines = COMMAND_LINES.map(([usage, what]) => `\`${command} ${escapeMrkdwn(usage)}\` ${what}`);
  return {
    text: fallbackText(`${command} commands: ${COMMAND_LINES.map(([usage]) => usage.split(' ')[0]).join(', ')}`),
    blocks: [
      sectionBlock(`*StreamDoctor* keeps your Structured Streaming queries healthy.\n${lines.join('\n')}`),
      contextBlock([
        `Commands act on the streams routed to this channel. For another channel's stream add its #channel (you must be a member of it), e.g. \`${command} mute orders #payments 2h\`.`,
        'In a channel bound to one incident the query can be left out. Partial names work when they are unambiguous.',
      ]),
    ],
  };
}

/** Short ephemeral usage: what went wrong, and the one line that shows how. */
export function renderUsage(reason: string, subcommand: string | null, command = '/stream'): RenderedMessage {
  const line = subcommand ? COMMAND_LINES.find(([usage]) => usage.startsWith(subcommand)) : undefined;
  const how = line ? `Usage: \`${command} ${escapeMrkdwn(line[0])}\`` : `Try \`${command} help\`.`;
  // `reason` is our own text with inline code spans built from escaped input.
  return { text: fallbackText(`${reason}. ${how}`), blocks: [sectionBlock(`${reason}. ${how}`)] };
}
