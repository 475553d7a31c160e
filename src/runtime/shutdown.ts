/**
 * Graceful shutdown: on SIGTERM or SIGINT (or an unhandled rejection, then with exit code 1) run the
 * closers (workers drain their active jobs), and exit when they finish or when the deadline passes,
 * whichever comes first. Platforms send
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
  /**
   * What may still be running when the deadline passes, for its log line (the web process has
   * requests, not jobs). @defaultValue 'jobs still active (they will be taken over)'
   */
  stillActive?: string;
}

export type Closer = () => Promise<void>;

/** Runs the closers once and exits: `code` 0 after a signal, 1 after a fatal error or the deadline. */
export function createShutdown(close: Closer, options: ShutdownOptions): (reason: string, code?: number) => Promise<void> {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const timeoutMs = options.timeoutMs ?? 9000;
  let started: Promise<void> | null = null;
  return (reason: string, code = 0) => {
    if (started) return started;
    options.logger.info({ reason }, 'shutting down');
    const timer = setTimeout(() => {
      options.logger.warn({ timeoutMs }, `shutdown deadline passed; exiting with ${options.stillActive ?? 'jobs still active (they will be taken over)'}`);
      exit(1);
    }, timeoutMs);
    timer.unref();
    started = close()
      .then(() => {
        clearTimeout(timer);
        options.logger.info(code === 0 ? 'shut down cleanly' : 'shut down after a fatal error');
        exit(code);
      })
      .catch((err) => {
        clearTimeout(timer);
        options.logger.error({ err }, 'error while shutting down');
        exit(1);
      });
    return started;
  };
}

/**
 * An unhandled rejection leaves the process in an unknown state (a half-done job, a stuck
 * connection): log it, then shut down gracefully with exit code 1 so the platform restarts the
 * process; BullMQ hands its unfinished jobs to another worker.
 */
export function unhandledRejectionHandler(logger: Logger, shutdown: (reason: string, code?: number) => Promise<void>): (reason: unknown) => void {
  return (reason) => {
    logger.error({ err: reason }, 'unhandled rejection; shutting down (the platform restarts the process)');
    void shutdown('unhandledRejection', 1);
  };
}

/** An uncaught exception: logged with its stack (the CLI's one-line handler defers to this), then as above. */
export function uncaughtExceptionHandler(logger: Logger, shutdown: (reason: string, code?: number) => Promise<void>): (error: Error) => void {
  return (error) => {
    logger.error({ err: error }, 'uncaught exception; shutting down (the platform restarts the process)');
    void shutdown('uncaughtException', 1);
  };
}

export function installShutdown(close: Closer, options: ShutdownOptions): () => Promise<void> {
  const run = createShutdown(close, options);
  for (const signal of options.signals ?? ['SIGTERM', 'SIGINT']) process.once(signal, () => void run(signal));
  process.on('unhandledRejection', unhandledRejectionHandler(options.logger, run));
  process.on('uncaughtException', uncaughtExceptionHandler(options.logger, run));
  return () => run('manual');
}
