/**
 * The composition root: one function builds every process from its environment. It reads the
 * configuration (environment + watch file, one list of problems), checks what the process needs of
 * Slack, builds the logger, the watch file's sources and the capacity advisor, finds Redis, wires
 * the Slack app (HTTP receiver or Socket Mode) and the chat client, and starts what the role runs:
 *
 * - `start`: web + worker + clock in one process (`npm start`, the demo, a single small machine)
 * - `web`: the Slack app with /healthz and /metrics (only the endpoints when Slack is not configured)
 * - `worker`: the BullMQ workers, with /livez, /readyz and /metrics on PORT when it is set
 * - `clock`: the schedules, with /livez and /readyz on PORT when it is set
 */
import type { Queue } from 'bullmq';
import { engineTrackers } from '../../jobs/engine-trackers.js';
import { queueDigestRequester } from '../../jobs/digest-processor.js';
import { queueAlertRefresher } from '../../jobs/notify-processor.js';
import type { PipelineQueues } from '../../jobs/queues.js';
import { loadConfig, slackProblems, type Config, type EnvConfig, type SlackNeed, type WatchConfig } from '../config/index.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { createMetrics, databricksRequestObserver } from '../observability/metrics.js';
import { WebClientChat } from '../slack/gateway/slack-chat.js';
import { PermissionChecker } from '../slack/permissions.js';
import type { RedisStore } from '../store/index.js';
import { healthRoutes, pipelineRoutes, startHttpServer, type HttpServerHandle, type Route } from './http-routes.js';
import { startAll, startClock, startWebEndpoints, startWorker, type AllRuntime, type ClockRuntime, type WebRuntime, type WorkerRuntime } from './pipeline-runtime.js';
import { loadWatchSetup, ProcessSetupError, type WatchSetup } from './process-setup.js';
import { discoverRedis, type DiscoveredRedis } from './redis-discovery.js';
import { checkRedisServer } from './redis-server-check.js';
import { createSlackApp } from './slack-app.js';

export type ProcessRole = 'start' | 'web' | 'worker' | 'clock';

export interface ComposeOptions {
  /** The environment. @defaultValue process.env */
  env?: NodeJS.ProcessEnv;
  /** Clock of the engine, incidents, Slack renderers and sources (the demo's accelerated time). @defaultValue Date.now */
  now?: () => number;
  /** Interface the HTTP server binds (the demo keeps it on 127.0.0.1: its signing secret is published). @defaultValue '0.0.0.0' */
  host?: string;
  /** Port of the HTTP server. @defaultValue PORT (3000) */
  port?: number;
  /** A Redis found already (the caller closes it). @defaultValue discovered from REDIS_URL / localhost (/ a private redis-server for `start`) */
  redis?: DiscoveredRedis;
  /** Detect tick for every stream (stalls). @defaultValue 60000 */
  sweepEveryMs?: number;
  /** @defaultValue a pino logger named after the role, at LOG_LEVEL */
  logger?: Logger;
}

export interface ComposedProcess {
  role: ProcessRole;
  /** Base URL of the HTTP server (POST /slack/events, /healthz, /metrics); null when the process serves none. */
  url: string | null;
  config: Config;
  watch: WatchConfig | null;
  logger: Logger;
  /** What the role started (`startAll`, `startWebEndpoints`, `startWorker` or `startClock`). */
  runtime: AllRuntime | WebRuntime | WorkerRuntime | ClockRuntime;
  close(): Promise<void>;
}

/** What each role needs of Slack: `start` the whole app, the worker the bot token, web and clock nothing. */
const SLACK_NEED: Record<ProcessRole, SlackNeed | null> = { start: 'app', web: null, worker: 'post', clock: null };

/** A Slack app over the pipeline's store and queues, serving `routes` too (or beside it in Socket Mode). */
function slackWeb(env: EnvConfig, watch: WatchSetup, logger: Logger, options: ComposeOptions, host: string | undefined, port: number) {
  return async (routes: Route[], store: RedisStore, queues: PipelineQueues): Promise<{ url: string; close(): Promise<void> }> => {
    const socketMode = Boolean(env.slack.appToken);
    const handle = createSlackApp({
      ...(env.slack.signingSecret ? { signingSecret: env.slack.signingSecret } : {}),
      botToken: env.slack.botToken!,
      ...(env.slack.appToken ? { appToken: env.slack.appToken } : {}),
      ...(env.slack.apiUrl ? { slackApiUrl: env.slack.apiUrl } : {}),
      // Socket Mode: the routes are served below on PORT; given to Bolt too, it would bind 3000 as well.
      customRoutes: socketMode ? [] : routes,
      logger,
      deps: {
        store,
        permissions: new PermissionChecker({ policy: env.admins }),
        logger,
        routingDefaults: watch.routing,
        alerts: queueAlertRefresher(queues, options.now),
        digest: queueDigestRequester(queues, { timeZone: watch.timeZone, ...(options.now ? { now: options.now } : {}) }),
        ...(watch.capacityAdvisor ? { advisor: watch.capacityAdvisor } : {}),
        ...(options.now ? { now: options.now } : {}),
      },
    });
    if (socketMode) {
      // Socket Mode has no request URL; /healthz and /metrics still need a port.
      await handle.start();
      const http = await startHttpServer(routes, port, host ?? '0.0.0.0');
      return { url: http.url, close: async () => { await handle.stop(); await http.close(); } };
    }
    // No host: Bolt's own default (every interface, IPv6 too).
    const started = await (host ? handle.start(port, host) : handle.start(port));
    return { url: `http://${!host || host === '0.0.0.0' ? '127.0.0.1' : host}:${started.port}`, close: () => handle.stop() };
  };
}

/**
 * Builds and starts the process `role` runs. Throws `ProcessSetupError` (a `ConfigError`, code
 * `streamdoctor_config_invalid`) listing every configuration problem, `WatchSourcesError` when the
 * watch file's sources cannot be built, `RedisUnavailableError` when no Redis answers.
 */
export async function composeProcess(role: ProcessRole, options: ComposeOptions = {}): Promise<ComposedProcess> {
  const envVars = options.env ?? process.env;
  const config = await loadConfig(envVars);
  const { env } = config;
  const need = SLACK_NEED[role];
  // With a bot token the environment has judged the rest of the Slack setup already; without one,
  // only the roles that need Slack say so.
  const problems = [...config.problems, ...(need && !env.slack.botToken ? slackProblems(env.slack, need) : [])];
  if (problems.length > 0) throw new ProcessSetupError(problems);
  const logger = options.logger ?? createLogger({ name: role === 'start' ? 'streamdoctor' : role, level: env.logLevel });
  // One registry per process (the clock serves none), made first so the Databricks clients report into it.
  const metrics = role === 'clock' ? undefined : createMetrics();
  const watch = await loadWatchSetup({ config, logger }, envVars, {
    ...(options.now ? { now: options.now } : {}),
    ...(metrics ? { onDatabricksEvent: databricksRequestObserver(metrics) } : {}),
  });

  const redis = options.redis ?? (await discoverRedis({ env: envVars, ...(role === 'start' ? {} : { redisServer: null }) }));
  const ownsRedis = !options.redis;
  const closeRedis = async () => {
    if (ownsRedis) await redis.close();
  };
  try {
    const serverProblems = await checkRedisServer(redis.url);
    if (serverProblems.length > 0) throw new ProcessSetupError(serverProblems);
    const host = options.host ?? '0.0.0.0';
    const port = options.port ?? env.port;
    const base = { redisUrl: redis.url, prefix: env.prefix, logger, ...(metrics ? { metrics } : {}) };
    const chat = () => new WebClientChat({ token: env.slack.botToken!, ...(env.slack.apiUrl ? { slackApiUrl: env.slack.apiUrl } : {}) });
    const workerOptions = () => ({
      ...base,
      sources: watch.sources,
      trackers: engineTrackers(watch.watch ? watch.engineOptionsFor : undefined),
      chat: chat(),
      routing: watch.routing,
      timeZone: watch.timeZone,
      store: { storm: { windowMs: env.pipeline.stormWindowMs, threshold: env.pipeline.stormThreshold } },
      sourceFailingAfterMs: env.pipeline.sourceFailingAfterMs,
      ...(watch.capacityAdvisor ? { capacityAdvisor: watch.capacityAdvisor } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
    const schedule = { sourceIds: [...watch.sources.keys()], pollEveryMs: watch.pollEveryMs, digestAt: watch.digestAt, timeZone: watch.timeZone };
    /** /livez, /readyz (and /metrics) on PORT for a worker or clock, only when PORT is set. */
    const probes = (routes: Route[]): Promise<HttpServerHandle | null> => (env.portSet ? startHttpServer(routes, port, host) : Promise.resolve(null));
    const composed = (runtime: ComposedProcess['runtime'], url: string | null, close: () => Promise<void>): ComposedProcess => ({
      role,
      url,
      config,
      watch: watch.watch,
      logger,
      runtime,
      async close() {
        await close();
        await closeRedis();
      },
    });

    switch (role) {
      case 'start': {
        const runtime = await startAll({
          ...workerOptions(),
          schedule: { ...schedule, ...(options.sweepEveryMs ? { sweepEveryMs: options.sweepEveryMs } : {}) },
          startWeb: slackWeb(env, watch, logger, options, host, port),
        });
        // slackWeb always says where it listens.
        const url = runtime.web.url!;
        logger.info({ url, sources: watch.sources.size, streams: watch.watch?.streams.length ?? 0 }, 'streamdoctor running (web + worker + clock)');
        return composed(runtime, url, () => runtime.close());
      }
      case 'web': {
        // Past the check above, a bot token means the whole Slack setup is there.
        const slackConfigured = env.slack.botToken !== null;
        if (!slackConfigured) logger.warn('Slack is not configured (SLACK_BOT_TOKEN + SLACK_SIGNING_SECRET or SLACK_APP_TOKEN); serving /healthz and /metrics only');
        const web = slackWeb(env, watch, logger, options, options.host, port);
        const runtime = await startWebEndpoints({
          ...base,
          port,
          host,
          ...(slackConfigured ? { startWeb: web } : {}),
        });
        logger.info({ url: runtime.url }, 'web process ready');
        return composed(runtime, runtime.url ?? null, () => runtime.close());
      }
      case 'worker': {
        const runtime = await startWorker({ ...workerOptions(), ...(env.pipeline.workerQueues ? { workers: { queues: env.pipeline.workerQueues } } : {}) });
        logger.info({ sources: [...watch.sources.keys()] }, 'worker ready');
        const http = await probes(pipelineRoutes({ redis: runtime.redis, queues: runtime.queues as { [name: string]: Queue } & PipelineQueues, metrics: runtime.metrics }));
        return composed(runtime, http?.url ?? null, async () => {
          await http?.close();
          await runtime.close();
        });
      }
      case 'clock': {
        const runtime = await startClock({ ...base, schedule });
        const http = await probes(healthRoutes({ redis: runtime.redis, queues: runtime.queues }));
        return composed(runtime, http?.url ?? null, async () => {
          await http?.close();
          await runtime.close();
        });
      }
    }
  } catch (err) {
    await closeRedis();
    throw err;
  }
}
