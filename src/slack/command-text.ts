/**
 * Parses the text of `/stream …` into a typed command. Tolerant of what Slack sends: extra spaces,
 * escaped channel mentions (`<#C123|name>`), HTML entities, smart quotes, quoted query names.
 * Anything that is not a command comes back as `{ name: 'invalid' }` with a short reason.
 */
import { DurationError, parseDuration } from '../util/duration.js';
import { truncateText } from '../util/truncate-text.js';
import { inlineCode } from './mrkdwn.js';

export type WatchScope = 'query' | 'job' | 'pipeline';

export interface WatchTarget {
  scope: WatchScope;
  id: string;
}

export type StreamCommand =
  | { name: 'help' }
  | { name: 'status'; query: string | null; all: boolean }
  | { name: 'tune'; query: string | null }
  | { name: 'diagnose'; input: string }
  | { name: 'mute'; query: string | null; durationMs: number; durationText: string }
  | { name: 'unmute'; query: string | null }
  | { name: 'ack'; query: string | null }
  | { name: 'watch'; target: WatchTarget; channel: string | null }
  | { name: 'unwatch'; target: WatchTarget; channel: string | null }
  | { name: 'digest' }
  | { name: 'invalid'; reason: string; subcommand: string | null };

export const SUBCOMMANDS = ['status', 'tune', 'diagnose', 'mute', 'unmute', 'ack', 'watch', 'unwatch', 'digest', 'help'] as const;

const ALIASES: Record<string, (typeof SUBCOMMANDS)[number]> = {
  st: 'status',
  advice: 'tune',
  silence: 'mute',
  unsilence: 'unmute',
  acknowledge: 'ack',
  diag: 'diagnose',
  '?': 'help',
};

/** Longest duration a mute may ask for; longer ones are almost always typos (`2d` vs `2h`). */
export const MAX_MUTE_MS = 7 * 86_400_000;

/** Undoes the escaping Slack applies to command text. */
export function unescapeSlackText(text: string): string {
  return text
    // Slack auto-links what was typed: `<https://x.io/a>`, or `<http://x.io|x.io>` for a bare host;
    // the label (when there is one) is the text as typed, so pasted JSON comes back unchanged.
    .replace(/<(https?:\/\/[^|>]+)(?:\|([^>]*))?>/g, (_match, url: string, label?: string) => label ?? url)
    .replace(/<mailto:[^|>]+\|([^>]+)>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/[\u201c\u201d\u201e\u2033]/g, '"')
    .replace(/[\u2018\u2019\u2032]/g, "'");
}

/** `<#C123|name>` or `<#C123>` → `C123`; null when the token is not a channel. */
export function channelIdFromToken(token: string): string | null {
  const match = /^<#([CG][A-Z0-9]+)(?:\|[^>]*)?>$/.exec(token);
  return match ? match[1]! : null;
}

function stripQuotes(text: string): string {
  const trimmed = text.trim();
  if (trimmed.length >= 2 && ((trimmed.startsWith('"') && trimmed.endsWith('"')) || (trimmed.startsWith("'") && trimmed.endsWith("'")))) {
    return trimmed.slice(1, -1).trim();
  }
  return trimmed;
}

/** Most of the typed text an error reply repeats: enough to recognise, not enough to flood. */
const SHOWN_INPUT_CHARS = 40;

/** Control characters and bidirectional overrides: shown as \uFFFD, never sent back as typed. */
const UNSHOWABLE = /[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g;

/** Typed text quoted in a reply, cut without splitting an emoji in half, without control characters. */
export function shownInput(text: string): string {
  return inlineCode(truncateText(text.replace(UNSHOWABLE, '\uFFFD'), SHOWN_INPUT_CHARS));
}

/** A name from text already unescaped: unescaping again would turn a typed `&lt;` into `<`. */
function nameOrNull(unescaped: string): string | null {
  const value = stripQuotes(unescaped);
  return value === '' ? null : value;
}

function queryOrNull(rest: string): string | null {
  return nameOrNull(unescapeSlackText(rest));
}

/** An id of each kind, for replies that show what one looks like. */
const EXAMPLE_IDS = { job: '19064954', pipeline: 'abcdef12-abcd-3456-7890-abcd1234ef56' } as const;

function parseTarget(words: string[]): WatchTarget | null {
  if (words.length === 0) return null;
  const [first, ...rest] = words;
  const lower = first!.toLowerCase();
  const prefixed = /^(query|job|pipeline)[:=](.+)$/i.exec(first!);
  if (prefixed && rest.length === 0) return { scope: prefixed[1]!.toLowerCase() as WatchScope, id: stripQuotes(prefixed[2]!) };
  if ((lower === 'job' || lower === 'pipeline' || lower === 'query') && rest.length > 0) {
    return { scope: lower as WatchScope, id: stripQuotes(rest.join(' ')) };
  }
  // A forgotten id: read as a query name, `job` would prefix-match a stream with a `job-…` id.
  if (lower === 'job' || lower === 'pipeline') return { scope: lower, id: '' };
  return { scope: 'query', id: stripQuotes(words.join(' ')) };
}

/**
 * Why a job or pipeline id cannot be one, as the watch file checks them (src/config/watch-schema.ts):
 * job ids are numbers, pipeline ids UUIDs. Null for a query (its name is looked up) or a valid id.
 */
export function watchIdProblem(target: WatchTarget): string | null {
  if (target.scope === 'job' && !/^[0-9]{1,20}$/.test(target.id)) {
    return `a job id is the number in the job's URL, e.g. \`job ${EXAMPLE_IDS.job}\` (${shownInput(target.id)} is not one)`;
  }
  if (target.scope === 'pipeline' && !/^[0-9a-f-]{8,128}$/i.test(target.id)) {
    return `a pipeline id is a UUID, e.g. \`pipeline ${EXAMPLE_IDS.pipeline}\` (${shownInput(target.id)} is not one)`;
  }
  return null;
}

function parseWatch(name: 'watch' | 'unwatch', rest: string): StreamCommand {
  const words = unescapeSlackText(rest.replace(/<#[CG][A-Z0-9]+(?:\|[^>]*)?>/g, (token) => ` ${token} `))
    .split(/\s+/)
    .filter(Boolean);
  // unescapeSlackText leaves `<#…>` alone, so channel tokens survive to here.
  let channel: string | null = null;
  const targetWords: string[] = [];
  for (const word of words) {
    const id = channelIdFromToken(word);
    if (id) {
      if (channel && channel !== id) return { name: 'invalid', subcommand: name, reason: `name one channel, not several` };
      channel = id;
    } else if (/^#\S+$/.test(word) && targetWords.length > 0) {
      return {
        name: 'invalid',
        subcommand: name,
        reason: `pick the channel from Slack's autocomplete (${inlineCode(word)} was not sent as a channel link), or run the command in that channel`,
      };
    } else targetWords.push(word);
  }
  const target = parseTarget(targetWords);
  if (target && target.id === '' && target.scope !== 'query') {
    return { name: 'invalid', subcommand: name, reason: `say which ${target.scope}: add its id, e.g. \`${target.scope} ${EXAMPLE_IDS[target.scope]}\`` };
  }
  if (!target || target.id === '') {
    return { name: 'invalid', subcommand: name, reason: `say what to ${name}: a query name, \`job <id>\` or \`pipeline <id>\`` };
  }
  // Only watch refuses a malformed id: unwatch must still remove a route stored before this check.
  const problem = name === 'watch' ? watchIdProblem(target) : null;
  if (problem) return { name: 'invalid', subcommand: name, reason: problem };
  return { name, target, channel };
}

/** Most words a duration in words takes (`1 hour 30 minutes`). */
const MAX_DURATION_WORDS = 4;

/** A number typed without a unit: refused, never read as seconds. */
const NO_UNIT = 'no unit';

/**
 * The duration `text` says, Infinity past the longest one read (still a duration: "at most 7d" is the
 * answer), NO_UNIT for a bare number, else null.
 */
function durationOrNull(text: string): number | typeof NO_UNIT | null {
  try {
    return parseDuration(text, { bareSeconds: false });
  } catch (error) {
    if (error instanceof DurationError) return error.tooLong ? Number.POSITIVE_INFINITY : error.noUnit ? NO_UNIT : null;
    throw error;
  }
}

/**
 * The duration a mute ends with, and how many words it took: the last word when it is one (`2h`,
 * as before, so a query name ending in a duration-like word keeps it), else the longest run of
 * trailing words that reads as one (`2 hours`, `1 hour 30 minutes`).
 */
function trailingDuration(words: string[]): { durationMs: number; taken: number } | typeof NO_UNIT | null {
  const last = durationOrNull(words[words.length - 1]!);
  if (last === NO_UNIT) return NO_UNIT;
  if (last !== null) return { durationMs: last, taken: 1 };
  for (let taken = Math.min(MAX_DURATION_WORDS, words.length); taken >= 2; taken--) {
    const durationMs = durationOrNull(words.slice(-taken).join(' '));
    if (typeof durationMs === 'number') return { durationMs, taken };
  }
  return null;
}

function parseMute(rest: string): StreamCommand {
  const words = unescapeSlackText(rest).trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return { name: 'invalid', subcommand: 'mute', reason: 'say for how long, e.g. `/stream mute orders 2h`' };
  const last = words[words.length - 1]!;
  const found = trailingDuration(words);
  if (found === NO_UNIT) return { name: 'invalid', subcommand: 'mute', reason: `${shownInput(last)} has no unit: write 30m, 2h, 1d or 2 hours` };
  if (!found) {
    return { name: 'invalid', subcommand: 'mute', reason: `end with a duration such as 30m, 2h, 1d or 2 hours (${shownInput(last)} is not one)` };
  }
  const { durationMs, taken } = found;
  if (durationMs <= 0) return { name: 'invalid', subcommand: 'mute', reason: 'the duration must be more than zero' };
  if (durationMs > MAX_MUTE_MS) return { name: 'invalid', subcommand: 'mute', reason: 'mute for at most 7d; `/stream unwatch` stops alerts for good' };
  const queryWords = words.slice(0, -taken);
  if (queryWords.length > 0 && queryWords[queryWords.length - 1]!.toLowerCase() === 'for') queryWords.pop();
  // The words are unescaped already (above), like every other subcommand's text: once.
  return { name: 'mute', query: nameOrNull(queryWords.join(' ')), durationMs, durationText: words.slice(-taken).join(' ') };
}

export function parseStreamCommand(rawText: string | undefined | null): StreamCommand {
  const text = (rawText ?? '').replace(/\u00a0/g, ' ').trim();
  if (text === '') return { name: 'help' };
  const match = /^(\S+)(?:\s+([\s\S]*))?$/.exec(text)!;
  const word = match[1]!.toLowerCase();
  const rest = match[2] ?? '';
  const name = (SUBCOMMANDS as readonly string[]).includes(word) ? (word as (typeof SUBCOMMANDS)[number]) : ALIASES[word];
  switch (name) {
    case 'help':
      return { name: 'help' };
    case 'digest':
      return { name: 'digest' };
    case 'status': {
      const query = queryOrNull(rest);
      if (query && query.toLowerCase() === 'all') return { name: 'status', query: null, all: true };
      return { name: 'status', query, all: false };
    }
    case 'tune':
      return { name: 'tune', query: queryOrNull(rest) };
    case 'unmute':
      return { name: 'unmute', query: queryOrNull(rest) };
    case 'ack':
      return { name: 'ack', query: queryOrNull(rest) };
    case 'diagnose':
      return { name: 'diagnose', input: unescapeSlackText(rest).trim() };
    case 'mute':
      return parseMute(rest);
    case 'watch':
    case 'unwatch':
      return parseWatch(name, rest);
    default:
      return { name: 'invalid', subcommand: null, reason: `${shownInput(word)} is not a /stream command` };
  }
}
