/**
 * What every process builds from its configuration before it starts: the watch file's sources,
 * routing and engine options, and the capacity advisor; and how a command turns a setup error into
 * a clear message and exit code 2. The processes themselves are composed in compose.ts.
 */
import { JobClusterCache, jobClusterAdvisor, type CapacityAdvisor } from '../capacity/index.js';
import type { Config } from '../config/index.js';
import type { WatchConfig } from '../config/index.js';
import type { ClientEvent } from '../databricks/client-stats.js';
import { createDatabricksClient, type DatabricksClient } from '../databricks/databricks-client.js';
import type { EngineOptions } from '../diagnosis/engine-options.js';
import type { RoutingDefaults } from '../store/types.js';
import { buildWatchRuntime } from './watch-sources.js';
import type { Logger } from '../observability/logger.js';
import type { SourceRegistry } from '../sources/source.js';
import { ConfigError, errorCodeOf } from '../util/errors.js';

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
 * Builds sources, routing and engine options from the loaded watch file (credentials from the
 * environment variables it names). Environment settings win where both say something. The one
 * builder of every process (compose.ts, which passes the demo's clock when it has one).
 * Throws `WatchSourcesError` (a `ConfigError`) listing every source that cannot be built.
 */
export async function loadWatchSetup(
  setup: { config: Config; logger: Logger },
  envVars: NodeJS.ProcessEnv,
  options: LoadWatchSetupOptions = {},
): Promise<WatchSetup> {
  const { config, logger } = setup;
  const { env, watch } = config;
  const settings = env.pipeline;
  if (!watch) logger.warn('STREAMDOCTOR_CONFIG is not set: no streams are watched (see examples/streamdoctor.example.yml)');
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
    pollEveryMs: env.pollSecondsSet ? settings.pollEveryMs : (watch?.pollIntervalMs ?? settings.pollEveryMs),
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
  return jobClusterAdvisor(cache, { logger });
}

/** What a process found wrong before it could start (environment, watch file, Redis server settings). */
export class ProcessSetupError extends ConfigError {}

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
