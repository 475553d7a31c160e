/**
 * Prometheus metrics (prom-client), one registry per process so tests can build their own.
 * Gauges that mirror Redis (open incidents, queue depths) are read when scraped, through the
 * collectors passed to `refreshGauges`. Node's default metrics keep their stock names
 * (`process_cpu_seconds_total`, `nodejs_heap_size_used_bytes`, …) so stock dashboards work.
 * The Databricks client reports its requests through `databricksRequestObserver` (a callback it is
 * given), so src/databricks never imports prom-client.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { buildInfo } from './build-info.js';

/** Which side an API error came from: `streamdoctor_api_errors_total{service}`. */
export type ApiService = 'slack' | 'databricks' | 'engine';

export interface PipelineMetrics {
  registry: Registry;
  polls: Counter<'source' | 'outcome'>;
  /** `inc({ service, kind })`: always both labels. */
  apiErrors: Counter<'service' | 'kind'>;
  /** Seconds per Databricks HTTP request (each attempt), by API (path template) and HTTP status. */
  databricksRequestDuration: Histogram<'api' | 'status'>;
  /** Always 1; the labels say which version runs on which Node. */
  buildInfo: Gauge<'version' | 'node'>;
  progressIngested: Counter<'source'>;
  progressDropped: Counter;
  progressEvents: Counter;
  progressDuplicates: Counter;
  detections: Counter<'kind' | 'change'>;
  notifications: Counter<'outcome'>;
  slackRateLimited: Counter;
  notificationLatency: Histogram;
  openIncidents: Gauge;
  queueDepth: Gauge<'queue' | 'state'>;
  /** Epoch seconds of each source's last successful poll (alert on `time() - x > …`). */
  sourceLastSuccess: Gauge<'source'>;
}

export interface MetricsOptions {
  /** Also collect Node process metrics (heap, event loop lag). @defaultValue true */
  processMetrics?: boolean;
}

export function createMetrics(options: MetricsOptions = {}): PipelineMetrics {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const build = new Gauge({ name: 'streamdoctor_build_info', help: 'The running build (always 1)', labelNames: ['version', 'node'], registers });
  const info = buildInfo();
  build.set({ version: info.version, node: info.node }, 1);
  return {
    registry,
    buildInfo: build,
    polls: new Counter({ name: 'streamdoctor_polls_total', help: 'Source polls by outcome', labelNames: ['source', 'outcome'], registers }),
    apiErrors: new Counter({
      name: 'streamdoctor_api_errors_total',
      help: 'API errors by service (slack, databricks, engine) and kind (error code)',
      labelNames: ['service', 'kind'],
      registers,
    }),
    databricksRequestDuration: new Histogram({
      name: 'streamdoctor_databricks_request_duration_seconds',
      help: 'Databricks HTTP requests (each attempt) by API path template and HTTP status (0: no answer)',
      labelNames: ['api', 'status'],
      buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    progressIngested: new Counter({ name: 'streamdoctor_progress_ingested_total', help: 'Progress events read from sources', labelNames: ['source'], registers }),
    progressDropped: new Counter({ name: 'streamdoctor_progress_dropped_total', help: 'Progress events dropped by the bounded inbox', registers }),
    progressEvents: new Counter({ name: 'streamdoctor_progress_events_total', help: 'Progress events observed by the engine', registers }),
    progressDuplicates: new Counter({ name: 'streamdoctor_progress_duplicates_total', help: 'Progress events skipped as already observed', registers }),
    detections: new Counter({ name: 'streamdoctor_detections_total', help: 'Incident changes emitted by the engine', labelNames: ['kind', 'change'], registers }),
    notifications: new Counter({ name: 'streamdoctor_notifications_total', help: 'Notify outcomes (posted, updated, grouped, skipped)', labelNames: ['outcome'], registers }),
    slackRateLimited: new Counter({ name: 'streamdoctor_slack_rate_limited_total', help: 'Slack 429 answers, and calls held back while their method cools down after one', registers }),
    notificationLatency: new Histogram({
      name: 'streamdoctor_notification_latency_seconds',
      help: 'From the detect commit of an incident change to its Slack message',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
      registers,
    }),
    openIncidents: new Gauge({ name: 'streamdoctor_open_incidents', help: 'Open incidents', registers }),
    queueDepth: new Gauge({ name: 'streamdoctor_queue_depth', help: 'Jobs per queue and state', labelNames: ['queue', 'state'], registers }),
    sourceLastSuccess: new Gauge({
      name: 'streamdoctor_source_last_success_timestamp_seconds',
      help: 'When each progress source was last read successfully (epoch seconds)',
      labelNames: ['source'],
      registers,
    }),
  };
}

export interface MetricCollectors {
  countOpenIncidents?: () => Promise<number>;
  queueDepths?: () => Promise<Record<string, Record<string, number>>>;
}

/** Refreshes the Redis-backed gauges; call before serializing the registry. */
export async function refreshGauges(metrics: PipelineMetrics, collectors: MetricCollectors): Promise<void> {
  if (collectors.countOpenIncidents) metrics.openIncidents.set(await collectors.countOpenIncidents());
  if (collectors.queueDepths) {
    const depths = await collectors.queueDepths();
    for (const [queue, states] of Object.entries(depths)) {
      for (const [state, count] of Object.entries(states)) metrics.queueDepth.set({ queue, state }, count);
    }
  }
}

/** Error kind for the api-errors counter: the stable code when there is one. */
export function errorKind(err: unknown): string {
  if (err && typeof err === 'object') {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.length > 0 && code.length < 80) return code;
    if (err instanceof Error) return err.name;
  }
  return 'unknown';
}

/** What the Databricks client reports per request (src/databricks/client-stats.ts `ClientEvent`). */
export interface DatabricksRequestEvent {
  type: string;
  path?: string;
  status?: number;
  durationMs?: number;
}

/**
 * The path as a template, bounded for a label: ids (statement, pipeline, run, chunk index) become
 * `{id}`; version segments (`2.0`, `v1`) stay. `/api/2.0/sql/statements/01ef…/result/chunks/3`
 * → `/api/2.0/sql/statements/{id}/result/chunks/{id}`.
 */
export function apiTemplate(path: string): string {
  const bare = path.split('?')[0]!;
  return bare
    .split('/')
    .map((segment) => (/\d/.test(segment) && !/^(v\d+|\d+\.\d+)$/.test(segment) ? '{id}' : segment))
    .join('/');
}

/**
 * The `onEvent` hook to give `createDatabricksClient`: each request's duration goes into
 * `streamdoctor_databricks_request_duration_seconds{api,status}`. `metrics` may be bound later
 * (a function), for clients built before the registry.
 */
export function databricksRequestObserver(metrics: PipelineMetrics | (() => PipelineMetrics | undefined)): (event: DatabricksRequestEvent) => void {
  return (event) => {
    if (event.type !== 'request' || event.path === undefined || event.durationMs === undefined) return;
    const target = typeof metrics === 'function' ? metrics() : metrics;
    target?.databricksRequestDuration.observe({ api: apiTemplate(event.path), status: String(event.status ?? 0) }, event.durationMs / 1000);
  };
}
