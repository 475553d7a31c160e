/**
 * `streamdoctor start` (`npm start`): web + worker + clock in one process, for a laptop or a single
 * small machine. With Slack and Databricks configured it runs the whole bot against the real
 * services (src/runtime/start-bot.ts: watch-file sources, the Slack app, `startAll`); with no
 * credentials at all (or `--demo`) it runs the demo against the built-in stand-ins, loaded with
 * `import()` only then, so the production graph never holds the demo, the stand-ins or the
 * simulator (test/cli/production-graph.test.ts). Half a configuration is refused with what is missing.
 * Runs until SIGINT/SIGTERM, then closes everything within the shutdown deadline.
 */
import { createLogger } from '../../observability/logger.js';
import { installShutdown } from '../../runtime/shutdown.js';
import { startBot } from '../../runtime/start-bot.js';
import { parseCommandArgs, UsageError, wantsHelp } from '../command-args.js';
import { readEnvConfig } from '../../config/env.js';
import { DATABRICKS_CREDENTIAL_VARS, describeInvalidMode, detectStartMode, SLACK_CREDENTIAL_VARS } from '../../config/start-mode.js';
import { ConfigError, errorCodeOf } from '../../util/errors.js';

export const USAGE = `usage: streamdoctor start [--demo]

Runs the web, worker and clock processes in one process. With no Slack or Databricks credentials in
the environment it runs the built-in demo (a local Slack and a local Databricks with five simulated
streams); with Slack and Databricks configured it runs for real (docs/production.md).

options:
  --demo       run the demo even when credentials are set
  -h, --help   this help
`;


export interface StartCommandIo {
  env: NodeJS.ProcessEnv;
  out: NodeJS.WritableStream & { isTTY?: boolean };
  err: NodeJS.WritableStream;
}

/** What the all-in-one process may still be doing at its shutdown deadline. */
const STILL_ACTIVE = 'jobs (taken over at the next start) or Slack requests still active';

const OPTIONS = { demo: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;

/** Resolves to an exit code when start fails; otherwise never resolves (the process runs until a signal). */
export async function run(argv: string[], io: StartCommandIo = { env: process.env, out: process.stdout, err: process.stderr }): Promise<number> {
  if (wantsHelp(argv)) {
    io.out.write(USAGE);
    return 0;
  }
  let demo: boolean;
  try {
    demo = parseCommandArgs(argv, OPTIONS).values.demo ?? false;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err.write(`streamdoctor start: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  const mode = detectStartMode(io.env, { forceDemo: demo });
  if (mode.mode === 'invalid') {
    io.err.write(`${describeInvalidMode(mode.problems)}\n`);
    return 2;
  }
  // The environment is read (one pure function, as every process reads it) before anything uses a
  // value of it: a bad LOG_LEVEL would otherwise reach pino raw and end in its own error. The demo
  // brings its own Slack and Databricks, so only the credentials are left out of its check.
  const demoOwns = new Set<string>([...SLACK_CREDENTIAL_VARS, ...DATABRICKS_CREDENTIAL_VARS]);
  const envConfig = readEnvConfig(mode.mode === 'demo' ? Object.fromEntries(Object.entries(io.env).filter(([name]) => !demoOwns.has(name))) : io.env);
  if (envConfig.problems.length > 0) {
    io.err.write(`streamdoctor: ${new ConfigError(envConfig.problems).message}\n`);
    return 2;
  }
  const logger = createLogger({ name: 'streamdoctor', level: io.env.LOG_LEVEL?.trim() ? envConfig.logLevel : mode.mode === 'demo' ? 'warn' : 'info' });
  try {
    if (mode.mode === 'demo') {
      const { runDemo } = await import('../../demo/run-demo.js');
      const running = await runDemo({ startBot: (env, overrides) => startBot(env, { ...overrides, logger }), env: io.env, out: io.out, logger });
      installShutdown(() => running.close(), { logger, stillActive: STILL_ACTIVE });
    } else {
      const bot = await startBot(io.env, { logger });
      io.out.write(`StreamDoctor is running: ${bot.url} (POST /slack/events, /healthz, /metrics); ${bot.watch?.streams.length ?? 0} stream(s) watched\n`);
      installShutdown(() => bot.close(), { logger, stillActive: STILL_ACTIVE });
    }
  } catch (err) {
    const code = errorCodeOf(err) ?? '';
    // DemoStartError (src/demo/run-demo.ts), matched by its code so this module never imports the demo.
    if (code === 'streamdoctor_demo_start') {
      io.err.write(`${(err as Error).message}\n`);
      return (err as { exitCode?: number }).exitCode ?? 1;
    }
    if (code === 'streamdoctor_redis_unavailable') {
      io.err.write(`${(err as Error).message}\n`);
      return 1;
    }
    if (code === ConfigError.CODE) {
      io.err.write(`streamdoctor: ${(err as Error).message}\n`);
      return 2;
    }
    throw err;
  }
  return new Promise<number>(() => undefined);
}
