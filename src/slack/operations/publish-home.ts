/**
 * Builds and publishes one person's App Home: what concerns them, i.e. open incidents and silenced
 * streams in channels they are a member of (theirs first: ones they acknowledged), and the watches
 * that post there. When their channels cannot be read, it shows nothing of any channel and says so
 * (fail closed: a private channel's incidents never reach someone outside it).
 */
import type { webApi } from '@slack/bolt';
import { nowOf, type SlackDeps } from '../deps.js';
import { contextBlock } from '../limits.js';
import { userFacingError } from '../listener-guard.js';
import { toMs } from '../format.js';
import { escapeMrkdwn } from '../mrkdwn.js';
import { renderAppHome, renderAppHomeUnavailable, type HomeWatch } from '../render/app-home.js';
import { episodeOf } from '../render/incident-age.js';
import { includesChannel, memberChannels, type MemberChannelsOptions } from './member-channels.js';

export interface PublishHomeOptions {
  /**
   * A one-off line under the title (e.g. the result of a Home button): mrkdwn, escaped where it was
   * built (the replies of incident-actions and the permission policy are), so it is not escaped again.
   */
  notice?: string;
  /** Paging of the membership lookup. */
  membership?: MemberChannelsOptions;
}

export async function publishHome(client: webApi.WebClient, deps: SlackDeps, userId: string, noticeOrOptions?: string | PublishHomeOptions): Promise<void> {
  const options: PublishHomeOptions = typeof noticeOrOptions === 'string' ? { notice: noticeOrOptions } : (noticeOrOptions ?? {});
  const nowMs = nowOf(deps);
  const [open, silences, routes, streams, membership] = await Promise.all([
    deps.store.incidents.listOpen(),
    deps.store.silences.list(nowMs),
    deps.store.routing.listRoutes(),
    deps.store.streams.list(),
    memberChannels(client, userId, options.membership),
  ]);
  if (!membership.ok) deps.logger.warn({ user: userId, reason: membership.reason }, 'App Home: could not read the person’s channels; showing none');
  // Routes may name a channel (`#data-alerts`, from the watch file) where incidents carry its id.
  const mine = (channel: string | null | undefined): boolean => membership.ok && includesChannel(membership, channel);
  const byId = new Map(streams.map((stream) => [stream.queryId, stream]));
  const names = new Map(streams.map((stream) => [stream.queryId, stream.name]));

  const incidents = open
    .map((record) => ({
      ...record,
      queryName: names.get(record.queryId) ?? record.queryName,
      channel: record.slack?.channel ?? record.channel,
      // The latest snapshot's figure: the summary beside it is from the incident's last update.
      timeBehindNowSec: byId.get(record.queryId)?.snapshot?.timeBehindSec ?? null,
      timeBehindAtMs: toMs(byId.get(record.queryId)?.snapshot?.lastProgressAt ?? null),
    }))
    .filter((record) => mine(record.channel));
  const mineFirst = incidents.sort((a, b) => Number(b.acknowledgedBy === userId) - Number(a.acknowledgedBy === userId) || episodeOf(b).sinceMs - episodeOf(a).sinceMs);

  // A silence belongs to the channels its stream alerts in: where its open incidents are, and its route.
  const silenceChannels = await Promise.all(
    silences.map(async (silence) => {
      const channels = new Set(open.filter((r) => r.queryId === silence.queryId).map((r) => r.slack?.channel ?? r.channel));
      const stream = byId.get(silence.queryId);
      const routed = await deps.store.routing.resolve({ queryId: silence.queryId, ...(stream?.jobId ? { jobId: stream.jobId } : {}), ...(stream?.pipelineId ? { pipelineId: stream.pipelineId } : {}) }, deps.routingDefaults);
      if (routed) channels.add(routed);
      return channels;
    }),
  );
  const visibleSilences = silences.filter((_, index) => [...silenceChannels[index]!].some((channel) => mine(channel)));

  const watches: HomeWatch[] = routes.map((route) => ({
    target: route.scope === 'query' ? (names.get(route.id) ?? route.id) : route.id,
    kind: route.scope,
    channel: route.channel,
  }));
  // Watches from the watch file, unless a /stream watch overrides them.
  const overridden = new Set(routes.map((route) => `${route.scope}:${route.id}`));
  const defaults = deps.routingDefaults;
  const fromFile: [HomeWatch['kind'], Record<string, string> | undefined][] = [['query', defaults?.queries], ['job', defaults?.jobs], ['pipeline', defaults?.pipelines]];
  for (const [kind, table] of fromFile) {
    for (const [id, channel] of Object.entries(table ?? {})) {
      if (!channel || overridden.has(`${kind}:${id}`)) continue;
      watches.push({ target: kind === 'query' ? (names.get(id) ?? id) : id, kind, channel });
    }
  }

  const view = renderAppHome({
    userId,
    nowMs,
    openIncidents: mineFirst,
    silences: visibleSilences.map((silence) => ({ queryId: silence.queryId, name: names.get(silence.queryId) ?? null, untilMs: silence.untilMs, byUser: silence.byUser })),
    watches: watches.filter((watch) => mine(watch.channel)),
  });
  const lines: string[] = [];
  if (options.notice) lines.push(options.notice);
  if (!membership.ok) {
    lines.push(`⚠️ StreamDoctor cannot list the channels you are in (${escapeMrkdwn(membership.reason)}), so it shows none of them here. Use \`/stream status\` in a channel, or ask an admin to reinstall the app with \`channels:read\` and \`groups:read\`.`);
  }
  else lines.push('Showing the channels you are a member of.');
  // Notices go right under the title.
  view.blocks.splice(1, 0, contextBlock(lines));
  await client.views.publish({ user_id: userId, view: { ...view, blocks: view.blocks.slice(0, 100) } });
}

/**
 * Publishes the person's Home (the event and the Home's buttons). When it cannot be built (Redis
 * down or hanging), the Home itself says why: a Home has no response URL, so the listener guard's
 * ephemeral answer reaches nobody. The error is rethrown for the guard to log.
 */
export async function publishHomeOrSayWhy(client: webApi.WebClient, deps: SlackDeps, userId: string, notice?: string): Promise<void> {
  try {
    await publishHome(client, deps, userId, notice);
  } catch (error) {
    await sayWhyOnHome(client, userId, error);
    throw error;
  }
}

/** Replaces the Home with why it cannot be shown; a failure to publish that is left to the guard's log. */
export async function sayWhyOnHome(client: webApi.WebClient, userId: string, error: unknown): Promise<void> {
  await client.views.publish({ user_id: userId, view: renderAppHomeUnavailable(userFacingError(error)) }).catch(() => undefined);
}
