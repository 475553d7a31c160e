/**
 * Composition of the pipeline processes from already-built collaborators (sources, engine,
 * Slack chat), so the CLI commands, the demo and the tests assemble the same thing:
 * `startWorker` (the four BullMQ workers), `startClock` (the schedules), `startAll` (both plus the
 * HTTP endpoints in one process).
 */
import { DEFAULTS } from '../config/defaults.js';
import type { Redis } from 'ioredis';
import { MessagePoster } from '../slack/gateway/message-poster.js';
import { blockKitRenderer, type NotifyRenderer } from '../../jobs/notify-renderer.js';
import type { SourceRegistry } from '../sources/source.js';
import { PipelineQueues } from '../../jobs/queues.js';
import { upsertSchedules, type ScheduleSettings } from '../../jobs/schedules.js';
import type { SlackChat } from '../slack/gateway/slack-chat.js';
import { MethodCooldownChat } from '../slack/gateway/method-cooldown-chat.js';
import type { TrackerFactory } from '../../jobs/tracker-factory.js';
import { createPipelineWorkers, type PipelineWorkers, type WorkerSettings } from '../../jobs/workers.js';
import type { CapacityAdvisor } from '../capacity/capacity-advisor.js';
import type { Logger } from '../observability/logger.js';
import { createMetrics, type PipelineMetrics } from '../observability/metrics.js';
import { RedisStore, type RedisStoreOptions } from '../store/index.js';
import type { RoutingDefaults } from '../store/types.js';
import { pipelineRoutes, startHttpServer, type HttpServerHandle, type Route } from './http-routes.js';
import { createRedis } from './redis-client.js';

export interface PipelineBaseOptions {
  /** redis:// URL. */
  redisUrl: string;
  /** Store key prefix. @defaultValue 'sd' */
  prefix?: string;
  /** BullMQ prefix. @defaultValue `{<prefix>}` (one hash slot for BullMQ on Redis Cluster) */
  queuePrefix?: string;
  logger: Logger;
  /** @defaultValue a fresh registry */
  metrics?: PipelineMetrics;
  /** Store tuning (inbox bound, history buckets, storm window). */
  store?: Omit<RedisStoreOptions, 'redis' | 'prefix'>;
}

export interface WorkerRuntimeOptions extends PipelineBaseOptions {
  sources: SourceRegistry;
  trackers: TrackerFactory;
  chat: SlackChat;
  /** @defaultValue the Block Kit renderers of src/slack/render */
  renderer?: NotifyRenderer;
  routing?: RoutingDefaults;
  /** IANA zone for digest days. @defaultValue 'UTC' */
  timeZone?: string;
  workers?: Partial<Omit<WorkerSettings, 'connection' | 'prefix'>>;
  /** Minimum gap between new messages per channel. @defaultValue 1000 */
  channelIntervalMs?: number;
  /** Debounce of storm-group renders. @defaultValue 500 */
  groupDebounceMs?: number;
  /** Test hook between chat.postMessage and recording its ts. */
  afterPost?: (key: string, ts: string) => Promise<void> | void;
  /** Clock of detect, notify and digest (the demo passes its accelerated time). @defaultValue Date.now */
  now?: () => number;
  /** Capacity advice in workers of a stream's job cluster in alerts. @defaultValue none: the engine's wording */
  capacityAdvisor?: CapacityAdvisor;
  /** Reads failing this long open the source-health incident. @defaultValue 300000 (5 minutes) */
  sourceFailingAfterMs?: number;
}

export interface WorkerRuntime {
  store: RedisStore;
  queues: PipelineQueues;
  workers: PipelineWorkers;
  metrics: PipelineMetrics;
  redis: Redis;
  close(): Promise<void>;
}

function throttledWarn(logger: Logger, msg: string): (err: Error) => void {
  let last = 0;
  return (err) => {
    if (Date.now() - last < 5000) return;
    last = Date.now();
    logger.warn({ err: { message: err.message } }, msg);
  };
}

function queuePrefixOf(options: PipelineBaseOptions): string {
  return options.queuePrefix ?? `{${options.prefix ?? DEFAULTS.prefix}}`;
}

export async function startWorker(options: WorkerRuntimeOptions): Promise<WorkerRuntime> {
  // Auto-pipelining batches the many small store commands of concurrent jobs into few round trips.
  const redis = createRedis(options.redisUrl, 'worker', { enableAutoPipelining: true }, options.logger);
  const workerConnection = createRedis(options.redisUrl, 'worker', {}, options.logger);
  const metrics = options.metrics ?? createMetrics();
  const store = new RedisStore({ ...options.store, redis, prefix: options.prefix ?? DEFAULTS.prefix });
  const queues = new PipelineQueues({ connection: redis, prefix: queuePrefixOf(options), onError: throttledWarn(options.logger, 'queue connection error') });
  // One Slack chat for the poster and the jobs: a method refused for its rate waits for all of them.
  const chat = new MethodCooldownChat({ chat: options.chat, redis, keys: store.keys });
  const poster = new MessagePoster({
    redis,
    keys: store.keys,
    chat,
    ...(options.channelIntervalMs !== undefined ? { channelIntervalMs: options.channelIntervalMs } : {}),
    ...(options.afterPost ? { afterPost: options.afterPost } : {}),
  });
  const workers = createPipelineWorkers(
    {
      store,
      queues,
      sources: options.sources,
      trackers: options.trackers,
      poster,
      chat,
      renderer: options.renderer ?? blockKitRenderer,
      metrics,
      logger: options.logger,
      ...(options.routing ? { routing: options.routing } : {}),
      ...(options.timeZone ? { timeZone: options.timeZone } : {}),
      ...(options.groupDebounceMs !== undefined ? { groupDebounceMs: options.groupDebounceMs } : {}),
      ...(options.now ? { now: options.now } : {}),
      ...(options.capacityAdvisor ? { advisor: options.capacityAdvisor } : {}),
      ...(options.sourceFailingAfterMs !== undefined ? { sourceFailingAfterMs: options.sourceFailingAfterMs } : {}),
    },
    { ...options.workers, connection: workerConnection, prefix: queuePrefixOf(options) },
  );
  await Promise.all(workers.workers.map((w) => w.waitUntilReady()));
  options.logger.info({ queues: workers.workers.map((w) => w.name) }, 'workers started');
  return {
    store,
    queues,
    workers,
    metrics,
    redis,
    async close() {
      await workers.close();
      await queues.close();
      await Promise.allSettled([redis.quit(), workerConnection.quit()]);
    },
  };
}

export interface ClockRuntimeOptions extends PipelineBaseOptions {
  schedule: ScheduleSettings;
  /** Re-upsert the schedules this often (heals a flushed Redis). @defaultValue 60000 */
  refreshEveryMs?: number;
}

export interface ClockRuntime {
  queues: PipelineQueues;
  /** The clock's connection (its /readyz checks it). */
  redis: Redis;
  close(): Promise<void>;
}

export async function startClock(options: ClockRuntimeOptions): Promise<ClockRuntime> {
  const redis = createRedis(options.redisUrl, 'worker', {}, options.logger);
  const queues = new PipelineQueues({ connection: redis, prefix: queuePrefixOf(options), onError: throttledWarn(options.logger, 'queue connection error') });
  await upsertSchedules(queues, options.schedule);
  options.logger.info({ sources: options.schedule.sourceIds, pollEveryMs: options.schedule.pollEveryMs ?? DEFAULTS.pollSeconds * 1000 }, 'schedules upserted');
  const timer = setInterval(() => {
    upsertSchedules(queues, options.schedule).catch((err) => options.logger.warn({ err }, 'could not refresh schedules'));
  }, options.refreshEveryMs ?? 60_000);
  timer.unref();
  return {
    queues,
    redis,
    async close() {
      clearInterval(timer);
      await queues.close();
      await redis.quit().catch(() => undefined);
    },
  };
}

export interface WebRuntimeOptions extends PipelineBaseOptions {
  /** Listen port for the HTTP endpoints. @defaultValue 0 (ephemeral) */
  port?: number;
  host?: string;
  /**
   * Starts the Slack app with the pipeline's routes mounted (the web process passes
   * createSlackApp here). Without it, a plain HTTP server serves only /healthz and /metrics.
   */
  startWeb?: (routes: Route[], store: RedisStore, queues: PipelineQueues) => Promise<{ url?: string; close(): Promise<void> }>;
}

export interface WebRuntime {
  url: string | undefined;
  store: RedisStore;
  queues: PipelineQueues;
  close(): Promise<void>;
}

export async function startWebEndpoints(options: WebRuntimeOptions): Promise<WebRuntime> {
  const redis = createRedis(options.redisUrl, 'producer', {}, options.logger); // outages also show on /healthz
  const metrics = options.metrics ?? createMetrics();
  const store = new RedisStore({ ...options.store, redis, prefix: options.prefix ?? DEFAULTS.prefix });
  const queues = new PipelineQueues({ connection: redis, prefix: queuePrefixOf(options), onError: throttledWarn(options.logger, 'queue connection error') });
  const routes = pipelineRoutes({ redis, queues, metrics, countOpenIncidents: () => store.incidents.countOpen() });
  let handle: HttpServerHandle | { url?: string; close(): Promise<void> };
  if (options.startWeb) handle = await options.startWeb(routes, store, queues);
  else handle = await startHttpServer(routes, options.port ?? 0, options.host ?? '127.0.0.1');
  return {
    url: handle.url,
    store,
    queues,
    async close() {
      await handle.close();
      await queues.close();
      redis.disconnect();
    },
  };
}

export interface StartAllOptions extends WorkerRuntimeOptions, Omit<WebRuntimeOptions, keyof PipelineBaseOptions> {
  schedule: ScheduleSettings;
}

export interface AllRuntime {
  worker: WorkerRuntime;
  clock: ClockRuntime;
  web: WebRuntime;
  close(): Promise<void>;
}

/** web + worker + clock in one process (the `start` command and the demo). */
export async function startAll(options: StartAllOptions): Promise<AllRuntime> {
  const metrics = options.metrics ?? createMetrics();
  const worker = await startWorker({ ...options, metrics });
  const clock = await startClock({ ...options, metrics });
  const web = await startWebEndpoints({ ...options, metrics });
  return {
    worker,
    clock,
    web,
    async close() {
      await web.close();
      await clock.close();
      await worker.close();
    },
  };
}
