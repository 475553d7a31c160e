/**
 * `streamdoctor <command>`: one entry point for the CLI and the Procfile processes.
 * Each command lives in its own module under ./commands and is loaded only when asked for, so
 * `streamdoctor diagnose` never pays for Slack, BullMQ or Redis, and `--version` for none of them.
 */
import { packageVersion } from '../observability/build-info.js';
import { describeFatal, installFatalHandlers } from './fatal.js';

export interface CommandModule {
  /** Runs the command; resolves to the process exit code. `--help` prints its usage and does nothing else. */
  run(argv: string[]): Promise<number>;
}

interface CommandEntry {
  summary: string;
  load: () => Promise<CommandModule>;
  /**
   * Runs until a signal, so it returns only when it could not start (or for --help): the process
   * then exits with the code, even though a Redis connection or a timer it opened is still alive.
   */
  server?: true;
}

export const COMMANDS: Record<string, CommandEntry> = {
  diagnose: {
    summary: 'diagnose progress JSON from a file or stdin',
    load: () => import('./commands/diagnose.js'),
  },
  start: {
    summary: 'run web, worker and clock in one process (the demo when no credentials are set)',
    load: () => import('./commands/start.js'),
    server: true,
  },
  web: { summary: 'run the Slack app and HTTP endpoints', load: () => import('./commands/web.js'), server: true },
  worker: { summary: 'run the BullMQ workers', load: () => import('./commands/worker.js'), server: true },
  clock: { summary: 'run the schedules (polls, digests)', load: () => import('./commands/clock.js'), server: true },
  'local-databricks': {
    summary: 'run the local Databricks stand-in',
    load: () => import('./commands/local-databricks.js'),
  },
  'local-slack': {
    summary: 'run the local Slack stand-in and its chat view',
    load: () => import('./commands/local-slack.js'),
  },
};

export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(
    ([name, entry]) => `  ${name.padEnd(width)}  ${entry.summary}`,
  );
  return (
    `usage: streamdoctor <command> [options]\n` +
    `       streamdoctor <command> --help\n` +
    `       streamdoctor --version\n\ncommands:\n${lines.join('\n')}\n`
  );
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v' || name === 'version') {
    process.stdout.write(`streamdoctor ${packageVersion()}\n`);
    return 0;
  }
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    (name ? process.stdout : process.stderr).write(usage());
    return name ? 0 : 2;
  }
  const entry = COMMANDS[name];
  if (!entry) {
    process.stderr.write(`streamdoctor: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  const command = await entry.load();
  return command.run(rest);
}

/** Resolves once what was written to `stream` so far has been handed to the OS. */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) resolve();
    else stream.write('', () => resolve());
  });
}

/**
 * What bin/streamdoctor.mjs runs: `main` with the process-wide handlers installed (one line on
 * stderr for an unexpected error or a closed stdout, see ./fatal.ts); resolves to the exit code.
 * A server command that returns ends the process once stdout and stderr are written (`exit`);
 * the others (diagnose) let it end by itself, so their output is never cut short.
 */
export async function runCli(argv: string[], exit: (code: number) => void = (code) => process.exit(code)): Promise<number> {
  installFatalHandlers();
  let code: number;
  try {
    code = await main(argv);
  } catch (error) {
    process.stderr.write(describeFatal(error, process.env));
    code = 1;
  }
  if (COMMANDS[argv[0] ?? '']?.server) {
    await Promise.all([drained(process.stdout), drained(process.stderr)]);
    exit(code);
  }
  return code;
}
