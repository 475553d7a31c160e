/**
 * Builds and posts one channel's digest: the message (src/slack/render/digest.ts), then the chart
 * as a PNG in its thread with files.uploadV2. A chart that fails to draw or upload is logged and
 * skipped; the digest itself still goes out. The digest job (jobs/) and `/stream digest` both use it.
 */
import type { webApi } from '@slack/bolt';
import type { IncidentRecord } from '../../store/types.js';
import { renderTimeBehindChart } from '../chart/time-behind-chart.js';
import type { TimeBehindSeries } from '../chart/time-behind-spec.js';
import { nowOf, type SlackDeps } from '../deps.js';
import { renderDigest } from '../render/digest.js';
import { streamsRoutedTo } from './stream-lookup.js';
import { toStreamView } from './stream-views.js';

const DAY_MS = 24 * 3_600_000;

export interface PostDigestResult {
  channel: string;
  ts: string;
  streams: number;
  incidents: number;
  chart: 'uploaded' | 'skipped' | 'failed';
}

async function channelName(client: webApi.WebClient, channel: string): Promise<string | null> {
  try {
    const info = await client.conversations.info({ channel });
    return (info.channel as { name?: string } | undefined)?.name ?? null;
  } catch {
    return null;
  }
}

export async function postDigest(client: webApi.WebClient, deps: SlackDeps, channel: string): Promise<PostDigestResult> {
  const nowMs = nowOf(deps);
  const since = nowMs - DAY_MS;
  const name = await channelName(client, channel);
  const streams = await streamsRoutedTo(deps, channel, name);
  const entries = await deps.store.incidents.listForChannel(channel, since);
  const fromChannel = await deps.store.incidents.getMany(entries.map((entry) => entry.incidentId));
  // Open incidents of these streams count too, even when they opened more than 24 h ago.
  const streamIds = new Set(streams.map((stream) => stream.queryId));
  const openElsewhere = (await deps.store.listOpenIncidents()).filter((record) => streamIds.has(record.queryId));
  const byId = new Map<string, IncidentRecord>();
  for (const record of [...fromChannel, ...openElsewhere]) byId.set(record.id, record);
  const incidents = [...byId.values()];
  const silences = await deps.store.listSilences();
  const views = streams.map((stream) => toStreamView(stream, incidents, silences.find((silence) => silence.queryId === stream.queryId)));

  const series: TimeBehindSeries[] = [];
  for (const stream of streams.slice(0, 200)) {
    const samples = await deps.store.timeBehindHistory(stream.queryId, since);
    if (samples.length > 0) series.push({ name: stream.name || stream.queryId, points: samples });
  }
  const label = name ? `#${name}` : channel;
  const message = renderDigest({ channelLabel: label, nowMs, streams: views, incidents, withChart: series.length > 0 });
  const posted = await client.chat.postMessage({ channel, text: message.text, blocks: message.blocks, unfurl_links: false, unfurl_media: false });
  const ts = posted.ts as string;

  let chart: PostDigestResult['chart'] = 'skipped';
  if (series.length > 0) {
    try {
      const image = await renderTimeBehindChart(series, { nowMs });
      const day = new Date(nowMs).toISOString().slice(0, 10);
      await client.files.uploadV2({
        channel_id: channel,
        thread_ts: ts,
        file: image.png,
        filename: `time-behind-${day}.png`,
        title: `Time behind per stream, 24 h to ${day}`,
        alt_text: `Line chart of time behind for ${image.drawn.length} stream(s) over the last 24 hours`,
      });
      chart = 'uploaded';
    } catch (error) {
      chart = 'failed';
      deps.logger.warn({ err: error, channel }, 'digest chart could not be drawn or uploaded; the digest was posted without it');
    }
  }
  return { channel, ts, streams: streams.length, incidents: incidents.length, chart };
}
