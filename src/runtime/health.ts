/**
 * Health: Redis answers PING and every queue answers a count, each within a deadline.
 */
import type { Redis } from 'ioredis';
import type { PipelineQueues } from '../../jobs/queues.js';

export interface HealthReport {
  status: 'ok' | 'error';
  redis: 'ok' | 'error';
  queues: Record<string, { waiting: number; active: number; delayed: number; failed: number }> | null;
  error?: string;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export async function checkHealth(redis: Redis, queues: PipelineQueues, timeoutMs = 1500): Promise<HealthReport> {
  try {
    await withTimeout(redis.ping(), timeoutMs, 'redis');
  } catch (err) {
    return { status: 'error', redis: 'error', queues: null, error: (err as Error).message };
  }
  try {
    const depths = await withTimeout(queues.depths(), timeoutMs, 'queues');
    return { status: 'ok', redis: 'ok', queues: depths };
  } catch (err) {
    return { status: 'error', redis: 'ok', queues: null, error: (err as Error).message };
  }
}
