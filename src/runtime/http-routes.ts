/**
 * GET (and HEAD: probes that send it) /livez, /readyz (/healthz) and /metrics as plain node:http handlers, shaped like Bolt `customRoutes` so
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
      method: ['GET', 'HEAD'],
      handler: (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'ok', uptimeSec: Math.round(process.uptime()) }));
      },
    },
    { path: '/readyz', method: ['GET', 'HEAD'], handler: ready },
    // Older probes: the same as /readyz.
    { path: '/healthz', method: ['GET', 'HEAD'], handler: ready },
  ];
}

/** The gauges read from Redis when scraped: left out of a scrape whose Redis read did not finish in time. */
const REDIS_GAUGES = ['streamdoctor_open_incidents', 'streamdoctor_queue_depth'];

/** The exposition without the Redis gauges (their HELP, TYPE and samples), saying why in a comment. */
function withoutRedisGauges(text: string, why: string): string {
  const ofRedisGauge = (line: string) => REDIS_GAUGES.some((name) => line.startsWith(`# HELP ${name} `) || line.startsWith(`# TYPE ${name} `) || line.startsWith(`${name} `) || line.startsWith(`${name}{`));
  return `# streamdoctor: ${REDIS_GAUGES.join(' and ')} omitted: ${why}\n${text.split('\n').filter((line) => !ofRedisGauge(line)).join('\n')}`;
}

export function pipelineRoutes(deps: RouteDeps & { gaugeDeadlineMs?: number }): Route[] {
  // One refresh at a time: on a worker's connection (offline queue on, retries unbounded) a read
  // during an outage waits for Redis, and every scrape starting its own would pile them up.
  let refreshing: Promise<void> | null = null;
  const refresh = () =>
    (refreshing ??= refreshGauges(deps.metrics, {
      ...(deps.countOpenIncidents ? { countOpenIncidents: deps.countOpenIncidents } : {}),
      queueDepths: () => deps.queues.depths(),
    }).finally(() => {
      refreshing = null;
    }));
  return [
    ...healthRoutes(deps),
    {
      path: '/metrics',
      method: ['GET', 'HEAD'],
      handler: async (_req, res) => {
        // Bounded like /readyz: past the deadline (Redis away or hung) the in-process counters are
        // served at once, the Redis gauges left out rather than stale; /readyz reports the outage.
        let timer: NodeJS.Timeout | undefined;
        const outcome = await Promise.race([
          refresh().then(
            () => 'fresh' as const,
            () => 'failed' as const,
          ),
          new Promise<'late'>((resolve) => {
            timer = setTimeout(() => resolve('late'), deps.gaugeDeadlineMs ?? 1_500);
          }),
        ]).finally(() => clearTimeout(timer));
        const text = await deps.metrics.registry.metrics();
        res.writeHead(200, { 'content-type': deps.metrics.registry.contentType });
        res.end(outcome === 'fresh' ? text : withoutRedisGauges(text, outcome === 'late' ? 'Redis did not answer in time' : 'Redis could not be read'));
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
      server.close(() => resolve());
      endConnections(server, 0);
    }),
  };
}

/**
 * Ends the connections of a server being closed (`server.close()` only stops new ones and waits for
 * the rest): idle keep-alive ones now, the others (a request still in progress: a slow or stalled
 * client) after `graceMs`, so one client never holds a shutdown up to its deadline. Returns a
 * function that cancels the delayed part (call it once the server has closed).
 */
export function endConnections(server: Server, graceMs: number): () => void {
  server.closeIdleConnections();
  if (graceMs <= 0) {
    server.closeAllConnections();
    return () => undefined;
  }
  const timer = setTimeout(() => server.closeAllConnections(), graceMs);
  timer.unref();
  return () => clearTimeout(timer);
}
