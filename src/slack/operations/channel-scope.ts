/**
 * Channel scope of `/stream` commands. A command acts on the streams routed to the channel it is
 * typed in. Another channel's stream needs its name with that `#channel`, and the caller must be a
 * member of that channel (users.conversations); when membership cannot be read, the answer is no
 * (fail closed). No answer (match, suggestion, candidate list, refusal) names a stream routed to a
 * private channel the caller is not in: it reads as missing. Every refusal says why and what to type instead.
 * Buttons that change a stream (an alert's, the App Home's) follow the same rule when clicked: `mayActOn`.
 */
import type { webApi } from '@slack/bolt';
import type { StreamInfo, StreamRecord } from '../../store/types.js';
import { channelIdFromToken, shownInput } from '../command-text.js';
import type { SlackDeps } from '../deps.js';
import { channelMention, inlineCode } from '../mrkdwn.js';
import { lookupStream, type StreamLookup } from './stream-lookup.js';
import { includesChannel, memberChannels } from './member-channels.js';

const TOKEN_ERRORS = new Set(['invalid_auth', 'not_authed', 'token_revoked', 'token_expired', 'account_inactive']);

/** Who asks, from where. */
export interface CallerScope {
  client: webApi.WebClient;
  deps: SlackDeps;
  userId: string;
  /** The channel the command was typed in. */
  channelId: string;
  /** Its name as Slack sent it (no #), for routes the watch file wrote by name. */
  channelName?: string | undefined;
}

/** A query as typed, split from a `#channel` (`<#C…|name>`) written with it. */
export interface ScopedQuery {
  query: string | null;
  channel: { id: string; name: string | null } | null;
  /** A `#word` that was not sent as a channel link (typed by hand, not picked from autocomplete). */
  bareChannel: string | null;
}

export function splitChannel(text: string | null): ScopedQuery {
  if (text == null) return { query: null, channel: null, bareChannel: null };
  let channel: ScopedQuery['channel'] = null;
  let bareChannel: string | null = null;
  const words: string[] = [];
  for (const word of text.replace(/<#[CG][A-Z0-9]+(?:\|[^>]*)?>/g, (token) => ` ${token} `).split(/\s+/).filter(Boolean)) {
    const id = channelIdFromToken(word);
    if (id) channel = { id, name: /\|([^>]+)>$/.exec(word)?.[1] ?? null };
    else if (/^#[\w.-]+$/.test(word) && words.length > 0) bareChannel = word;
    else words.push(word);
  }
  const query = words.join(' ').trim();
  return { query: query === '' ? null : query, channel, bareChannel };
}

/**
 * Per command: the caller's channels (read once, lazily), which channels are private and what they
 * are called (asked once each). Any failure to read answers "not a member" / "private": the safe side.
 */
export class CallerChannels {
  private membership: ReturnType<typeof memberChannels> | null = null;
  private readonly info = new Map<string, Promise<{ name: string | null; isPrivate: boolean } | null>>();
  private directory: Promise<Map<string, string> | null> | null = null;

  constructor(private readonly scope: CallerScope) {}

  /** `ok: false` when Slack would not say (then the caller is treated as not a member). */
  async isMember(channel: string): Promise<{ ok: true; member: boolean } | { ok: false; reason: string }> {
    this.membership ??= memberChannels(this.scope.client, this.scope.userId);
    const membership = await this.membership;
    if (!membership.ok) {
      // A refused bot token is not a membership question: the listener guard explains it.
      if (TOKEN_ERRORS.has(membership.reason) && membership.error) throw membership.error;
      this.scope.deps.logger.warn({ user: this.scope.userId, reason: membership.reason }, 'could not read the caller’s channels; refusing what needs membership');
      return membership;
    }
    return { ok: true, member: includesChannel(membership, channel) };
  }

  /** conversations.info of a channel id; null when Slack will not say. */
  async details(channel: string): Promise<{ name: string | null; isPrivate: boolean } | null> {
    let known = this.info.get(channel);
    if (!known) {
      known = this.scope.client.conversations
        .info({ channel })
        .then((answer) => {
          const c = answer.channel as { name?: string; is_private?: boolean } | undefined;
          return { name: c?.name ?? null, isPrivate: c?.is_private !== false };
        })
        .catch(() => null);
      this.info.set(channel, known);
    }
    return known;
  }

  /** The id of a route target: an id as is, a name (`#data-alerts`, as the watch file writes) looked up. */
  async idOf(target: string): Promise<string | null> {
    if (/^[CG][A-Z0-9]+$/.test(target)) return target;
    this.directory ??= (async () => {
      const byName = new Map<string, string>();
      let cursor: string | undefined;
      try {
        for (let page = 0; page < 10; page += 1) {
          const answer = await this.scope.client.conversations.list({ types: 'public_channel,private_channel', exclude_archived: true, limit: 1000, ...(cursor ? { cursor } : {}) });
          for (const c of answer.channels ?? []) if (c.id && c.name) byName.set(c.name.toLowerCase(), c.id);
          cursor = answer.response_metadata?.next_cursor || undefined;
          if (!cursor) break;
        }
        return byName;
      } catch {
        return null;
      }
    })();
    const directory = await this.directory;
    return directory?.get(target.replace(/^#/, '').toLowerCase()) ?? null;
  }

  /** Whether the caller may see a channel's streams: a member, or the channel is public. */
  async maySee(target: string): Promise<boolean> {
    if (isHere(this.scope, target)) return true;
    const id = await this.idOf(target);
    if (!id) return false;
    const member = await this.isMember(id);
    if (member.ok && member.member) return true;
    const details = await this.details(id);
    return details !== null && !details.isPrivate;
  }
}

/** Whether a route target (an id, or a name the watch file wrote) means the caller's channel. */
export function isHere(scope: CallerScope, target: string): boolean {
  if (target === scope.channelId) return true;
  const name = scope.channelName?.toLowerCase();
  return name != null && (target.toLowerCase() === name || target.toLowerCase() === `#${name}`);
}

/** Where a stream alerts now (route override, else watch-file default); null when nowhere. */
export async function channelOf(deps: SlackDeps, stream: Pick<StreamInfo, 'queryId' | 'jobId' | 'pipelineId'>): Promise<string | null> {
  return deps.store.routing.resolve(stream, deps.routingDefaults);
}

/** Whether the caller may see a stream: it alerts nowhere, or in a channel they may see. */
async function maySeeStream(scope: CallerScope, stream: StreamRecord, channels: CallerChannels): Promise<boolean> {
  const routed = await channelOf(scope.deps, stream);
  return routed == null || channels.maySee(routed);
}

/**
 * The stream a command means (exact name, else an unambiguous partial one, else the channel's
 * binding), among the streams the caller may see: a hidden stream is never matched, suggested or
 * listed as a candidate, so it reads exactly as a missing one.
 */
export async function findVisibleStream(scope: CallerScope, query: string | null, subcommand: string, channels: CallerChannels = new CallerChannels(scope)): Promise<StreamLookup> {
  if (query == null) return lookupStream(scope.deps, query, scope.channelId, subcommand);
  const all = await scope.deps.store.streams.list();
  const found = await lookupStream(scope.deps, query, scope.channelId, subcommand, all);
  // A visible match among all streams is also the match among the visible ones: skip filtering them all.
  if (found.ok && (await maySeeStream(scope, found.stream, channels))) return found;
  return lookupStream(scope.deps, query, scope.channelId, subcommand, await visibleStreams(scope, all, channels));
}

export type ScopedLookup = { ok: true; stream: StreamRecord; channel: string | null } | { ok: false; message: string };

/**
 * The stream a changing command (`mute`, `unmute`, `ack`, `watch`) may act on. `usage` is the
 * command as the person should type it with the stream name and `#channel` filled in, e.g.
 * `(name, ch) => `/stream mute ${name} ${ch} 2h``: plain text with the raw name (it comes from
 * Databricks), which this function escapes into inline code.
 */
export async function lookupForAction(
  scope: CallerScope,
  text: string | null,
  subcommand: string,
  usage: (name: string, channel: string) => string,
  channels: CallerChannels = new CallerChannels(scope),
): Promise<ScopedLookup> {
  const typed = splitChannel(text);
  if (typed.bareChannel) {
    return { ok: false, message: `Pick the channel from Slack's autocomplete (${shownInput(typed.bareChannel)} was not sent as a channel link), or run the command in that channel.` };
  }
  const found = await findVisibleStream(scope, typed.query, subcommand, channels);
  if (!found.ok) return found;
  const stream = found.stream;
  const name = stream.name || stream.queryId;
  const routed = await channelOf(scope.deps, stream);
  // A channel bound to this stream's incident, or the stream alerts here: this channel's own stream.
  const bound = await scope.deps.store.routing.getChannelBinding(scope.channelId);
  if (routed == null || isHere(scope, routed) || bound === stream.queryId) {
    if (typed.channel && typed.channel.id !== scope.channelId && routed != null) {
      return { ok: false, message: `${inlineCode(name)} alerts in this channel, not in ${channelMention(typed.channel.id)}; nothing changed. Leave the channel out.` };
    }
    return { ok: true, stream, channel: routed };
  }
  const routedId = await channels.idOf(routed);
  const where = routedId ? channelMention(routedId) : inlineCode(routed);
  const routedName = routed.startsWith('#') ? routed : routedId ? `#${(await channels.details(routedId))?.name ?? routedId}` : `#${routed}`;
  if (!typed.channel) {
    return {
      ok: false,
      message: `${inlineCode(name)} alerts in ${where}, not in this channel, so nothing changed. Run the command in ${where}, or name the channel: ${inlineCode(usage(name, routedName))} (pick the channel from the autocomplete; you must be a member of it).`,
    };
  }
  if (typed.channel.id !== routedId) {
    return { ok: false, message: `${inlineCode(name)} alerts in ${where}, not in ${channelMention(typed.channel.id)}; nothing changed. Name ${where} instead.` };
  }
  const member = await channels.isMember(typed.channel.id);
  if (!member.ok) {
    return { ok: false, message: `StreamDoctor could not check that you are a member of ${channelMention(typed.channel.id)} (\`${member.reason}\`), so nothing changed. Run the command in ${channelMention(typed.channel.id)}.` };
  }
  if (!member.member) {
    return { ok: false, message: `${inlineCode(name)} alerts in ${channelMention(typed.channel.id)}, and only its members may ${subcommand} it from another channel; nothing changed. Join ${channelMention(typed.channel.id)} or ask someone there.` };
  }
  return { ok: true, stream, channel: routed };
}

/**
 * The stream a read-only command (`status <query>`, `tune`) may show: any stream except one routed
 * to a private channel the caller is not in, which reads as unknown (its name is not leaked).
 */
export async function lookupForReading(scope: CallerScope, text: string | null, subcommand: string, channels: CallerChannels = new CallerChannels(scope)): Promise<StreamLookup> {
  const typed = splitChannel(text);
  const found = await findVisibleStream(scope, typed.query, subcommand, channels);
  // Only a channel's own binding can name a stream the caller may not see.
  if (!found.ok || (await maySeeStream(scope, found.stream, channels))) return found;
  const command = scope.deps.command ?? '/stream';
  return { ok: false, message: `No stream called ${shownInput(typed.query ?? '')} that you can see. \`${command} status all\` lists the streams you can see.` };
}

/** The streams the caller may see, of `streams` (drops those routed to private channels they are not in). */
export async function visibleStreams(scope: CallerScope, streams: StreamRecord[], channels: CallerChannels = new CallerChannels(scope)): Promise<StreamRecord[]> {
  const out: StreamRecord[] = [];
  for (const stream of streams) if (await maySeeStream(scope, stream, channels)) out.push(stream);
  return out;
}

export type ActDecision = { ok: true } | { ok: false; message: string };

/**
 * Whether the caller may change a stream from a button (an alert's, the App Home's): the rule of the
 * changing commands, judged when clicked against where the stream alerts now, since an alert or a
 * Home can be hours older than the `/stream watch` that moved it. Clicked in that channel (or one
 * bound to the stream), or a member of it; when membership cannot be read, no. `scope.channelId` is
 * where the click came from ('' on the App Home, which is no channel). `verb` is what the button does
 * (`silence`). A refusal names neither the stream nor its channel unless the caller may see them.
 */
export async function mayActOn(
  scope: CallerScope,
  stream: Pick<StreamInfo, 'queryId' | 'jobId' | 'pipelineId' | 'name'>,
  verb: string,
  channels: CallerChannels = new CallerChannels(scope),
): Promise<ActDecision> {
  const routed = await channelOf(scope.deps, stream);
  if (routed == null || isHere(scope, routed)) return { ok: true };
  if (scope.channelId && (await scope.deps.store.routing.getChannelBinding(scope.channelId)) === stream.queryId) return { ok: true };
  const id = await channels.idOf(routed);
  const member = id ? await channels.isMember(id) : ({ ok: false, reason: 'channel_not_found' } as const);
  if (member.ok && member.member) return { ok: true };
  const elsewhere = scope.channelId ? ' from another channel' : '';
  if (id && (await channels.maySee(id))) {
    const where = channelMention(id);
    if (!member.ok) return { ok: false, message: `StreamDoctor could not check that you are a member of ${where} (\`${member.reason}\`), where ${inlineCode(stream.name || stream.queryId)} alerts now, so nothing changed. Do it in ${where}.` };
    return { ok: false, message: `${inlineCode(stream.name || stream.queryId)} alerts in ${where} now, and only its members may ${verb} it${elsewhere}; nothing changed. Join ${where} or ask someone there.` };
  }
  // A private channel (or one Slack will not describe): neither it nor the stream is named.
  if (!member.ok) return { ok: false, message: `This stream alerts in another channel now, and StreamDoctor could not check that you are a member of it (\`${member.reason}\`), so nothing changed.` };
  return { ok: false, message: `This stream alerts in another channel now, one you are not a member of; only its members may ${verb} it${elsewhere}, so nothing changed.` };
}
