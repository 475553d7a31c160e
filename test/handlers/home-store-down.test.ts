/**
 * The App Home when Redis is down or hangs: the web process's client fails fast (no offline queue, a
 * command timeout), and the person opening the Home or pressing its buttons is shown why nothing is
 * listed, instead of an old Home (or none) and a silence; the app keeps serving.
 */
import { randomUUID } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedis } from '../../src/runtime/redis-client.js';
import { createSlackApp } from '../../src/runtime/slack-app.js';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import type { SlackDeps } from '../../src/slack/deps.js';
import { PermissionChecker } from '../../src/slack/permissions.js';
import { DEFAULT_BOT, startLocalSlack, type LocalSlack } from '../../src/standins/slack/index.js';
import { RedisStore } from '../../src/store/index.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { TEST_REDIS_URL, onCluster } from '../helpers/redis.js';
import { deletePrefix, REDIS_URL, waitFor } from '../pipeline/helpers/harness.js';
import { DEV, SIGNING_SECRET } from './helpers/harness.js';

const cleanups: (() => Promise<unknown> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
});

const STORE_AWAY = 'StreamDoctor could not reach its store';

/** A TCP proxy to the test Redis that can stop answering (a paused host: the connection stays open). */
async function stallingProxy(): Promise<{ url: string; stall(): void; close(): Promise<void> }> {
  const target = new URL(TEST_REDIS_URL);
  const sockets: Socket[] = [];
  let stalled = false;
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    sockets.push(client, upstream);
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (!stalled) client.write(chunk);
    });
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${port}`,
    stall: () => {
      stalled = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The Slack app over a store reached through `redisUrl` with the web process's client. */
async function startApp(redisUrl: string): Promise<{ slack: LocalSlack; store: RedisStore; logLines: Record<string, unknown>[] }> {
  const slack = await startLocalSlack({ rateLimit: false, signingSecret: SIGNING_SECRET });
  cleanups.push(() => slack.close());
  // The web process's client (fails fast); a short timeout so a hang is seen quickly.
  const redis = createRedis(redisUrl, 'producer', { commandTimeout: 500 });
  cleanups.push(() => redis.disconnect());
  const store = new RedisStore({ redis, prefix: `sdtest-home-down-${randomUUID()}` });
  const { lines: logLines, logger } = capturedLogger();
  const deps: SlackDeps = { store, logger, permissions: new PermissionChecker({}) };
  const app = createSlackApp({ botToken: DEFAULT_BOT.token, signingSecret: SIGNING_SECRET, slackApiUrl: slack.apiUrl, logger, deps });
  const { port } = await app.start(0);
  cleanups.push(() => app.stop());
  slack.setRequestUrl(`http://127.0.0.1:${port}/slack/events`);
  return { slack, store, logLines };
}

describe.skipIf(onCluster)('App Home without its store', () => {
  it('Redis down: opening the Home shows that the store cannot be reached', async () => {
    const { slack, logLines } = await startApp(`redis://127.0.0.1:${await closedPort()}`);
    const outcome = await slack.interactions.openHome({ user: DEV });
    expect(outcome.delivery.status).toBe(200);
    const home = await waitFor(() => slack.homeView(DEV), 'a Home', 5000, 25);
    const body = JSON.stringify(home.blocks);
    expect(body).toContain(STORE_AWAY);
    expect(body).toContain('streamdoctor_store_unavailable');
    // A Refresh button, so the person can try again from the Home.
    expect(body).toContain(ACTION_IDS.homeRefresh);
    // The guard logs once the app has the views.publish answer, after local Slack stored the view.
    await waitFor(() => JSON.stringify(logLines).includes('streamdoctor_store_unavailable'), 'the guard’s log line', 5000, 25);
  });

  it('Redis hangs: Refresh replaces the Home with the reason', async () => {
    const { slack, first } = await homeThenStall();
    await slack.interactions.viewAction({ user: DEV, viewId: first.id, actionId: ACTION_IDS.homeRefresh });
    const refreshed = await waitFor(() => (slack.homeView(DEV)?.hash !== first.hash ? slack.homeView(DEV) : undefined), 'the Home re-published', 5000, 25);
    expect(JSON.stringify(refreshed.blocks)).toContain(STORE_AWAY);
    expect(JSON.stringify(refreshed.blocks)).not.toContain('Silenced streams');
  });

  it('Redis hangs: Unsilence on the Home says the store cannot be reached', async () => {
    const { slack, first } = await homeThenStall();
    await slack.interactions.viewAction({ user: DEV, viewId: first.id, actionId: ACTION_IDS.homeUnsilence });
    const after = await waitFor(() => (slack.homeView(DEV)?.hash !== first.hash ? slack.homeView(DEV) : undefined), 'the Home re-published', 5000, 25);
    expect(JSON.stringify(after.blocks)).toContain(STORE_AWAY);
  });
});

/** A Home published with one silenced stream, then Redis stops answering. */
async function homeThenStall() {
  const proxy = await stallingProxy();
  cleanups.push(() => proxy.close());
  const { slack, store } = await startApp(proxy.url);
  // Cleaned up on a direct connection: the app's goes through the stalled proxy.
  cleanups.push(() => deletePrefix(REDIS_URL, store.keys.prefix));
  await waitFor(async () => (await store.streams.upsert({ queryId: 'q-orders', name: 'orders_enrichment' }), true), 'Redis through the proxy', 5000, 50);
  await store.silences.silence('q-orders', Date.now() + 3_600_000, DEV, Date.now());
  await store.routing.setRoute('query', 'q-orders', 'C0DATAALRT');
  await slack.interactions.openHome({ user: DEV });
  const first = await waitFor(() => slack.homeView(DEV), 'the Home', 5000, 25);
  expect(JSON.stringify(first.blocks)).toContain('Silenced streams (1)');
  proxy.stall();
  return { slack, first };
}
