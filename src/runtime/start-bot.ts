/**
 * The whole bot in one process from an environment (`composeProcess('start')`): config (env + watch
 * file), Redis, the progress sources, the engine, the Slack app (HTTP receiver or Socket Mode) with
 * /healthz and /metrics, and the pipeline's workers and schedules (`startAll`). `streamdoctor start`
 * runs it on the process environment; the demo runs the very same function on an environment
 * pointed at the stand-ins.
 */
import type { WatchConfig } from '../config/index.js';
import type { Logger } from '../observability/logger.js';
import { composeProcess, type ComposeOptions } from './compose.js';
import type { AllRuntime } from './pipeline-runtime.js';

export type StartBotOverrides = Omit<ComposeOptions, 'env'>;

export interface RunningBot {
  /** Base URL of the HTTP server, e.g. http://127.0.0.1:3000 (POST /slack/events, /healthz, /metrics). */
  url: string;
  runtime: AllRuntime;
  watch: WatchConfig | null;
  logger: Logger;
  close(): Promise<void>;
}

/** Starts web + worker + clock. Throws `ProcessSetupError` (code streamdoctor_config_invalid) listing what to fix. */
export async function startBot(envVars: NodeJS.ProcessEnv, overrides: StartBotOverrides = {}): Promise<RunningBot> {
  const bot = await composeProcess('start', { ...overrides, env: envVars });
  return { url: bot.url!, runtime: bot.runtime as AllRuntime, watch: bot.watch, logger: bot.logger, close: () => bot.close() };
}
