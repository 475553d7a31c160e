/**
 * One channel's digest: the message (src/slack/render/digest.ts) and the chart of time behind per
 * stream, drawn here as a PNG. `buildDigestContent` gathers and renders without posting, so the
 * digest job (the daily digest and `/stream digest`) posts through its own idempotent poster and
 * then uploads the chart into the digest's thread through the Slack gateway
 * (`SlackChat.uploadChart`, files.uploadV2). A chart that fails to draw or upload is logged and
 * skipped: the digest itself still goes out.
 */
import type { Logger } from '../../observability/logger.js';
import type { RedisStore } from '../../store/redis-store.js';
import type { IncidentRecord, RoutingDefaults } from '../../store/types.js';
import { renderTimeBehindChart, type RenderedChart } from '../chart/time-behind-chart.js';
import type { TimeBehindSeries } from '../chart/time-behind-spec.js';
import { renderDigest } from '../render/digest.js';
import { sortWorstFirst } from '../render/status-table.js';
import type { RenderedMessage } from '../render/types.js';
import { streamsRoutedTo } from './stream-lookup.js';
import { toStreamView } from './stream-views.js';

const DAY_MS = 24 * 3_600_000;
/** Most streams whose time-behind history one digest reads for its chart. */
const CHART_READS = 200;

export interface DigestSources {
  store: RedisStore;
  routingDefaults?: RoutingDefaults;
  logger?: Logger;
}

export interface DigestContent {
  message: RenderedMessage;
  /** null when no stream has time-behind samples in the window, or drawing failed (logged). */
  chart: RenderedChart | null;
  streams: number;
  incidents: number;
}

export async function buildDigestContent(sources: DigestSources, channel: string, name: string | null, nowMs: number): Promise<DigestContent> {
  const since = nowMs - DAY_MS;
  const store = sources.store;
  const streams = await streamsRoutedTo({ store, routingDefaults: sources.routingDefaults }, channel, name);
  // Incidents are listed under the channel their route named: the id, or the name the watch file
  // wrote (`#data-alerts`), so resolved ones routed by name are in the digest too.
  const entries = [
    ...(await store.incidents.listForChannel(channel, since)),
    ...(name ? await store.incidents.listForChannel(`#${name}`, since) : []),
    ...(name ? await store.incidents.listForChannel(name, since) : []),
  ];
  const fromChannel = await store.incidents.getMany(entries.map((entry) => entry.incidentId));
  // Open incidents of these streams count too, even when they opened more than 24 h ago.
  const streamIds = new Set(streams.map((stream) => stream.queryId));
  const openElsewhere = (await store.incidents.listOpen()).filter((record) => streamIds.has(record.queryId));
  const byId = new Map<string, IncidentRecord>();
  for (const record of [...fromChannel, ...openElsewhere]) byId.set(record.id, record);
  const incidents = [...byId.values()];
  const silences = await store.silences.list(nowMs);
  const views = streams.map((stream) => toStreamView(stream, incidents, silences.find((silence) => silence.queryId === stream.queryId)));

  // The chart draws the worst by peak time behind; history is read for CHART_READS streams at most,
  // those with an incident in the window first, then the worst now, so a big channel's worst is in.
  const hadIncident = new Set(incidents.map((record) => record.queryId));
  const worstNow = new Map(sortWorstFirst(views).map((view, index) => [view.queryId, index]));
  const toRead = [...streams]
    .sort((a, b) => Number(hadIncident.has(b.queryId)) - Number(hadIncident.has(a.queryId)) || worstNow.get(a.queryId)! - worstNow.get(b.queryId)!)
    .slice(0, CHART_READS);
  const series: TimeBehindSeries[] = [];
  for (const stream of toRead) {
    const samples = await store.history.timeBehind(stream.queryId, since);
    if (samples.length > 0) series.push({ name: stream.name || stream.queryId, points: samples });
  }
  let chart: RenderedChart | null = null;
  if (series.length > 0) {
    try {
      chart = await renderTimeBehindChart(series, { nowMs, notRead: streams.length - toRead.length });
    } catch (error) {
      sources.logger?.warn({ err: error, channel }, 'digest chart could not be drawn; the digest goes out without it');
    }
  }
  const message = renderDigest({ channelLabel: name ? `#${name}` : channel, nowMs, streams: views, incidents, withChart: chart !== null });
  return { message, chart, streams: streams.length, incidents: incidents.length };
}
