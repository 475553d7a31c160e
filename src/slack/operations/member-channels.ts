/**
 * The channels a person is a member of (`users.conversations` with `user`; scopes channels:read and
 * groups:read), so their App Home shows what concerns them. Paged with a bound: a failure or a
 * membership too large to read whole is reported, and the caller shows nothing of other channels
 * (fail closed).
 */
import type { webApi } from '@slack/bolt';

export interface MemberChannelsOptions {
  /** Channels asked per page. @defaultValue 1000 (Slack's maximum) */
  pageSize?: number;
  /** Pages read before giving up (bounds time on huge workspaces). @defaultValue 10 */
  maxPages?: number;
}

/** `channels`: ids; `names`: their names, lower case without `#` (the watch file may route by name). */
export type MemberChannels = { ok: true; channels: Set<string>; names: Set<string> } | { ok: false; reason: string; error?: unknown };

/** Whether a route target (an id, or `#name` as the watch file writes it) is one of these channels. */
export function includesChannel(membership: { channels: Set<string>; names: Set<string> }, target: string | null | undefined): boolean {
  if (target == null) return false;
  return membership.channels.has(target) || membership.names.has(target.replace(/^#/, '').toLowerCase());
}

function reasonOf(error: unknown): string {
  const data = (error as { data?: { error?: unknown } } | null)?.data;
  if (data && typeof data.error === 'string') return data.error;
  return error instanceof Error ? error.message : String(error);
}

export async function memberChannels(client: webApi.WebClient, userId: string, options: MemberChannelsOptions = {}): Promise<MemberChannels> {
  const limit = options.pageSize ?? 1000;
  const maxPages = options.maxPages ?? 10;
  const channels = new Set<string>();
  const names = new Set<string>();
  let cursor: string | undefined;
  try {
    for (let page = 0; page < maxPages; page += 1) {
      const answer = await client.users.conversations({
        user: userId,
        types: 'public_channel,private_channel',
        exclude_archived: true,
        limit,
        ...(cursor ? { cursor } : {}),
      });
      for (const channel of answer.channels ?? []) {
        if (channel.id) channels.add(channel.id);
        if (channel.name) names.add(channel.name.toLowerCase());
      }
      cursor = answer.response_metadata?.next_cursor || undefined;
      if (!cursor) return { ok: true, channels, names };
    }
    return { ok: false, reason: `more than ${maxPages * limit} channels` };
  } catch (error) {
    return { ok: false, reason: reasonOf(error), error };
  }
}
