/**
 * GET /livez, /readyz (/healthz) and /metrics as plain node:http handlers, shaped like Bolt `customRoutes` so
 * the web process mounts them on the Slack app's receiver; `startHttpServer` serves them alone
 * (worker and clock processes, tests).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import type { PipelineQueues } from '../../jobs/queues.js';
import { refreshGauges, type PipelineMetrics } from '../observability/metrics.js';
import { checkHealth } from './health.js';

export interface Route {
  path: string;
  method: string | string[];
  handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;
}

export interface RouteDeps {
  redis: Redis;
  queues: PipelineQueues;
  metrics: PipelineMetrics;
  countOpenIncidents?: () => Promise<number>;
}

/** Liveness and readiness, on every process type (web, worker, clock). */
export function healthRoutes(deps: Pick<RouteDeps, 'redis' | 'queues'>): Route[] {
  const ready: Route['handler'] = async (_req, res) => {
    const report = await checkHealth(deps.redis, deps.queues);
    res.writeHead(report.status === 'ok' ? 200 : 503, { 'content-type': 'application/json' });
    res.end(JSON.stringify(report));
  };
  return [
    {
      // The process answers: never looks at Redis, so a Redis blip does not get every pod restarted.
      path: '/livez',
      method: ['GET'],
      handler: (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'ok', uptimeSec: Math.round(process.uptime()) }));
      },
    },
    { path: '/readyz', method: ['GET'], handler: ready },
    // Older probes: the same as /readyz.
    { path: '/healthz', method: ['GET'], handler: ready },
  ];
}

export function pipelineRoutes(deps: RouteDeps): Route[] {
  return [
    ...healthRoutes(deps),
    {
      path: '/metrics',
      method: ['GET'],
      handler: async (_req, res) => {
        try {
          await refreshGauges(deps.metrics, {
            ...(deps.countOpenIncidents ? { countOpenIncidents: deps.countOpenIncidents } : {}),
            queueDepths: () => deps.queues.depths(),
          });
        } catch {
          // Redis down: serve the in-process counters anyway; /healthz reports the outage.
        }
        res.writeHead(200, { 'content-type': deps.metrics.registry.contentType });
        res.end(await deps.metrics.registry.metrics());
      },
    },
  ];
}

export interface HttpServerHandle {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** Serves routes on `host:port` (port 0 = ephemeral). Unknown paths get 404 JSON. */
export async function startHttpServer(routes: Route[], port = 0, host = '127.0.0.1'): Promise<HttpServerHandle> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const route = routes.find((r) => r.path === path && ([] as string[]).concat(r.method).includes(req.method ?? 'GET'));
    if (!route) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'not_found' }));
      return;
    }
    Promise.resolve(route.handler(req, res)).catch(() => {
      // A summary only: raw errors can carry hosts and internals.
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'internal_error' }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    server,
    url: `http://${host}:${address.port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    }),
  };
}
