/**
 * The one base of StreamDoctor's own errors: a stable `code` (`streamdoctor_*`, one per meaning,
 * what logs, metrics and callers branch on) and, where there is one, the `fix`: what the person
 * reading it should do. The message says what happened and usually ends with the fix, so printing
 * the message alone is enough; `fix` is there for callers that show it apart.
 *
 * Errors that steer BullMQ's retries keep BullMQ's own classes (`UnrecoverableError`,
 * `DelayedError`): the queue recognises those by class, not by code.
 */
export interface StreamDoctorErrorOptions {
  /** What to do about it, in a sentence. @defaultValue none */
  fix?: string;
  cause?: unknown;
}

export class StreamDoctorError extends Error {
  readonly code: string;
  readonly fix: string | undefined;

  constructor(code: string, message: string, options: StreamDoctorErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.fix = options.fix;
  }
}

/** The `code` of any error that carries one (ours, Node's, the SDKs'); undefined otherwise. */
export function errorCodeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Configuration that cannot work: the environment, the watch file, the sources it names, the Redis
 * server's settings. Every problem is listed at once, each saying what to set instead.
 */
export class ConfigError extends StreamDoctorError {
  static readonly CODE = 'streamdoctor_config_invalid';

  constructor(
    readonly problems: string[],
    message: string = `configuration problems:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
  ) {
    super(ConfigError.CODE, message, { fix: 'correct each problem listed; docs/production.md lists every setting' });
  }
}
