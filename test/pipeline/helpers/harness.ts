/** Shared pieces of the pipeline tests: unique prefixes, a silent logger, polling waits. */
import { randomUUID } from 'node:crypto';
import { afterEach, expect } from 'vitest';
import { drainOutbox } from '../../../jobs/notify-intents.js';
import type { TrackerFactory } from '../../../jobs/tracker-factory.js';
import type { Health, IncidentChange } from '../../../src/diagnosis/types.js';
import { startWorker, type WorkerRuntime, type WorkerRuntimeOptions } from '../../../src/runtime/pipeline-runtime.js';
import { WebClientChat } from '../../../src/slack/gateway/slack-chat.js';
import { startLocalSlack, type LocalSlack, type LocalSlackOptions } from '../../../src/standins/slack/index.js';
import { createLogger } from '../../../src/observability/logger.js';

import { StateConflictError, type RedisStore } from '../../../src/store/index.js';
import { TEST_REDIS_URL } from '../../helpers/redis.js';
import { queryIdOf, simulateAll, type SimSourceSettings } from './sim-source.js';

/** The test Redis (STREAMDOCTOR_TEST_REDIS_URL; test/helpers/redis.ts). */
export const REDIS_URL = TEST_REDIS_URL;
import { deletePrefix } from '../../helpers/redis.js';
export { deletePrefix };

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
 * (tests that start from the store's side of the pipeline). A reply lost to a Redis restart is resent
 * by the client once it reconnects, and a commit that had already applied then conflicts with itself.
 * Detect reloads and re-runs on a conflict; this harness, whose changes are fixed, reloads and goes on
 * when the state holds its own token (its commit applied), and rethrows any other conflict.
 */
export async function commitAndDrain(
  rt: Pick<WorkerRuntime, 'store' | 'queues'>,
  queryId: string,
  changes: IncidentChange[],
  options: { health?: Health; name?: string | null } = {},
): Promise<void> {
  const current = await rt.store.queries.loadForDetect(queryId);
  const token = randomUUID();
  try {
    await rt.store.queries.commitDetect(queryId, {
      expectedVersion: current.stateVersion,
      state: { harnessCommit: token },
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
  } catch (err) {
    const after = err instanceof StateConflictError ? await rt.store.queries.loadForDetect(queryId) : null;
    if ((after?.state as { harnessCommit?: string } | null)?.harnessCommit !== token) throw err;
  }
  await drainOutbox(rt.store, rt.queues, queryId, Date.now());
}

/**
 * A worker with no sources and the engine unused, posting to a fresh local Slack (no rate limit
 * unless `slackOptions` set one): the notify path on its own. The caller closes both and deletes
 * `prefix` after the test.
 */
export async function startNotifyWorker(
  tag: string,
  options: Partial<WorkerRuntimeOptions> = {},
  slackOptions: LocalSlackOptions = { rateLimit: false },
): Promise<{ runtime: WorkerRuntime; slack: LocalSlack; prefix: string }> {
  const p = uniquePrefix(tag);
  const slack = await startLocalSlack(slackOptions);
  try {
    const runtime = await startWorker({
      redisUrl: REDIS_URL,
      ...p,
      logger: silentLogger,
      sources: new Map(),
      trackers: unusedTrackers,
      chat: new WebClientChat({ token: 'xoxb-local-streamdoctor', slackApiUrl: slack.apiUrl }),
      routing: { defaultChannel: 'C0DATAALRT' },
      ...options,
    });
    return { runtime, slack, prefix: p.prefix };
  } catch (error) {
    await slack.close();
    throw error;
  }
}

/**
 * One notify worker per test, closed (with its local Slack and Redis keys) after the test:
 * `const worker = notifyWorkerPerTest();` at the top of the file, `worker.start(tag, options)` in a test.
 */
export function notifyWorkerPerTest(): {
  start: (tag: string, options?: Partial<WorkerRuntimeOptions>, slackOptions?: LocalSlackOptions) => Promise<{ runtime: WorkerRuntime; slack: LocalSlack }>;
} {
  let started: Awaited<ReturnType<typeof startNotifyWorker>> | undefined;
  afterEach(async () => {
    const done = started;
    started = undefined;
    if (!done) return;
    await done.runtime.close();
    await done.slack.close();
    await deletePrefix(REDIS_URL, done.prefix);
  });
  return { start: async (tag, options, slackOptions) => (started = await startNotifyWorker(tag, options, slackOptions)) };
}

/**
 * Waits until every batch of the simulated queries that ended `settleMs` ago has been observed, then
 * checks each was observed exactly once (batch ids run 0..N without gaps).
 */
export async function expectEveryVisibleBatchObservedOnce(store: RedisStore, sim: SimSourceSettings, settleMs: number): Promise<void> {
  const all = simulateAll(sim);
  await waitFor(async () => {
    for (let i = 0; i < sim.queries; i++) {
      const visible = all[i]!.filter((b) => b.endMs <= Date.now() - settleMs).length;
      const stream = await store.streams.get(queryIdOf(i));
      if (!stream || stream.observedCount < visible) return false;
    }
    return true;
  }, 'every visible batch observed', 30_000);
  for (let i = 0; i < sim.queries; i++) {
    const stream = (await store.streams.get(queryIdOf(i)))!;
    expect(stream.observedCount).toBe(stream.lastObservedBatchId! + 1);
  }
}
