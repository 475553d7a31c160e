/**
 * Structured JSON logs (pino). Secrets never reach a log line: known secret-bearing keys are
 * redacted wherever they appear, and `redactSecrets` scrubs token shapes out of free text
 * (error messages that echo a header, for instance).
 */
import { DEFAULTS } from '../config/defaults.js';
import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

const SECRET_KEYS = [
  'token',
  'accessToken',
  'access_token',
  'botToken',
  'appToken',
  'clientSecret',
  'client_secret',
  'signingSecret',
  'password',
  'authorization',
  'Authorization',
  'DATABRICKS_TOKEN',
  'DATABRICKS_CLIENT_SECRET',
  'SLACK_BOT_TOKEN',
  'SLACK_SIGNING_SECRET',
  'SLACK_APP_TOKEN',
];

const REDACT_PATHS = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((key) => `*.${key}`),
  ...SECRET_KEYS.map((key) => `*.*.${key}`),
  'headers.authorization',
  'config.headers.Authorization',
  'req.headers.authorization',
];

// Slack tokens (xoxb-, xoxp-, xapp-…), Databricks PATs (dapi…), bearer/basic credentials.
const SECRET_PATTERNS: RegExp[] = [
  /\bxox[abposr]-[A-Za-z0-9-]+/g,
  /\bxapp-[A-Za-z0-9-]+/g,
  /\bdapi[0-9a-f]{16,}(-\d+)?\b/gi,
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g,
];

/** Replaces anything that looks like a credential in free text. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, '[REDACTED]');
  return out;
}

export interface LoggerSettings {
  /** Logger name, shown as `name` in every line. */
  name: string;
  /** pino level (the processes pass LOG_LEVEL from their config). @defaultValue 'info' */
  level?: string;
  /** Where lines go. @defaultValue stdout */
  destination?: NodeJS.WritableStream;
}

export function createLogger(settings: LoggerSettings): Logger {
  const options: LoggerOptions = {
    name: settings.name,
    level: settings.level ?? DEFAULTS.logLevel,
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    formatters: { level: (label) => ({ level: label }) },
    hooks: {
      // Scrub token shapes out of messages, whatever key they arrive under.
      logMethod(args, method) {
        const scrubbed = args.map((arg) => (typeof arg === 'string' ? redactSecrets(arg) : arg));
        method.apply(this, scrubbed as Parameters<typeof method>);
      },
    },
    serializers: {
      err: (err: unknown) => {
        const serialized = pino.stdSerializers.err(err as Error);
        if (serialized?.message) serialized.message = redactSecrets(serialized.message);
        if (serialized?.stack) serialized.stack = redactSecrets(serialized.stack);
        return serialized;
      },
    },
  };
  return settings.destination ? pino(options, settings.destination as pino.DestinationStream) : pino(options);
}
