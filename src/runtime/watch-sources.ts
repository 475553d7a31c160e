/**
 * From the validated watch file to what the pipeline runs: one progress-table source per workspace,
 * one event-log source per Lakeflow pipeline, one job-runs source per workspace with jobs, the
 * routing defaults (query → job → pipeline → default channel), and per-query engine options.
 * Credentials are resolved from the environment variables the file names (never from the file), or
 * for `auth: { profile }` / no `auth`, Databricks-style from `DATABRICKS_*` and `~/.databrickscfg`,
 * which is read here, once, only when a workspace needs it.
 */
import type { SourceEntry, SourceRegistry } from '../sources/source.js';
import { readDatabricksConfigFile, resolveWorkspaceCredentials, type DatabricksConfigFileText, type StreamWatch, type WatchConfig, type WorkspaceWatch } from '../config/index.js';
import { createDatabricksClient, type DatabricksClient } from '../databricks/databricks-client.js';
import type { EngineOptions } from '../diagnosis/engine-options.js';
import type { Logger } from '../observability/logger.js';
import type { Progress } from '../progress/types.js';
import { JobRunsSource, PipelineEventsSource, ProgressTableSource } from '../sources/index.js';
import type { RoutingDefaults, StreamInfo } from '../store/types.js';
import { ConfigError } from '../util/errors.js';

/** The watch file names sources that cannot be built (credentials, warehouse): every problem at once. */
export class WatchSourcesError extends ConfigError {}

export interface WatchSourcesOptions {
  env: NodeJS.ProcessEnv;
  logger?: Logger;
  /** Clock of the sources (lookback windows). @defaultValue Date.now */
  now?: () => number;
  /** `DATABRICKS_WAREHOUSE_ID`, used when a workspace names no warehouse. */
  defaultWarehouseId?: string | null;
  /** Builds a workspace's client (tests pass their own). @defaultValue createDatabricksClient */
  createClient?: typeof createDatabricksClient;
  /**
   * The Databricks profiles file (null: none). @defaultValue read from `DATABRICKS_CONFIG_FILE` or
   * `~/.databrickscfg` when a workspace uses a profile or names no auth
   */
  databricksConfigFile?: DatabricksConfigFileText | null;
}

export interface WatchRuntime {
  sources: SourceRegistry;
  routing: RoutingDefaults;
  /** Engine options of one query (trigger, cores, retention, repartition threshold). */
  engineOptionsFor(queryId: string): EngineOptions | undefined;
}

function streamFor(config: WatchConfig, progress: Progress): StreamWatch | undefined {
  return config.streams.find((s) => s.queryId === progress.id) ?? config.streams.find((s) => s.queryId === null && s.name !== null && s.name === progress.name);
}

function describeFor(config: WatchConfig, workspace: WorkspaceWatch, extra: Partial<StreamInfo> = {}) {
  return (progress: Progress): Partial<StreamInfo> => {
    const stream = streamFor(config, progress);
    return {
      workspace: workspace.name,
      workspaceUrl: workspace.host,
      ...(stream?.jobId ? { jobId: String(stream.jobId) } : {}),
      ...extra,
    };
  };
}

/** Builds sources, routing and engine options from a watch file. Throws `WatchSourcesError` listing every problem. */
export function buildWatchRuntime(config: WatchConfig, options: WatchSourcesOptions): WatchRuntime {
  const problems: string[] = [];
  const sources = new Map<string, SourceEntry>();
  const createClient = options.createClient ?? createDatabricksClient;
  const now = options.now ?? Date.now;
  let configFile: DatabricksConfigFileText | null = options.databricksConfigFile ?? null;
  if (options.databricksConfigFile === undefined && config.workspaces.some((w) => w.auth.kind === 'databricks-config')) {
    const read = readDatabricksConfigFile(options.env);
    if (read.ok) configFile = read.file;
    else problems.push(read.problem);
  }
  for (const workspace of config.workspaces) {
    const credentials = resolveWorkspaceCredentials(workspace, options.env, configFile);
    if (!credentials.ok) {
      problems.push(credentials.error);
      continue;
    }
    const client: DatabricksClient = createClient({ host: workspace.host, credentials: credentials.credentials, ...(options.logger ? { logger: options.logger } : {}) });
    const streams = config.streams.filter((s) => s.workspace === workspace.name);
    const warehouseId = workspace.warehouseId ?? options.defaultWarehouseId ?? null;
    if (workspace.progressTable) {
      if (!warehouseId) {
        problems.push(`workspace "${workspace.name}": progress_table needs a SQL warehouse; add warehouse_id: <id> to the workspace or set DATABRICKS_WAREHOUSE_ID`);
      } else {
        sources.set(`${workspace.name}.progress`, {
          id: `${workspace.name}.progress`,
          workspace: workspace.name,
          source: new ProgressTableSource({
            client,
            warehouseId,
            table: workspace.progressTable,
            watched: {
              queryIds: streams.flatMap((s) => (s.queryId ? [s.queryId] : [])),
              queryNames: streams.flatMap((s) => (s.queryId === null && s.name ? [s.name] : [])),
            },
            now,
            ...(options.logger ? { logger: options.logger } : {}),
          }),
          describe: describeFor(config, workspace),
        });
      }
    }
    for (const pipeline of workspace.pipelines) {
      const id = `${workspace.name}.pipeline.${pipeline.pipelineId}`;
      sources.set(id, {
        id,
        workspace: workspace.name,
        source: new PipelineEventsSource({ client, pipelineIds: [pipeline.pipelineId], now }),
        describe: describeFor(config, workspace, { pipelineId: pipeline.pipelineId }),
      });
    }
    if (workspace.jobs.length > 0) {
      const id = `${workspace.name}.jobs`;
      sources.set(id, {
        id,
        workspace: workspace.name,
        source: new JobRunsSource({
          client,
          jobs: workspace.jobs.map((job) => ({ jobId: job.jobId, ...(job.name ? { name: job.name } : {}), ...(job.continuous !== null ? { continuous: job.continuous } : {}) })),
          now,
        }),
      });
    }
  }
  if (problems.length > 0) throw new WatchSourcesError(problems);

  const routing: RoutingDefaults = { queries: {}, jobs: {}, pipelines: {}, defaultChannel: config.defaultChannel };
  for (const workspace of config.workspaces) {
    for (const job of workspace.jobs) routing.jobs![String(job.jobId)] = job.channel;
    for (const pipeline of workspace.pipelines) routing.pipelines![pipeline.pipelineId] = pipeline.channel;
  }
  for (const stream of config.streams) if (stream.queryId) routing.queries![stream.queryId] = stream.channel;

  const byQuery = new Map(config.streams.flatMap((s) => (s.queryId ? [[s.queryId, s] as const] : [])));
  return {
    sources,
    routing,
    engineOptionsFor(queryId) {
      const stream = byQuery.get(queryId);
      const options: EngineOptions = { retentionMs: stream?.retentionMs ?? config.retentionMs };
      if (stream?.triggerMs) options.triggerMs = stream.triggerMs;
      if (stream?.cores) options.cores = stream.cores;
      if (config.thresholds.repartitionMs) options.repartitionThresholdMs = config.thresholds.repartitionMs;
      return options;
    },
  };
}
