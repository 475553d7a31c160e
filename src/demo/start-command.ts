/**
 * `streamdoctor start` (`npm start`): the demo when no credentials are set (or with `--demo`), the
 * whole bot against the real services when Slack and Databricks are configured, and a clear
 * message when only some credentials are there. Runs until SIGINT/SIGTERM, then closes everything
 * within the shutdown deadline.
 */
import { createLogger } from '../observability/logger.js';
import { installShutdown } from '../runtime/shutdown.js';
import { startBot } from '../runtime/start-bot.js';
import { describeInvalidMode, detectStartMode } from './credentials.js';
import { DemoStartError, runDemo } from './run-demo.js';

const CONFIG_CODES = new Set(['streamdoctor_process_config', 'streamdoctor_config_invalid', 'streamdoctor_invalid_config']);

export interface StartCommandIo {
  env: NodeJS.ProcessEnv;
  out: NodeJS.WritableStream & { isTTY?: boolean };
  err: NodeJS.WritableStream;
}

/** Resolves to an exit code when start fails; otherwise never resolves (the process runs until a signal). */
export async function runStartCommand(argv: string[], io: StartCommandIo = { env: process.env, out: process.stdout, err: process.stderr }): Promise<number> {
  const unknown = argv.filter((arg) => arg !== '--demo');
  if (unknown.length > 0) {
    io.err.write(`streamdoctor start: unknown option ${unknown[0]}; the only option is --demo\n`);
    return 2;
  }
  const mode = detectStartMode(io.env, { forceDemo: argv.includes('--demo') });
  if (mode.mode === 'invalid') {
    io.err.write(`${describeInvalidMode(mode.problems)}\n`);
    return 2;
  }
  const logger = createLogger({ name: 'streamdoctor', level: io.env.LOG_LEVEL?.trim() || (mode.mode === 'demo' ? 'warn' : 'info') });
  try {
    if (mode.mode === 'demo') {
      const demo = await runDemo({ startBot: (env, overrides) => startBot(env, { ...overrides, logger }), env: io.env, out: io.out, logger });
      installShutdown(() => demo.close(), { logger });
    } else {
      const bot = await startBot(io.env, { logger });
      io.out.write(`StreamDoctor is running: ${bot.url} (POST /slack/events, /healthz, /metrics); ${bot.watch?.streams.length ?? 0} stream(s) watched\n`);
      installShutdown(() => bot.close(), { logger });
    }
  } catch (err) {
    if (err instanceof DemoStartError) {
      io.err.write(`${err.message}\n`);
      return err.exitCode;
    }
    const code = (err as { code?: string }).code ?? '';
    if (code === 'streamdoctor_redis_unavailable') {
      io.err.write(`${(err as Error).message}\n`);
      return 1;
    }
    if (CONFIG_CODES.has(code)) {
      io.err.write(`streamdoctor: ${(err as Error).message}\n`);
      return 2;
    }
    throw err;
  }
  return new Promise<number>(() => undefined);
}
