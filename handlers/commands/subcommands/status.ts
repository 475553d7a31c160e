/** `/stream status [query|all]`: the health table of this channel's streams, one stream, or all. */
import type { StreamRecord } from '../../../src/store/types.js';
import { nowOf } from '../../../src/slack/deps.js';
import { lookupForReading, visibleStreams } from '../../../src/slack/operations/channel-scope.js';
import { streamsRoutedTo } from '../../../src/slack/operations/stream-lookup.js';
import { toStreamView } from '../../../src/slack/operations/stream-views.js';
import { renderStatus } from '../../../src/slack/render/status-table.js';
import { replyPrivately, scopeOf, type CommandContext } from '../command-context.js';

export async function statusSubcommand(ctx: CommandContext, query: string | null, all: boolean): Promise<void> {
  const { store } = ctx.deps;
  let streams: StreamRecord[];
  let scopeLabel: string;
  if (all) {
    // Every stream the caller may see: none routed to a private channel they are not in.
    streams = await visibleStreams(scopeOf(ctx), await store.streams.list());
    scopeLabel = 'all streams';
  } else if (query) {
    const found = await lookupForReading(scopeOf(ctx), query, 'status');
    if (!found.ok) return replyPrivately(ctx, found.message);
    streams = [found.stream];
    scopeLabel = found.stream.name || found.stream.queryId;
  } else {
    streams = await streamsRoutedTo(ctx.deps, ctx.channelId, ctx.channelName);
    scopeLabel = 'this channel';
    if (streams.length === 0) {
      const bound = await store.routing.getChannelBinding(ctx.channelId);
      const stream = bound ? await store.streams.get(bound) : null;
      if (stream) streams = [stream];
    }
  }
  const [open, silences] = await Promise.all([store.incidents.listOpen(), store.silences.list()]);
  const views = streams.map((stream) => toStreamView(stream, open, silences.find((silence) => silence.queryId === stream.queryId)));
  await replyPrivately(ctx, renderStatus(views, { nowMs: nowOf(ctx.deps), scopeLabel, scope: all ? 'all' : 'channel' }));
}
