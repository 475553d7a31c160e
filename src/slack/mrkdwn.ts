/**
 * Slack mrkdwn escaping. Anything that comes from Databricks (query names, descriptions, errors) or
 * from people (command text) goes through these helpers before it is placed in mrkdwn, so a query
 * called `<!channel>` or `a > b` renders literally instead of pinging everyone or breaking links.
 * Slack only defines escapes for `&`, `<` and `>`; formatting characters have no escape, so we
 * leave them (a stray `*` is cosmetic, a stray `<` is not); names go in code spans (`nameCode`).
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
  const body = escapeMrkdwn(text).replace(/`/g, 'ˋ').replace(/\s*\n\s*/g, ' ');
  return body === '' ? '' : `\`${body}\``;
}

/** Longest name shown: a pasted 5,000-character query name must not fill a reply. */
export const NAME_MAX_CHARS = 150;

/**
 * A name from people or Databricks (a query, a stream) shown as text: in a code span, so `*`, `_`
 * or `~` in it are not formatting, and cut at NAME_MAX_CHARS.
 */
export function nameCode(name: unknown): string {
  return inlineCode(truncateText(typeof name === 'string' ? name : name == null ? '' : String(name), NAME_MAX_CHARS));
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
  const safeLabel = escapeMrkdwn(label).replace(/\|/g, '¦');
  if (!isSafeUrl(url)) return safeLabel;
  const safeUrl = url.replace(/</g, '%3C').replace(/>/g, '%3E').replace(/\|/g, '%7C');
  return `<${safeUrl}|${safeLabel}>`;
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
