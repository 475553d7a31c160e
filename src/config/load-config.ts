/**
 * The one configuration of a process: the environment (env.ts, a zod schema per variable) and the
 * watch file it names (watch-schema.ts, zod too), read together so every mistake in either is
 * reported in one list, each saying what to write instead.
 */
import { readEnvConfig, type EnvConfig } from './env.js';
import { readWatchConfigFile } from './read-watch-file.js';
import { WatchConfigError, type WatchConfig } from './watch-config.js';

export interface Config {
  env: EnvConfig;
  /** The watch file (`STREAMDOCTOR_CONFIG`); null when it is not set. */
  watch: WatchConfig | null;
  /** Every problem of the environment and the watch file. Empty when both are usable. */
  problems: string[];
}

export async function loadConfig(envVars: NodeJS.ProcessEnv): Promise<Config> {
  const env = readEnvConfig(envVars);
  const problems = [...env.problems];
  let watch: WatchConfig | null = null;
  if (env.configPath) {
    try {
      watch = await readWatchConfigFile(env.configPath, { defaultChannel: env.pipeline.defaultChannel });
    } catch (err) {
      if (!(err instanceof WatchConfigError)) throw err;
      problems.push(err.message);
    }
  }
  return { env, watch, problems };
}
