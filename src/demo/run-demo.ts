/**
 * `npm start` with no credentials: finds a Redis, starts the stand-ins, then starts the bot exactly
 * as production does (the `start` command's own composition, passed in as `startBot`) with its
 * environment pointed at the stand-ins, connects the local Slack to the app's request URL, and prints
 * the banner. Stopping closes the bot first, then the stand-ins, then deletes the demo's Redis keys.
 */
import { StreamDoctorError } from '../util/errors.js';
import type { Logger } from '../observability/logger.js';
import { discoverRedis, displayRedisUrl, redisUrlAnswers, RedisUnavailableError, type DiscoveredRedis, type RedisDiscoveryOptions } from '../runtime/redis-discovery.js';
import { renderBanner } from './banner.js';
import { demoPrefix, deletePrefixedKeys } from './demo-keys.js';
import { startDemoEnvironment, type DemoEnvironment, type DemoEnvironmentOptions } from './demo-environment.js';

/** What the demo needs from the bot's composition: start everything from an environment. */
export interface BotOverrides {
  /** The clock every part of the bot reads (the demo's accelerated time). */
  now: () => number;
  /** Interface the app's HTTP server binds. */
  host: string;
  /** Port of the app's HTTP server; 0 picks a free one. */
  port: number;
  /** A Redis already found (the demo found it first, to print it). */
  redis: DiscoveredRedis;
  /** Detect tick for every stream, wall-clock ms: stalls must be noticed quickly in fast time. */
  sweepEveryMs: number;
}

export interface StartedBot {
  /** Base URL of the app's HTTP server (POST /slack/events, /healthz, /metrics). */
  url: string;
  close(): Promise<void>;
}

export type StartBot = (env: NodeJS.ProcessEnv, overrides: BotOverrides) => Promise<StartedBot>;

export interface RunDemoOptions {
  startBot: StartBot;
  /** @defaultValue process.env */
  env?: NodeJS.ProcessEnv;
  /** Where the banner goes. @defaultValue process.stdout */
  out?: NodeJS.WritableStream & { isTTY?: boolean };
  logger?: Logger;
  /** Stand-in options (ports, speed, streams). The chat view port defaults to PORT, else 3000. */
  environment?: DemoEnvironmentOptions;
  /** Redis key prefix. @defaultValue a fresh `sd-demo-…` per run */
  prefix?: string;
  /** Delete the run's Redis keys on close. @defaultValue true */
  cleanRedis?: boolean;
  /** Where to look for Redis (tests point it at a silent port). @defaultValue REDIS_URL, localhost:6379, a private redis-server */
  redisDiscovery?: Omit<RedisDiscoveryOptions, 'env'>;
}

export interface RunningDemo {
  environment: DemoEnvironment;
  bot: StartedBot;
  redis: DiscoveredRedis;
  prefix: string;
  banner: string;
  close(): Promise<void>;
}

export class DemoStartError extends StreamDoctorError {
  constructor(message: string, readonly exitCode: number) {
    super('streamdoctor_demo_start', message);
  }
}

function chatPortOf(env: NodeJS.ProcessEnv): number {
  const port = Number(env.PORT ?? '3000');
  return Number.isInteger(port) && port >= 0 && port <= 65_535 ? port : 3000;
}

/** Starts the demo; throws `DemoStartError` (with the exit code to use) when it cannot. */
export async function runDemo(options: RunDemoOptions): Promise<RunningDemo> {
  const env = options.env ?? process.env;
  let redis: DiscoveredRedis;
  try {
    redis = await discoverRedis({ ...options.redisDiscovery, env });
  } catch (err) {
    if (err instanceof RedisUnavailableError) throw new DemoStartError(err.message, 1);
    throw err;
  }
  // A stale REDIS_URL would leave the demo waiting forever for a connection: say so instead.
  if (redis.origin === 'env' && !(await redisUrlAnswers(redis.url))) {
    throw new DemoStartError(
      `REDIS_URL is set to ${displayRedisUrl(redis.url)}, but nothing answers there.\nStart that Redis, or unset REDIS_URL to use one on 127.0.0.1:6379 (or a private redis-server).`,
      1,
    );
  }
  const prefix = options.prefix ?? demoPrefix();
  const cleanRedis = options.cleanRedis ?? true;
  let environment: DemoEnvironment | undefined;
  let bot: StartedBot | undefined;
  const close = async (): Promise<void> => {
    await bot?.close().catch((err: unknown) => options.logger?.warn({ err }, 'demo: bot did not close cleanly'));
    await environment?.close();
    if (cleanRedis) await deletePrefixedKeys(redis.url, prefix).catch(() => 0);
    await redis.close();
  };
  try {
    environment = await startDemoEnvironment({ chatPort: chatPortOf(env), ...options.environment });
    const botEnv: NodeJS.ProcessEnv = {
      ...env,
      ...environment.env,
      REDIS_URL: redis.url,
      STREAMDOCTOR_PREFIX: prefix,
      // Demo time runs fast: poll often, and keep the console for the banner.
      STREAMDOCTOR_POLL_SECONDS: env.STREAMDOCTOR_POLL_SECONDS ?? '1',
      LOG_LEVEL: env.LOG_LEVEL ?? 'warn',
    };
    bot = await options.startBot(botEnv, { now: environment.now, host: '127.0.0.1', port: 0, redis, sweepEveryMs: 3_000 });
    environment.slack.setRequestUrl(`${bot.url}/slack/events`);
    const out = options.out ?? process.stdout;
    const banner = renderBanner({
      chatUrl: environment.chatUrl,
      appUrl: bot.url,
      databricksUrl: environment.databricks.url,
      redis: `${displayRedisUrl(redis.url)} (${redis.origin === 'env' ? 'REDIS_URL' : redis.origin === 'local' ? 'already running' : 'private, for this run'})`,
      speedup: environment.speed,
      lagChannel: `#${environment.streams.find((s) => s.story === 'lag')?.channel ?? 'data-alerts'}`,
      streams: environment.streams.map((s) => ({ name: s.name, story: s.summary, channel: `#${s.channel}` })),
      color: Boolean(out.isTTY),
    });
    out.write(banner);
    return { environment, bot, redis, prefix, banner, close };
  } catch (err) {
    await close();
    throw err;
  }
}
