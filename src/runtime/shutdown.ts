/**
 * Graceful shutdown: on SIGTERM or SIGINT run the closers (workers drain their active jobs), and
 * exit when they finish or when the deadline passes, whichever comes first. Platforms send
 * SIGKILL after 10–30 s, so the default deadline is under 10 s.
 */
import type { Logger } from '../observability/logger.js';

export interface ShutdownOptions {
  logger: Logger;
  /** Hard deadline. @defaultValue 9000 */
  timeoutMs?: number;
  /** Exit function (tests pass their own). @defaultValue process.exit */
  exit?: (code: number) => void;
  /** Signals to handle. @defaultValue ['SIGTERM', 'SIGINT'] */
  signals?: NodeJS.Signals[];
}

export type Closer = () => Promise<void>;

export function installShutdown(close: Closer, options: ShutdownOptions): () => Promise<void> {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const timeoutMs = options.timeoutMs ?? 9000;
  let started: Promise<void> | null = null;
  const run = (signal: string) => {
    if (started) return started;
    options.logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      options.logger.warn({ timeoutMs }, 'shutdown deadline passed; exiting with jobs still active (they will be taken over)');
      exit(1);
    }, timeoutMs);
    timer.unref();
    started = close()
      .then(() => {
        clearTimeout(timer);
        options.logger.info('shut down cleanly');
        exit(0);
      })
      .catch((err) => {
        clearTimeout(timer);
        options.logger.error({ err }, 'error while shutting down');
        exit(1);
      });
    return started;
  };
  for (const signal of options.signals ?? ['SIGTERM', 'SIGINT']) process.once(signal, () => void run(signal));
  process.on('unhandledRejection', (reason) => options.logger.error({ err: reason }, 'unhandled rejection'));
  return () => run('manual');
}
