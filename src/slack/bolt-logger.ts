/**
 * Bolt wants an `@slack/logger` Logger; we log through pino (src/observability/logger.ts) so Bolt's
 * own lines are JSON too and secrets are redacted the same way.
 */
import { LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import type { Logger } from '../observability/logger.js';

const TO_PINO: Record<string, string> = {
  [LogLevel.DEBUG]: 'debug',
  [LogLevel.INFO]: 'info',
  [LogLevel.WARN]: 'warn',
  [LogLevel.ERROR]: 'error',
};

export function boltLogger(logger: Logger): BoltLogger {
  let level: LogLevel = (Object.entries(TO_PINO).find(([, name]) => name === logger.level)?.[0] as LogLevel) ?? LogLevel.INFO;
  let child = logger.child({ component: 'bolt' });
  const text = (parts: unknown[]) => parts.map((part) => (typeof part === 'string' ? part : part instanceof Error ? part.message : JSON.stringify(part))).join(' ');
  return {
    debug: (...parts: unknown[]) => child.debug(text(parts)),
    info: (...parts: unknown[]) => child.info(text(parts)),
    warn: (...parts: unknown[]) => child.warn(text(parts)),
    error: (...parts: unknown[]) => child.error(text(parts)),
    setLevel(next: LogLevel) {
      level = next;
      child.level = TO_PINO[next] ?? 'info';
    },
    getLevel: () => level,
    setName(name: string) {
      child = logger.child({ component: name });
    },
  };
}
