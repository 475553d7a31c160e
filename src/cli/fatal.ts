/**
 * How a `streamdoctor` process ends when something goes wrong outside a command's own error
 * handling: one line on stderr and a non-zero exit code, the stack only with STREAMDOCTOR_DEBUG=1
 * (servers log it with the stack instead, see installFatalHandlers).
 * A closed stdout (`streamdoctor diagnose big.jsonl | head -1`) ends the process at once (EPIPE).
 */

import { errorCodeOf } from '../util/errors.js';

export interface FatalIo {
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
  exit: (code: number) => void;
}

const defaultIo = (): FatalIo => ({ stderr: process.stderr, env: process.env, exit: (code) => process.exit(code) });

/** The line (or, with STREAMDOCTOR_DEBUG=1, the stack) printed for an unexpected error. */
export function describeFatal(error: unknown, env: NodeJS.ProcessEnv): string {
  const debug = env.STREAMDOCTOR_DEBUG === '1' || env.STREAMDOCTOR_DEBUG === 'true';
  if (debug && error instanceof Error && error.stack) return `streamdoctor: ${error.stack}\n`;
  const message = error instanceof Error ? error.message : String(error);
  const errorCode = errorCodeOf(error);
  const code = errorCode ? ` (${errorCode})` : '';
  const firstLine = message.split('\n')[0]!.trim() || (error instanceof Error ? error.name : 'error');
  return `streamdoctor: unexpected error: ${firstLine}${code}${debug ? '' : '; set STREAMDOCTOR_DEBUG=1 for the stack'}\n`;
}

/** Ends the process with one line for an EPIPE on stdout/stderr; other stream errors are fatal errors. */
export function onStreamError(error: NodeJS.ErrnoException, io: FatalIo = defaultIo()): void {
  if (error.code === 'EPIPE') {
    io.stderr.write('streamdoctor: output closed before the end (EPIPE); stopping\n');
    io.exit(1);
    return;
  }
  io.stderr.write(describeFatal(error, io.env));
  io.exit(1);
}

/**
 * Installs the process-wide handlers. An unhandled rejection or uncaught exception is left to a
 * running server's graceful shutdown (src/runtime/shutdown.ts, which logs the stack) when one has
 * installed its own handler.
 */
export function installFatalHandlers(io: FatalIo = defaultIo()): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => onStreamError(error, io));
  // Nowhere left to say anything on a closed stderr: just stop.
  process.stderr.on('error', () => io.exit(1));
  for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
    process.on(event, (error: unknown) => {
      // A running server logs it with its stack and shuts down (src/runtime/shutdown.ts).
      if (process.listenerCount(event) > 1) return;
      io.stderr.write(describeFatal(error, io.env));
      io.exit(1);
    });
  }
}
