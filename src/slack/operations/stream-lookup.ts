/**
 * Which stream a command means: the name typed (exact, else an unambiguous partial match), or, when
 * left out, the query bound to this incident channel. Also: the streams routed to a channel.
 */
import type { StreamRecord } from '../../store/types.js';
import type { SlackDeps } from '../deps.js';
import { shownInput } from '../command-text.js';
import { inlineCode } from '../mrkdwn.js';
import { matchQuery } from '../query-match.js';

export type StreamLookup = { ok: true; stream: StreamRecord } | { ok: false; message: string };

function nameList(streams: StreamRecord[]): string {
  const shown = streams.slice(0, 10).map((stream) => `• ${inlineCode(stream.name || stream.queryId)}${stream.name ? ` (${inlineCode(stream.queryId.slice(0, 8))}…)` : ''}`);
  if (streams.length > 10) shown.push(`…and ${streams.length - 10} more`);
  return shown.join('\n');
}

/** `pool`: match among these streams only (default: every stream); replies name only streams from it. */
export async function lookupStream(deps: SlackDeps, query: string | null, channel: string, subcommand: string, pool?: StreamRecord[]): Promise<StreamLookup> {
  const command = deps.command ?? '/stream';
  if (query == null) {
    const bound = await deps.store.routing.getChannelBinding(channel);
    if (bound) {
      const stream = await deps.store.streams.get(bound);
      if (stream) return { ok: true, stream };
    }
    return { ok: false, message: `Say which stream: \`${command} ${subcommand} <query>\`. (Only a channel bound to one incident can leave it out.)` };
  }
  const streams = pool ?? (await deps.store.streams.list());
  const result = matchQuery(query, streams);
  if (result.kind === 'match') return { ok: true, stream: result.stream };
  if (result.kind === 'ambiguous') {
    return { ok: false, message: `${shownInput(query)} matches ${result.candidates.length} streams; say which one:\n${nameList(result.candidates)}` };
  }
  const hint = result.suggestions.length > 0 ? ` Did you mean:\n${nameList(result.suggestions)}` : ` \`${command} status all\` lists the streams you can see.`;
  return { ok: false, message: `No stream called ${shownInput(query)}.${hint}` };
}

/**
 * Streams whose alerts go to `channel` (overrides from `watch`, then the watch-file defaults). The
 * watch file may name channels (`#data-alerts`) where Slack gives ids, so a known name matches too.
 */
export async function streamsRoutedTo(deps: Pick<SlackDeps, 'store' | 'routingDefaults'>, channel: string, channelName?: string | null): Promise<StreamRecord[]> {
  const streams = await deps.store.streams.list();
  const names = channelName ? new Set([channelName.toLowerCase(), `#${channelName.toLowerCase()}`]) : new Set<string>();
  const routed: StreamRecord[] = [];
  for (const stream of streams) {
    const target = await deps.store.routing.resolve(stream, deps.routingDefaults);
    if (target === channel || (target != null && names.has(target.toLowerCase()))) routed.push(stream);
  }
  return routed;
}
