/**
 * Slack mrkdwn escaping. Anything that comes from Databricks (query names, descriptions, errors) or
 * from people (command text) goes through these helpers before it is placed in mrkdwn, so a query
 * called `<!channel>` or `a > b` renders literally instead of pinging everyone or breaking links.
 * Slack only defines escapes for `&`, `<` and `>`; formatting characters have no escape, so we
 * leave them (a stray `*` is cosmetic, a stray `<` is not); names go in code spans (`nameCode`), or
 * in bold only when nothing in them can act as formatting (`boldName`).
 */
import { truncateText } from '../util/truncate-text.js';

/** Escapes `&`, `<` and `>` as Slack requires for mrkdwn and plain text. */
export function escapeMrkdwn(text: unknown): string {
  const value = typeof text === 'string' ? text : text == null ? '' : String(text);
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Inline code: escaped, with backticks swapped for a look-alike because a code span cannot contain
 * one, and newlines collapsed so the span stays on one line.
 */
export function inlineCode(text: unknown): string {
  const body = codeText(text);
  return body === '' ? '' : `\`${body}\``;
}

function codeText(text: unknown): string {
  return escapeMrkdwn(text).replace(/`/g, 'ˋ').replace(/\s*\n\s*/g, ' ');
}

/** Longest name shown: a pasted 5,000-character query name must not fill a reply. */
export const NAME_MAX_CHARS = 150;

/**
 * A name from people or Databricks (a query, a stream) shown as text: in a code span, so `*`, `_`
 * or `~` in it are not formatting, and cut at NAME_MAX_CHARS.
 */
export function nameCode(name: unknown): string {
  return inlineCode(truncateText(asText(name), NAME_MAX_CHARS));
}

/**
 * What in a name would break the bold around it: `*` ends it wherever it stands, a backtick opens a
 * code span, a line break or a space at either end stops it; `_` and `~` only at a word's edge, since
 * Slack shows them as they are inside a word (`orders_5min_agg`, the commonest name shape, stays bold).
 */
const BREAKS_BOLD = /[*`\r\n]|^\s|\s$|(?<![\p{L}\p{N}])[_~]|[_~](?![\p{L}\p{N}])/u;

/**
 * A name from people or Databricks in bold, linked to `url` when it is safe: `*orders-enrich*`. A name
 * bold would mangle (`orders*eu`, `_tmp`) goes in a code span instead, as `nameCode` shows names:
 * mrkdwn has no escape for formatting characters, and a code span shows any text as it is and copies
 * back exactly into a command. Linked, the code span goes around the link: Slack renders a link inside
 * a code span, not a code span inside a link's label. Not cut: lines are cut to Slack's limits where
 * they are laid out.
 */
export function boldName(name: unknown, url?: string | null): string {
  const text = asText(name);
  if (text === '') return '';
  if (!BREAKS_BOLD.test(text)) return `*${mrkdwnLink(url, text)}*`;
  return `\`${linked(url?.replace(/`/g, '%60'), codeText(text))}\``;
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : value == null ? '' : String(value);
}

/** A fenced block; triple backticks inside are broken up so they cannot close the fence early. */
export function codeBlock(text: unknown): string {
  return `\`\`\`${escapeMrkdwn(text).replace(/```/g, 'ˋˋˋ')}\`\`\``;
}

const USER_ID = /^[UW][A-Z0-9]{2,}$/;
const CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;
const SUBTEAM_ID = /^S[A-Z0-9]{2,}$/;

/** `<@U123>` for a valid user id, else the escaped text (never a raw `<`). */
export function userMention(userId: string | null | undefined): string {
  if (!userId) return 'someone';
  return USER_ID.test(userId) ? `<@${userId}>` : escapeMrkdwn(userId);
}

/** `<#C123>` for a valid channel id, else the escaped text. */
export function channelMention(channelId: string | null | undefined): string {
  if (!channelId) return 'this channel';
  return CHANNEL_ID.test(channelId) ? `<#${channelId}>` : escapeMrkdwn(channelId);
}

export function isSubteamId(text: string): boolean {
  return SUBTEAM_ID.test(text);
}

/** True for absolute http(s) URLs that are safe to put in a link or a URL button. */
export function isSafeUrl(url: string | null | undefined): url is string {
  if (!url || url.length > 3000) return false;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:';
  } catch {
    return false;
  }
}

/** `<url|label>` with the label escaped; falls back to the escaped label when the URL is unsafe. */
export function mrkdwnLink(url: string | null | undefined, label: string): string {
  return linked(url, escapeMrkdwn(label).replace(/\|/g, '¦'));
}

/** `<url|label>` around a label already in mrkdwn (escaped); the label alone when the URL is unsafe. */
function linked(url: string | null | undefined, label: string): string {
  if (!isSafeUrl(url)) return label;
  const safeUrl = url.replace(/</g, '%3C').replace(/>/g, '%3E').replace(/\|/g, '%7C');
  return `<${safeUrl}|${label.replace(/\|/g, '¦')}>`;
}

/**
 * Slack's date token: each reader sees the time in their own time zone; `fallback` is what clients
 * that cannot format it show.
 */
export function slackDate(epochMs: number, format = '{date_short_pretty} {time}'): string {
  if (!Number.isFinite(epochMs)) return 'unknown time';
  const fallback = new Date(epochMs).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
  return `<!date^${Math.floor(epochMs / 1000)}^${format}|${fallback}>`;
}
