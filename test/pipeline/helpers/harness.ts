/** Shared pieces of the pipeline tests: unique prefixes, a silent logger, polling waits. */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { drainOutbox } from '../../../jobs/detect-processor.js';
import type { TrackerFactory } from '../../../jobs/tracker-factory.js';
import type { Health, IncidentChange } from '../../../src/diagnosis/types.js';
import type { WorkerRuntime } from '../../../src/runtime/pipeline-runtime.js';
import { createLogger } from '../../../src/observability/logger.js';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export function uniquePrefix(tag: string): { prefix: string; queuePrefix: string } {
  const prefix = `sdtest-${tag}-${randomUUID().slice(0, 8)}`;
  return { prefix, queuePrefix: `{${prefix}}` };
}

export const silentLogger = createLogger({ name: 'test', level: 'silent' });

/** Polls `check` until it returns a truthy value or the deadline passes (bounded in time and count). */
export async function waitFor<T>(check: () => Promise<T> | T, what: string, timeoutMs = 20_000, everyMs = 100): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (let i = 0; i < 10_000 && Date.now() < deadline; i++) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

/** Deletes every key under a prefix with SCAN + UNLINK (never FLUSHDB). */
export async function deletePrefix(url: string, ...prefixes: string[]): Promise<void> {
  const redis = new Redis(url);
  try {
    for (const prefix of prefixes) {
      for (const pattern of [`${prefix}:*`, `{${prefix}}:*`]) {
        let cursor = '0';
        for (let i = 0; i < 100_000; i++) {
          const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
          if (keys.length) await redis.unlink(...keys);
          cursor = next;
          if (cursor === '0') break;
        }
      }
    }
  } finally {
    redis.disconnect();
  }
}

/** For workers in tests that feed incident changes straight in: detect never runs, so no tracker is made. */
export const unusedTrackers: TrackerFactory = {
  create: () => {
    throw new Error('not used: this test does not run detect');
  },
  restore: () => {
    throw new Error('not used: this test does not run detect');
  },
};

/**
 * Commits engine changes for a query and drains its outbox into notify jobs, as a detect run does
 * (tests that start from the store's side of the pipeline).
 */
export async function commitAndDrain(
  rt: Pick<WorkerRuntime, 'store' | 'queues'>,
  queryId: string,
  changes: IncidentChange[],
  options: { health?: Health; name?: string | null } = {},
): Promise<void> {
  const current = await rt.store.queries.loadForDetect(queryId);
  await rt.store.queries.commitDetect(queryId, {
    expectedVersion: current.stateVersion,
    state: {},
    lastSeq: current.lastSeq,
    snapshot: null,
    health: options.health ?? 'warning',
    name: options.name ?? null,
    lastRunId: null,
    lastBatchId: null,
    lastObservedAt: null,
    timeBehindSec: null,
    changes,
    nowMs: Date.now(),
  });
  await drainOutbox(rt.store, rt.queues, queryId, Date.now());
}
