/**
 * The whole pipeline in one process against real Redis and the local Slack: simulated Databricks
 * progress → poll → detect (the real engine) → notify → Slack. Every progress event is observed once
 * (also when the source replays from scratch), and each incident has exactly one Slack message that
 * is updated in place.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { engineTrackers } from '../../jobs/engine-trackers.js';
import { WebClientChat } from '../../src/slack/gateway/slack-chat.js';
import { pipelineRoutes, startHttpServer } from '../../src/runtime/http-routes.js';
import { startWorker, type WorkerRuntime } from '../../src/runtime/pipeline-runtime.js';
import { startLocalSlack, type LocalSlack } from '../../src/standins/slack/index.js';
import { incidentIdOf } from '../../src/store/index.js';
import { deletePrefix, REDIS_URL, silentLogger, uniquePrefix, waitFor } from './helpers/harness.js';
import { SimulatedSource, queryIdOf } from './helpers/sim-source.js';

let runtime: WorkerRuntime | undefined;
let slack: LocalSlack | undefined;
let prefixes: { prefix: string; queuePrefix: string } | undefined;

afterEach(async () => {
  await runtime?.close();
  await slack?.close();
  if (prefixes) await deletePrefix(REDIS_URL, prefixes.prefix);
  runtime = undefined;
  slack = undefined;
});

async function counter(rt: WorkerRuntime, name: string): Promise<number> {
  const metric = await rt.metrics.registry.getSingleMetric(name)?.get();
  return (metric?.values ?? []).reduce((sum, v) => sum + v.value, 0);
}

describe('pipeline in one process', () => {
  it('detects every batch once and posts each incident once, updating it in place', async () => {
    prefixes = uniquePrefix('pipe');
    slack = await startLocalSlack();
    // ~50 batches of ~10–11.5 s end just before now, so "now" ticks see live streams.
    // Under the inbox bound (60): a first poll of more history drops the oldest (see the store test).
    const settings = { queries: 6, laggingQueries: 1, startMs: Date.now() - 9 * 60_000, batches: 70 };
    // The source's clock stands still, so the replay below sees exactly the batches the first poll saw
    // (with a running clock a batch ending between the two polls is new, not a duplicate).
    const frozenAt = Date.now();
    const source = new SimulatedSource(settings, () => frozenAt);
    runtime = await startWorker({
      redisUrl: REDIS_URL,
      ...prefixes,
      logger: silentLogger,
      sources: new Map([['sim', { id: 'sim', source, describe: (p) => ({ jobId: `job-${p.id.slice(-2)}` }) }]]),
      trackers: engineTrackers(),
      chat: new WebClientChat({ token: 'xoxb-local-streamdoctor', slackApiUrl: slack.apiUrl }),
      routing: { defaultChannel: 'C0DATAALRT' },
    });
    const expected = source.visible(frozenAt);
    expect(expected).toBeGreaterThan(250);
    expect(expected).toBeLessThanOrEqual(6 * 60);

    await runtime.queues.poll.add('poll', { sourceId: 'sim' });
    await waitFor(async () => (await counter(runtime!, 'streamdoctor_progress_events_total')) >= expected, 'all progress observed');

    const lagging = await waitFor(async () => {
      const open = await runtime!.store.incidents.listOpen();
      return open.find((r) => r.queryId === queryIdOf(0) && r.kind === 'lag' && r.slack !== null);
    }, 'the lag incident posted');
    if (!lagging) throw new Error('unreachable');
    const messages = slack.messages('C0DATAALRT');
    const keyed = messages.filter((m) => (m.metadata as { event_payload?: { key?: string } } | undefined)?.event_payload?.key === lagging.id);
    expect(keyed).toHaveLength(1);
    expect(keyed[0]!.ts).toBe(lagging.slack!.ts);
    expect(keyed[0]!.text).toContain('orders_lagging_0');
    // Steady queries open nothing; the only top-level messages are incidents of the lagging query.
    for (const m of messages) expect(String((m.metadata as { event_payload?: { key?: string } }).event_payload?.key)).toContain(queryIdOf(0));

    const stream = await runtime.store.streams.get(queryIdOf(3));
    expect(stream).toMatchObject({ name: 'orders_steady_3', jobId: 'job-03', source: 'sim', health: 'ok' });
    expect(stream!.snapshot?.lastBatchId).toBe(stream!.lastObservedBatchId);
    // Batch ids run 0..N without gaps in this simulation: observed exactly once each.
    expect(stream!.observedCount).toBe(stream!.lastObservedBatchId! + 1);
    expect(await runtime.store.history.timeBehind(queryIdOf(0), 0)).not.toHaveLength(0);

    // The source forgets its cursor and replays everything: nothing is observed twice.
    await runtime.store.cursors.set('sim', null);
    await runtime.queues.poll.add('poll', { sourceId: 'sim' });
    await waitFor(async () => (await counter(runtime!, 'streamdoctor_progress_duplicates_total')) >= expected, 'replay skipped');
    await waitFor(async () => (await runtime!.queues.depths()).detect!.waiting === 0, 'detect drained');
    expect(await counter(runtime, 'streamdoctor_progress_events_total')).toBe(expected);
    expect(slack.messages('C0DATAALRT').filter((m) => (m.metadata as { event_payload?: { key?: string } }).event_payload?.key === lagging.id)).toHaveLength(1);
    expect(incidentIdOf(queryIdOf(0), lagging.incident)).toBe(lagging.id);

    // The figures operators scrape.
    const http = await startHttpServer(pipelineRoutes({ redis: runtime.redis, queues: runtime.queues, metrics: runtime.metrics, countOpenIncidents: () => runtime!.store.incidents.countOpen() }));
    try {
      const text = await (await fetch(`${http.url}/metrics`)).text();
      expect(text).toContain(`streamdoctor_progress_events_total ${expected}`);
      expect(text).toMatch(/streamdoctor_polls_total\{source="sim",outcome="ok"\} 2/);
      expect(text).toMatch(/streamdoctor_detections_total\{kind="lag",change="opened"\} 1/);
      expect(text).toMatch(/streamdoctor_open_incidents [1-9]/);
      expect(text).toMatch(/streamdoctor_notification_latency_seconds_count [1-9]/);
      expect(text).toContain('streamdoctor_queue_depth{queue="detect",state="waiting"} 0');
      const health = await fetch(`${http.url}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok', redis: 'ok' });
    } finally {
      await http.close();
    }
  }, 60_000);
});
