/**
 * What every Procfile process does first: read the environment, build the logger, find Redis,
 * and say clearly what is wrong when something is. Sources come from `SourceFactory` (the watch file
 * and the Databricks client); until a factory is passed the worker runs with none and says so.
 */
import { readEnvConfig, type EnvConfig } from '../config/env.js';
import { createLogger, type Logger } from '../observability/logger.js';
import type { SourceRegistry } from '../../jobs/progress-source.js';
import { discoverRedis, type DiscoveredRedis } from './redis-discovery.js';
import { readPipelineSettings, type PipelineSettings } from './process-settings.js';

export interface ProcessSetup {
  env: EnvConfig;
  settings: PipelineSettings;
  logger: Logger;
  redis: DiscoveredRedis;
}

export type SourceFactory = (setup: ProcessSetup) => Promise<SourceRegistry>;

export class ProcessSetupError extends Error {
  readonly code = 'streamdoctor_process_config';
  constructor(readonly problems: string[]) {
    super(`configuration problems:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ProcessSetupError';
  }
}

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
  return { env, settings, logger, redis };
}

/** Runs a command body, turning setup errors into a clear message and exit code 2. */
export async function runProcess(body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'streamdoctor_process_config' || code === 'streamdoctor_redis_unavailable' || code === 'streamdoctor_config_invalid') {
      process.stderr.write(`streamdoctor: ${(err as Error).message}\n`);
      return 2;
    }
    throw err;
  }
}
