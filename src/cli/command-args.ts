/**
 * Every command reads its arguments with `node:util` `parseArgs` through `parseCommandArgs`: one
 * spelling of `--help`/`-h` everywhere (answered before anything else is looked at, so `--help` never
 * starts a server), and parse errors turned into a short `UsageError` message.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { StreamDoctorError } from '../util/errors.js';

export class UsageError extends StreamDoctorError {
  constructor(message: string) {
    super('streamdoctor_usage', message, { fix: 'run the command with --help' });
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;

export type ParsedArgs<O extends Options> = ReturnType<typeof parseArgs<{ options: O; allowPositionals: true; strict: true }>>;

/** True when `--help` or `-h` comes before a `--` terminator. */
export function wantsHelp(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

/**
 * Parses `argv` strictly against `options`; `maxPositionals` positional arguments are allowed
 * (default none). Throws `UsageError` saying what is wrong.
 */
export function parseCommandArgs<O extends Options>(argv: string[], options: O, maxPositionals = 0): ParsedArgs<O> {
  let parsed: ParsedArgs<O>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(describeParseError(error as Error & { code?: string }));
  }
  if (parsed.positionals.length > maxPositionals) {
    const extra = parsed.positionals[maxPositionals]!;
    throw new UsageError(
      maxPositionals === 0
        ? `unexpected argument "${extra}"; this command takes options only`
        : `unexpected argument "${extra}"; at most ${maxPositionals} ${maxPositionals === 1 ? 'argument' : 'arguments'}`,
    );
  }
  return parsed;
}

function describeParseError(error: Error & { code?: string }): string {
  const option = /'(-[^' ]+)/.exec(error.message)?.[1] ?? '';
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option "${option}"`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/does not take an argument/.test(error.message)) return `${option} takes no value`;
      if (/ambiguous/.test(error.message)) return `${option} needs a value (write ${option}=VALUE for one that starts with "-")`;
      return `${option} needs a value`;
    default:
      return error.message;
  }
}

export interface CommandIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/**
 * The start of every command's `run`: prints `usage` for `--help` (exit 0) or a parse error with the
 * usage (exit 2), otherwise returns the parsed arguments. A number means "exit with it now".
 */
export function readCommandArgs<O extends Options>(
  command: string,
  usage: string,
  argv: string[],
  options: O,
  maxPositionals = 0,
  io: CommandIo = { stdout: process.stdout, stderr: process.stderr },
): ParsedArgs<O> | number {
  if (wantsHelp(argv)) {
    io.stdout.write(usage);
    return 0;
  }
  try {
    return parseCommandArgs(argv, options, maxPositionals);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`streamdoctor ${command}: ${error.message}\n\n${usage}`);
    return 2;
  }
}

/** `--help`/`-h` as every command spells it. */
export const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;
