/**
 * `text` cut to at most `max` UTF-16 units, the last one an ellipsis, never between the two halves
 * of a surrogate pair (a lone half is no character). For plain text kept in state and stores;
 * Slack text has its own cut (src/slack/limits.ts), which also keeps mrkdwn intact.
 */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = Math.max(0, max - 1);
  const last = text.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
  return `${text.slice(0, cut)}…`;
}
