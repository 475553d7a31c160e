/** Shared pieces of the pipeline tests: unique prefixes, a silent logger, polling waits. */
import { randomUUID } from 'node:crypto';
import { drainOutbox } from '../../../jobs/notify-intents.js';
import type { TrackerFactory } from '../../../jobs/tracker-factory.js';
import type { Health, IncidentChange } from '../../../src/diagnosis/types.js';
import type { WorkerRuntime } from '../../../src/runtime/pipeline-runtime.js';
import { createLogger } from '../../../src/observability/logger.js';

import { TEST_REDIS_URL } from '../../helpers/redis.js';

/** The test Redis (STREAMDOCTOR_TEST_REDIS_URL; test/helpers/redis.ts). */
export const REDIS_URL = TEST_REDIS_URL;
export { deletePrefix } from '../../helpers/redis.js';

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
