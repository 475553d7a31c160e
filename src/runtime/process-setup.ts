/**
 * What every Procfile process does first: read the environment, build the logger, find Redis,
 * and say clearly what is wrong when something is; then the watch file gives sources, routing and
 * engine options.
 */
import { JobClusterCache, jobClusterAdvisor, type CapacityAdvisor } from '../capacity/index.js';
import { readEnvConfig, type EnvConfig } from '../config/env.js';
import { readWatchConfigFile, type WatchConfig } from '../config/index.js';
import type { ClientEvent } from '../databricks/client-stats.js';
import { createDatabricksClient, type DatabricksClient } from '../databricks/databricks-client.js';
import type { EngineOptions } from '../diagnosis/engine-options.js';
import type { RoutingDefaults } from '../store/types.js';
import { buildWatchRuntime } from './watch-sources.js';
import { createLogger, type Logger } from '../observability/logger.js';
import type { SourceRegistry } from '../sources/source.js';
import { checkRedisServer } from './redis-server-check.js';
import { discoverRedis, type DiscoveredRedis } from './redis-discovery.js';
import { readPipelineSettings, type PipelineSettings } from './process-settings.js';
import { ConfigError, errorCodeOf } from '../util/errors.js';

export interface ProcessSetup {
  env: EnvConfig;
  settings: PipelineSettings;
  logger: Logger;
  redis: DiscoveredRedis;
}

/** What the watch file (STREAMDOCTOR_CONFIG) gives a process; empty when it is not set. */
export interface WatchSetup {
  watch: WatchConfig | null;
  sources: SourceRegistry;
  routing: RoutingDefaults;
  engineOptionsFor: (queryId: string) => EngineOptions | undefined;
  pollEveryMs: number;
  digestAt: string;
  timeZone: string;
  /**
   * Capacity advice in workers of a stream's job cluster, read with `jobs/get` through the
   * workspace's client (src/capacity). Undefined without a watch file: the engine's wording.
   */
  capacityAdvisor?: CapacityAdvisor;
}

export interface LoadWatchSetupOptions {
  /** Clock of the sources (their lookback windows), e.g. the demo's accelerated clock. @defaultValue Date.now */
  now?: () => number;
  /** Given to every Databricks client: what each request did (metrics' `databricksRequestObserver`). @defaultValue none */
  onDatabricksEvent?: (event: ClientEvent) => void;
}

/**
 * Reads the watch file and builds sources, routing and engine options from it (credentials from
 * the environment variables it names). Environment settings win where both say something. The one
 * loader of every process: `web`, `worker`, `clock` and `startBot` (which passes its clock).
 * Throws `ProcessSetupError` listing every mistake (file:line:column and what to write instead).
 */
export async function loadWatchSetup(
  setup: Pick<ProcessSetup, 'env' | 'settings' | 'logger'>,
  envVars: NodeJS.ProcessEnv = process.env,
  options: LoadWatchSetupOptions = {},
): Promise<WatchSetup> {
  const { env, settings, logger } = setup;
  let watch: WatchConfig | null = null;
  if (env.configPath) {
    try {
      watch = await readWatchConfigFile(env.configPath);
    } catch (err) {
      throw new ProcessSetupError([(err as Error).message]);
    }
  } else {
    logger.warn('STREAMDOCTOR_CONFIG is not set: no streams are watched (see examples/streamdoctor.example.yml)');
  }
  // Missing credentials or warehouse throw WatchSourcesError, a ConfigError too.
  // The sources' clients, by host: the capacity advisor reads job settings through the same ones.
  const clients = new Map<string, DatabricksClient>();
  const createClient: typeof createDatabricksClient = (clientOptions) => {
    const client = createDatabricksClient(options.onDatabricksEvent ? { ...clientOptions, onEvent: options.onDatabricksEvent } : clientOptions);
    clients.set(clientOptions.host, client);
    return client;
  };
  const built = watch
    ? buildWatchRuntime(watch, { env: envVars, logger, defaultWarehouseId: env.databricks.warehouseId, createClient, ...(options.now ? { now: options.now } : {}) })
    : null;
  const capacityAdvisor = watch ? watchAdvisor(watch, clients, logger) : undefined;
  const routing: RoutingDefaults = built?.routing ?? {};
  if (settings.defaultChannel) routing.defaultChannel = settings.defaultChannel;
  return {
    watch,
    sources: built?.sources ?? new Map(),
    routing,
    engineOptionsFor: built ? (id) => built.engineOptionsFor(id) : () => undefined,
    // An explicit STREAMDOCTOR_POLL_SECONDS wins over the watch file's poll_interval.
    pollEveryMs: envVars.STREAMDOCTOR_POLL_SECONDS?.trim() ? settings.pollEveryMs : (watch?.pollIntervalMs ?? settings.pollEveryMs),
    digestAt: watch?.digest?.time ?? settings.digestAt,
    timeZone: watch?.digest?.timeZone ?? settings.timeZone,
    ...(capacityAdvisor ? { capacityAdvisor } : {}),
  };
}

/** Job cluster specs per workspace of the watch file (a stream without one: the only workspace, if one). */
function watchAdvisor(watch: WatchConfig, clients: Map<string, DatabricksClient>, logger: Logger): CapacityAdvisor {
  const cache = new JobClusterCache({
    jobsFor(name) {
      const workspace = name === null ? (watch.workspaces.length === 1 ? watch.workspaces[0] : undefined) : watch.workspaces.find((w) => w.name === name);
      return (workspace && clients.get(workspace.host)?.jobs) ?? null;
    },
    logger,
  });
  return jobClusterAdvisor(cache);
}

/** What a process found wrong before it could start (environment, watch file, Redis server settings). */
export class ProcessSetupError extends ConfigError {}

export interface SetupOptions {
  name: string;
  env?: NodeJS.ProcessEnv;
  /** Start a private redis-server when none is configured or running (the all-in-one `start`). @defaultValue false */
  allowPrivateRedis?: boolean;
}

export async function setupProcess(options: SetupOptions): Promise<ProcessSetup> {
  const envVars = options.env ?? process.env;
  const env = readEnvConfig(envVars);
  const settings = readPipelineSettings(envVars);
  const problems = [...env.problems, ...settings.problems];
  if (problems.length > 0) throw new ProcessSetupError(problems);
  const logger = createLogger({ name: options.name, level: env.logLevel });
  const redis = await discoverRedis({ env: envVars, ...(options.allowPrivateRedis ? {} : { redisServer: null }) });
  const serverProblems = await checkRedisServer(redis.url);
  if (serverProblems.length > 0) {
    await redis.close();
    throw new ProcessSetupError(serverProblems);
  }
  return { env, settings, logger, redis };
}

/** Runs a command body, turning setup errors into a clear message and exit code 2. */
export async function runProcess(body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (err) {
    const code = errorCodeOf(err);
    if (code === ConfigError.CODE || code === 'streamdoctor_redis_unavailable') {
      process.stderr.write(`streamdoctor: ${(err as Error).message}\n`);
      return 2;
    }
    throw err;
  }
}
