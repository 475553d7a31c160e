/**
 * Checks a channel before alerts are routed to it: a channel the bot cannot see would make every
 * later alert fail with `channel_not_found` (the alerts are lost to the people who asked for them),
 * so `watch` refuses it now, while someone is there to read why. Changes announced in another
 * channel check it too, and say in plain words why a channel was not told (`whyNotPosted`).
 */
import type { webApi } from '@slack/bolt';
import type { Logger } from '../../observability/logger.js';
import { inlineCode } from '../mrkdwn.js';

export type ChannelCheck =
  | { status: 'ok' }
  /** The bot can see the channel but is not in it: posting fails until someone invites it. */
  | { status: 'not_member' }
  /** Slack says there is no such channel for this bot (deleted, mistyped, or private without the bot). */
  | { status: 'not_found'; error: string }
  /** Slack could not answer (rate limit, scope, network): do not block on it. */
  | { status: 'unknown'; error: string };

const NOT_FOUND = new Set(['channel_not_found', 'not_in_channel', 'is_archived', 'invalid_channel']);

export async function checkChannel(client: webApi.WebClient, channel: string, logger: Logger): Promise<ChannelCheck> {
  try {
    const info = await client.conversations.info({ channel });
    const details = info.channel as { is_member?: boolean; is_archived?: boolean } | undefined;
    if (details?.is_archived) return { status: 'not_found', error: 'is_archived' };
    return details?.is_member === false ? { status: 'not_member' } : { status: 'ok' };
  } catch (error) {
    const platform = (error as { data?: { error?: string } }).data?.error;
    if (platform && NOT_FOUND.has(platform)) return { status: 'not_found', error: platform };
    logger.warn({ err: { message: (error as Error)?.message }, channel }, 'could not check the channel before routing to it');
    return { status: 'unknown', error: platform ?? 'request_failed' };
  }
}

/** Why a message could not be posted in a channel, in plain words, from Slack's error code. */
export function whyNotPosted(error: string): string {
  const code = inlineCode(error);
  switch (error) {
    case 'not_in_channel':
      return `StreamDoctor is not a member of it (${code}); invite it there with \`/invite @StreamDoctor\``;
    case 'channel_not_found':
      return `StreamDoctor cannot see it (${code}): a private channel it is not in, or one since deleted`;
    case 'is_archived':
      return `it is archived (${code})`;
    case 'request_failed':
      return `Slack did not answer (${code})`;
    default:
      return `Slack refused the message (${code})`;
  }
}
