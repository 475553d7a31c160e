/**
 * The channels a person is a member of (`users.conversations` with `user`; scopes channels:read and
 * groups:read), so their App Home shows what concerns them. Paged with a bound: a failure or a
 * membership too large to read whole is reported, and the caller shows everything instead.
 */
import type { webApi } from '@slack/bolt';

export interface MemberChannelsOptions {
  /** Channels asked per page. @defaultValue 1000 (Slack's maximum) */
  pageSize?: number;
  /** Pages read before giving up (bounds time on huge workspaces). @defaultValue 10 */
  maxPages?: number;
}

export type MemberChannels = { ok: true; channels: Set<string> } | { ok: false; reason: string };

function reasonOf(error: unknown): string {
  const data = (error as { data?: { error?: unknown } } | null)?.data;
  if (data && typeof data.error === 'string') return data.error;
  return error instanceof Error ? error.message : String(error);
}

export async function memberChannels(client: webApi.WebClient, userId: string, options: MemberChannelsOptions = {}): Promise<MemberChannels> {
  const limit = options.pageSize ?? 1000;
  const maxPages = options.maxPages ?? 10;
  const channels = new Set<string>();
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
      for (const channel of answer.channels ?? []) if (channel.id) channels.add(channel.id);
      cursor = answer.response_metadata?.next_cursor || undefined;
      if (!cursor) return { ok: true, channels };
    }
    return { ok: false, reason: `more than ${maxPages * limit} channels` };
  } catch (error) {
    return { ok: false, reason: reasonOf(error) };
  }
}
