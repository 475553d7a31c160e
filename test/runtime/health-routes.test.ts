/**
 * /livez and /readyz: liveness answers without Redis (a Redis blip must not get
 * every pod restarted); readiness answers 503 while Redis is away, with a summarized error: a stable
 * code and a sentence, never the driver's raw message (hosts, ports). Real HTTP on loopback, a real
 * Redis, and a Redis address where nothing listens.
 */
import { createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PipelineQueues } from '../../jobs/queues.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { healthRoutes, pipelineRoutes, startHttpServer, type HttpServerHandle } from '../../src/runtime/http-routes.js';
import { createRedis } from '../../src/runtime/redis-client.js';
import { REDIS_URL, silentLogger, uniquePrefix } from '../pipeline/helpers/harness.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function serve(redisUrl: string, waitReady = false): Promise<HttpServerHandle> {
  const redis = createRedis(redisUrl, 'producer', {}, silentLogger);
  for (let i = 0; waitReady && redis.status !== 'ready' && i < 100; i++) await new Promise((r) => setTimeout(r, 20));
  const queues = new PipelineQueues({ connection: redis, prefix: uniquePrefix('health').queuePrefix });
  const http = await startHttpServer(healthRoutes({ redis, queues }));
  cleanups.push(() => redis.disconnect(), () => queues.close(), () => http.close());
  return http;
}

describe('health routes', () => {
  it('with Redis up: live and ready', async () => {
    const http = await serve(REDIS_URL, true);
    expect((await fetch(`${http.url}/livez`)).status).toBe(200);
    const ready = await fetch(`${http.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ok', redis: 'ok' });
  });

  it('answers HEAD as GET without a body (load balancers and uptime checks send it)', async () => {
    const http = await serve(REDIS_URL, true);
    for (const path of ['/livez', '/readyz', '/healthz']) {
      const head = await fetch(`${http.url}${path}`, { method: 'HEAD' });
      expect(head.status, path).toBe(200);
      expect(await head.text()).toBe('');
    }
  });

  it('with Redis away: still live, not ready, and the error is a summary', async () => {
    const port = await closedPort();
    const http = await serve(`redis://127.0.0.1:${port}`);
    const live = await fetch(`${http.url}/livez`);
    expect(live.status).toBe(200);
    expect(await live.json()).toMatchObject({ status: 'ok' });
    for (const path of ['/readyz', '/healthz']) {
      const ready = await fetch(`${http.url}${path}`);
      expect(ready.status, path).toBe(503);
      const body = (await ready.json()) as { error: string };
      expect(body).toMatchObject({ status: 'error', redis: 'error' });
      expect(['redis_unreachable', 'redis_timeout']).toContain(body.error);
      const text = JSON.stringify(body);
      expect(text).not.toContain(String(port));
      expect(text).not.toContain('127.0.0.1');
      expect(text).not.toMatch(/ECONNREFUSED|Connection is closed/);
    }
  });
});

describe('/metrics', () => {
  /** A Redis that accepts connections and never answers (a paused host, a partition). */
  async function silentRedis(): Promise<number> {
    const sockets = new Set<import('node:net').Socket>();
    const server = createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    cleanups.push(() => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    });
    return (server.address() as AddressInfo).port;
  }

  it("answers within its deadline when Redis does not answer, leaving out the gauges it could not read", async () => {
    const port = await silentRedis();
    // The worker's connection: offline queue on, retries unbounded; a command waits for Redis.
    const redis = createRedis(`redis://127.0.0.1:${port}`, 'worker', {}, silentLogger);
    const queues = new PipelineQueues({ connection: redis, prefix: uniquePrefix('metrics').queuePrefix });
    const metrics = createMetrics({ processMetrics: false });
    metrics.polls.inc({ source: 's1', outcome: 'ok' });
    const http = await startHttpServer(pipelineRoutes({ redis, queues, metrics, countOpenIncidents: () => new Promise<number>(() => undefined), gaugeDeadlineMs: 300 }));
    cleanups.push(() => redis.disconnect(), () => queues.close(), () => http.close());
    for (let scrape = 0; scrape < 2; scrape++) {
      const started = Date.now();
      const res = await fetch(`${http.url}/metrics`, { signal: AbortSignal.timeout(5_000) });
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toContain('streamdoctor_polls_total{source="s1",outcome="ok"} 1');
      expect(text).toContain('streamdoctor_build_info');
      expect(text).not.toMatch(/^streamdoctor_open_incidents /m);
      expect(text).not.toContain('# TYPE streamdoctor_queue_depth');
      expect(text).toContain('omitted: Redis did not answer in time');
    }
  });

  it('with Redis up: the gauges are read and served', async () => {
    const redis = createRedis(REDIS_URL, 'worker', {}, silentLogger);
    const queues = new PipelineQueues({ connection: redis, prefix: uniquePrefix('metrics').queuePrefix });
    const metrics = createMetrics({ processMetrics: false });
    const http = await startHttpServer(pipelineRoutes({ redis, queues, metrics, countOpenIncidents: async () => 3 }));
    cleanups.push(() => redis.disconnect(), () => queues.close(), () => http.close());
    const text = await (await fetch(`${http.url}/metrics`)).text();
    expect(text).toMatch(/^streamdoctor_open_incidents 3$/m);
    expect(text).toMatch(/^streamdoctor_queue_depth\{queue="poll",state="waiting"\} 0$/m);
    expect(text).not.toContain('omitted');
  });
});
