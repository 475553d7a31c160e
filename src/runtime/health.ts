/**
 * Health. Liveness (`/livez`): the process answers; it never looks at Redis, so a Redis blip does not
 * restart every pod. Readiness (`/readyz`, and `/healthz` for older probes): Redis answers PING and
 * every queue answers a count, each within a deadline. Errors are summarized as stable codes, never
 * raw driver messages (they can carry hosts, ports and internals).
 */
import type { Redis } from 'ioredis';
import type { PipelineQueues } from '../../jobs/queues.js';

/** Why a process is not ready, as a stable code. */
export type ReadinessProblem = 'redis_timeout' | 'redis_unreachable' | 'redis_loading' | 'redis_readonly' | 'redis_auth' | 'redis_error' | 'queues_timeout' | 'queues_error';

export interface HealthReport {
  status: 'ok' | 'error';
  redis: 'ok' | 'error';
  queues: Record<string, { waiting: number; active: number; delayed: number; failed: number }> | null;
  /** A stable code (ReadinessProblem), never a raw error message. */
  error?: ReadinessProblem;
  /** One sentence for the person reading the probe. */
  detail?: string;
}

class DeadlineError extends Error {}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError()), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Maps a Redis client error to a stable code and a short sentence. */
export function summarizeRedisError(err: unknown): { error: ReadinessProblem; detail: string } {
  if (err instanceof DeadlineError) return { error: 'redis_timeout', detail: 'Redis did not answer in time' };
  const message = String((err as { message?: unknown })?.message ?? '');
  const code = String((err as { code?: unknown })?.code ?? '');
  if (/^LOADING/.test(message)) return { error: 'redis_loading', detail: 'Redis is loading its data set' };
  if (/^READONLY/.test(message)) return { error: 'redis_readonly', detail: 'Redis is a read-only replica' };
  if (/^(NOAUTH|WRONGPASS)/.test(message)) return { error: 'redis_auth', detail: 'Redis refused the credentials in REDIS_URL' };
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE'].includes(code) || /Connection is closed|Stream isn't writeable|max retries|enableOfflineQueue/i.test(message)) {
    return { error: 'redis_unreachable', detail: 'Redis cannot be reached' };
  }
  return { error: 'redis_error', detail: 'Redis answered with an error' };
}

export async function checkHealth(redis: Redis, queues: PipelineQueues, timeoutMs = 1500): Promise<HealthReport> {
  try {
    await withTimeout(redis.ping(), timeoutMs);
  } catch (err) {
    return { status: 'error', redis: 'error', queues: null, ...summarizeRedisError(err) };
  }
  try {
    const depths = await withTimeout(queues.depths(), timeoutMs);
    return { status: 'ok', redis: 'ok', queues: depths };
  } catch (err) {
    const timedOut = err instanceof DeadlineError;
    return { status: 'error', redis: 'ok', queues: null, error: timedOut ? 'queues_timeout' : 'queues_error', detail: timedOut ? 'the queues did not answer in time' : 'the queues could not be read' };
  }
}
