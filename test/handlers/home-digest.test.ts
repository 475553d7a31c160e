/** App Home (app_home_opened → views.publish) and the digest with its PNG chart (files.uploadV2). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import { nowOf } from '../../src/slack/deps.js';
import { WebClientChat } from '../../src/slack/gateway/slack-chat.js';
import { buildDigestContent } from '../../src/slack/operations/post-digest.js';
import { BOT_TOKEN, CHANNEL, DEV, MARIA, startHarness, type Harness } from './helpers/harness.js';
import { postAlert, seedScenario, type SeededStream } from './helpers/seed.js';

let h: Harness;
let orders: SeededStream;
let sensor: SeededStream;
let healthy: SeededStream;
let nowMs = 0;
const text = (json: unknown) => JSON.stringify(json);

beforeAll(async () => {
  h = await startHarness({ now: () => nowMs });
  orders = await seedScenario(h.store, 'kafka-uncapped-overload-12pct');
  sensor = await seedScenario(h.store, 'kafka-partition-bound');
  healthy = await seedScenario(h.store, 'healthy-steady');
  nowMs = Math.max(orders.nowMs, sensor.nowMs, healthy.nowMs);
  for (const stream of [orders, sensor, healthy]) await h.store.routing.setRoute('query', stream.queryId, CHANNEL);
  for (const record of [...orders.incidents, ...sensor.incidents]) await postAlert(h.client, h.deps, record, CHANNEL);
  await h.store.incidents.acknowledge(sensor.incidents[0]!.id, DEV, nowMs);
  await h.store.silences.silence(orders.queryId, nowMs + 3_600_000, MARIA, nowMs);
});

afterAll(async () => {
  await h?.close();
});

describe('App Home', () => {
  it('publishes open incidents, silences and watches when the person opens the Home tab', async () => {
    const outcome = await h.slack.interactions.openHome({ user: DEV });
    expect(outcome.delivery.status).toBe(200);
    const home = await h.until(() => h.slack.homeView(DEV));
    const body = text(home.blocks);
    expect(body).toContain('Open incidents (2)');
    // Dev's own acknowledged incident comes first.
    expect(body.indexOf('sensor_ingest')).toBeLessThan(body.indexOf('orders_5min_agg'));
    expect(body).toContain(`👀 <@${DEV}>`);
    expect(body).toContain('Silenced streams (1)');
    expect(body).toContain('🔕 `orders_5min_agg` until');
    expect(body).toContain('Watches: streams, jobs and pipelines (3)');
    expect(body).toContain('query `orders_ingest` → <#C0DATAALRT>');
    expect(home.blocks.length).toBeLessThanOrEqual(100);
  });

  it('Unsilence on the Home ends the silence and re-publishes', async () => {
    const home = h.slack.homeView(DEV)!;
    const outcome = await h.slack.interactions.viewAction({ user: DEV, viewId: home.id, actionId: ACTION_IDS.homeUnsilence });
    expect(outcome.delivery.status).toBe(200);
    await h.until(async () => !(await h.store.silences.isSilenced(orders.queryId)));
    const updated = await h.until(() => (text(h.slack.homeView(DEV)!.blocks).includes('Silenced streams (0)') ? h.slack.homeView(DEV) : undefined));
    expect(text(updated!.blocks)).toContain('no longer silenced');
  });
});

describe('digest', () => {
  it('`/stream digest` posts the channel digest with the chart in its thread, through the digest job and its poster', async () => {
    const before = h.slack.messages(CHANNEL).length;
    const outcome = await h.slack.interactions.slashCommand({ user: MARIA, channel: CHANNEL, text: 'digest' });
    expect(outcome.delivery.status).toBe(200);
    const digest = await h.until(() => h.slack.messages(CHANNEL).slice(before).find((m) => text(m.blocks).includes('Daily stream health')));
    const body = text(digest.blocks);
    expect(body).toContain('Daily stream health · #data-alerts');
    const healths = (await h.store.streams.list()).map((stream) => stream.snapshot?.health ?? stream.health);
    const worst = healths.includes('critical') ? '🔴 *Streams in trouble*' : '🟠 *Some streams need attention*';
    expect(body).toContain(worst);
    expect(body).toContain(`🟢 ${healths.filter((health) => health === 'ok').length} ok`);
    expect(body.indexOf('orders_ingest')).toBeGreaterThan(body.indexOf('sensor_ingest')); // worst first
    expect(body).toContain('*Incidents active in the last 24 h* · 2 (2 still open)');
    expect(body).toContain(`ack <@${DEV}>`);
    expect(digest.blocks!.length).toBeLessThanOrEqual(50);
    const chartMessage = await h.until(() => h.slack.thread(CHANNEL, digest.ts).find((m) => (m.files ?? []).length > 0));
    const file = h.slack.files().find((f) => f.id === chartMessage.files![0]!.id)!;
    expect(file.mimetype).toBe('image/png');
    expect(file.bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(file.name).toMatch(/^time-behind-\d{4}-\d{2}-\d{2}\.png$/);
    const reply = await h.until(() => h.slack.responses().find((r) => r.url === outcome.responseUrl && r.responses.length > 0));
    expect((reply.responses[0] as { text: string }).text).toContain('The digest is on its way');
    // Posted by the digest job through the poster (its message key in the metadata), like the daily one.
    expect((digest.metadata as { event_payload?: { key?: string } } | undefined)?.event_payload?.key).toMatch(/^digest\.now\./);
  });

  it('postDigest for a channel with no streams still posts a helpful digest without a chart', async () => {
    const result = await postDigest(h, 'C0GENERAL1');
    expect(result).toMatchObject({ streams: 0, incidents: 0, chart: 'skipped' });
    const message = h.slack.messages('C0GENERAL1').find((m) => m.ts === result.ts)!;
    expect(text(message.blocks)).toContain('No streams are routed to this channel');
  });
});

describe('digest of a channel the watch file routes by name', () => {
  it('lists the incidents resolved in its window, not only the open ones', async () => {
    let nowMs = 0;
    const other = await startHarness({ now: () => nowMs });
    try {
      const scaled = await seedScenario(other.store, 'lag-then-scale-up');
      nowMs = scaled.nowMs;
      const resolved = scaled.incidents.find((r) => r.state === 'resolved')!;
      expect(resolved).toBeDefined();
      // The watch file writes `channel: "#data-alerts"`: notify assigned the incident to that name.
      await other.store.routing.setRoute('query', scaled.queryId, '#data-alerts');
      await other.store.incidents.assignChannel(resolved, '#data-alerts', nowMs);
      const result = await postDigest(other, CHANNEL);
      const body = text(other.slack.messages(CHANNEL).find((m) => m.ts === result.ts)!.blocks);
      expect(result.incidents).toBeGreaterThanOrEqual(1);
      expect(body).toContain('*Incidents active in the last 24 h* · 1 (0 still open)');
    } finally {
      await other.close();
    }
  });
});

interface PostDigestResult {
  channel: string;
  ts: string;
  streams: number;
  incidents: number;
  chart: 'uploaded' | 'skipped' | 'failed';
}

/** The digest job's steps in one call, posting with the plain client (what the job does through its poster). */
async function postDigest(harness: Harness, channel: string): Promise<PostDigestResult> {
  const { client, deps } = harness;
  const chat = new WebClientChat({ token: BOT_TOKEN, slackApiUrl: harness.slack.apiUrl });
  const nowMs = nowOf(deps);
  const name = await chat.channelName(channel);
  const content = await buildDigestContent(deps, channel, name, nowMs);
  const posted = await client.chat.postMessage({ channel, text: content.message.text, blocks: content.message.blocks, unfurl_links: false, unfurl_media: false });
  const ts = posted.ts as string;
  let chart: PostDigestResult['chart'] = 'skipped';
  if (content.chart) {
    try {
      await chat.uploadChart(channel, ts, content.chart, nowMs);
      chart = 'uploaded';
    } catch (error) {
      chart = 'failed';
      deps.logger.warn({ err: error, channel }, 'digest chart could not be uploaded; the digest was posted without it');
    }
  }
  return { channel, ts, streams: content.streams, incidents: content.incidents, chart };
}
