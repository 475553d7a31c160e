/**
 * The whole bot in one process from an environment: config (env + watch file), Redis, the progress
 * sources, the engine, the Slack app (HTTP receiver or Socket Mode) with /healthz and /metrics, and
 * the pipeline's workers and schedules (`startAll`). `streamdoctor start` runs it on the process
 * environment; the demo runs the very same function on an environment pointed at the stand-ins.
 */
import { engineTrackers } from '../../jobs/engine-trackers.js';
import { queueDigestRequester } from '../../jobs/digest-processor.js';
import { queueAlertRefresher } from '../../jobs/notify-processor.js';
import { WebClientChat } from '../slack/gateway/slack-chat.js';
import { readEnvConfig } from '../config/env.js';
import type { WatchConfig } from '../config/index.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { createMetrics, databricksRequestObserver } from '../observability/metrics.js';
import { createSlackApp } from './slack-app.js';
import { PermissionChecker } from '../slack/permissions.js';
import { startHttpServer } from './http-routes.js';
import { startAll, type AllRuntime } from './pipeline-runtime.js';
import { loadWatchSetup, ProcessSetupError } from './process-setup.js';
import { readPipelineSettings } from './process-settings.js';
import { discoverRedis, type DiscoveredRedis } from './redis-discovery.js';
import { checkRedisServer } from './redis-server-check.js';

export interface StartBotOverrides {
  /** Clock of the engine, incidents, Slack renderers and sources. @defaultValue Date.now */
  now?: () => number;
  /** Interface the HTTP server binds (the demo keeps it on 127.0.0.1: its signing secret is published). @defaultValue '0.0.0.0' */
  host?: string;
  /** Port of the HTTP server. @defaultValue PORT (3000) */
  port?: number;
  /** A Redis found already. @defaultValue discovered from REDIS_URL / localhost / a private redis-server */
  redis?: DiscoveredRedis;
  /** Detect tick for every stream (stalls). @defaultValue 60000 */
  sweepEveryMs?: number;
  logger?: Logger;
}

export interface RunningBot {
  /** Base URL of the HTTP server, e.g. http://127.0.0.1:3000 (POST /slack/events, /healthz, /metrics). */
  url: string;
  runtime: AllRuntime;
  watch: WatchConfig | null;
  logger: Logger;
  close(): Promise<void>;
}

/** Starts web + worker + clock. Throws `ProcessSetupError` (code streamdoctor_process_config) listing what to fix. */
export async function startBot(envVars: NodeJS.ProcessEnv, overrides: StartBotOverrides = {}): Promise<RunningBot> {
  const env = readEnvConfig(envVars);
  const settings = readPipelineSettings(envVars);
  const problems = [...env.problems, ...settings.problems];
  if (!env.slack.botToken) problems.push('set SLACK_BOT_TOKEN (xoxb-…): the bot posts alerts with it');
  else if (!env.slack.signingSecret && !env.slack.appToken) problems.push('set SLACK_SIGNING_SECRET (HTTP mode) or SLACK_APP_TOKEN (Socket Mode)');
  if (problems.length > 0) throw new ProcessSetupError(problems);
  const logger = overrides.logger ?? createLogger({ name: 'streamdoctor', level: env.logLevel });

  // One registry for the three parts, made first so the Databricks clients report into it.
  const metrics = createMetrics();
  const watchSetup = await loadWatchSetup({ env, settings, logger }, envVars, {
    ...(overrides.now ? { now: overrides.now } : {}),
    onDatabricksEvent: databricksRequestObserver(metrics),
  });
  const { watch, sources, routing, pollEveryMs } = watchSetup;

  const redis = overrides.redis ?? (await discoverRedis({ env: envVars }));
  const ownsRedis = !overrides.redis;
  const serverProblems = await checkRedisServer(redis.url);
  if (serverProblems.length > 0) {
    if (ownsRedis) await redis.close();
    throw new ProcessSetupError(serverProblems);
  }
  const host = overrides.host ?? '0.0.0.0';
  const port = overrides.port ?? env.port;
  const slackApiUrl = env.slack.apiUrl ?? undefined;
  let boundPort: number | null = null;
  let runtime: AllRuntime;
  try {
    runtime = await startAll({
      metrics,
      redisUrl: redis.url,
      prefix: env.prefix,
      logger,
      sources,
      trackers: engineTrackers(watch ? watchSetup.engineOptionsFor : undefined),
      chat: new WebClientChat({ token: env.slack.botToken!, ...(slackApiUrl ? { slackApiUrl } : {}) }),
      routing,
      timeZone: watchSetup.timeZone,
      store: { storm: { windowMs: settings.stormWindowMs, threshold: settings.stormThreshold } },
      sourceFailingAfterMs: settings.sourceFailingAfterMs,
      ...(watchSetup.capacityAdvisor ? { capacityAdvisor: watchSetup.capacityAdvisor } : {}),
      ...(overrides.now ? { now: overrides.now } : {}),
      schedule: {
        sourceIds: [...sources.keys()],
        pollEveryMs,
        digestAt: watchSetup.digestAt,
        timeZone: watchSetup.timeZone,
        ...(overrides.sweepEveryMs ? { sweepEveryMs: overrides.sweepEveryMs } : {}),
      },
      startWeb: async (routes, store, queues) => {
        const handle = createSlackApp({
          ...(env.slack.signingSecret ? { signingSecret: env.slack.signingSecret } : {}),
          botToken: env.slack.botToken!,
          ...(env.slack.appToken ? { appToken: env.slack.appToken } : {}),
          ...(slackApiUrl ? { slackApiUrl } : {}),
          // Socket Mode: the routes are served below on PORT; given to Bolt too, it would bind 3000 as well.
          customRoutes: env.slack.appToken ? [] : routes,
          logger,
          deps: {
            store,
            permissions: new PermissionChecker({ policy: env.admins }),
            logger,
            routingDefaults: routing,
            alerts: queueAlertRefresher(queues, overrides.now),
            digest: queueDigestRequester(queues, { timeZone: watchSetup.timeZone, ...(overrides.now ? { now: overrides.now } : {}) }),
            ...(watchSetup.capacityAdvisor ? { advisor: watchSetup.capacityAdvisor } : {}),
            ...(overrides.now ? { now: overrides.now } : {}),
          },
        });
        if (handle.mode === 'socket') {
          // Socket Mode has no request URL; /healthz and /metrics still need a port.
          await handle.start();
          const http = await startHttpServer(routes, port, host);
          boundPort = Number(new URL(http.url).port);
          return { url: http.url, close: async () => { await handle.stop(); await http.close(); } };
        }
        const started = await handle.start(port, host);
        boundPort = started.port;
        return { url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${started.port}`, close: () => handle.stop() };
      },
    });
  } catch (err) {
    if (ownsRedis) await redis.close();
    throw err;
  }
  const url = runtime.web.url ?? `http://127.0.0.1:${boundPort ?? port}`;
  logger.info({ url, sources: sources.size, streams: watch?.streams.length ?? 0 }, 'streamdoctor running (web + worker + clock)');
  return {
    url,
    runtime,
    watch,
    logger,
    async close() {
      await runtime.close();
      if (ownsRedis) await redis.close();
    },
  };
}
