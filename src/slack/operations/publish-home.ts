/**
 * Builds and publishes one person's App Home: open incidents (theirs first: ones they
 * acknowledged), silenced streams, and the watches in place.
 */
import type { webApi } from '@slack/bolt';
import { nowOf, type SlackDeps } from '../deps.js';
import { contextBlock } from '../limits.js';
import { escapeMrkdwn } from '../mrkdwn.js';
import { renderAppHome } from '../render/app-home.js';

export async function publishHome(client: webApi.WebClient, deps: SlackDeps, userId: string, notice?: string): Promise<void> {
  const nowMs = nowOf(deps);
  const [open, silences, routes, streams] = await Promise.all([
    deps.store.listOpenIncidents(),
    deps.store.silences.list(nowMs),
    deps.store.routing.listRoutes(),
    deps.store.listStreams(),
  ]);
  const names = new Map(streams.map((stream) => [stream.queryId, stream.name]));
  const mineFirst = [...open].sort((a, b) => Number(b.acknowledgedBy === userId) - Number(a.acknowledgedBy === userId) || b.openedAt - a.openedAt);
  const view = renderAppHome({
    userId,
    nowMs,
    openIncidents: mineFirst.map((record) => ({ ...record, queryName: names.get(record.queryId) ?? record.queryName, channel: record.slack?.channel ?? record.channel })),
    silences: silences.map((silence) => ({ queryId: silence.queryId, name: names.get(silence.queryId) ?? null, untilMs: silence.untilMs, byUser: silence.byUser })),
    watches: routes.map((route) => ({
      target: route.scope === 'query' ? (names.get(route.id) ?? route.id) : route.id,
      kind: route.scope,
      channel: route.channel,
    })),
  });
  // A one-off notice (e.g. the result of a Home button) goes right under the title.
  if (notice) view.blocks.splice(1, 0, contextBlock([escapeMrkdwn(notice).replace(/&lt;(@[UW][A-Z0-9]+|#[CG][A-Z0-9]+)&gt;/g, '<$1>')]));
  await client.views.publish({ user_id: userId, view: { ...view, blocks: view.blocks.slice(0, 100) } });
}
