/**
 * Databricks misbehaving while streams fall behind: the progress-table source reads the local Databricks
 * (OAuth M2M) through 429s with Retry-After, 503s, 500s, answers slower than the client's timeout, reset
 * connections, and OAuth tokens that expire under it. A worker and a clock (in this process) poll every
 * second; progress rows appear as the simulated batches end. Afterwards: every batch observed exactly
 * once, and every incident the lagging streams opened has exactly one message, no claim stuck.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { engineTrackers } from '../../jobs/engine-trackers.js';
import { WebClientChat } from '../../src/slack/gateway/slack-chat.js';
import { createDatabricksClient } from '../../src/databricks/databricks-client.js';
import { startClock, startWorker, type ClockRuntime, type WorkerRuntime } from '../../src/runtime/pipeline-runtime.js';
import { StreamSimulator } from '../../src/simulator/index.js';
import { ProgressTableSource } from '../../src/sources/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';
import type { FaultRule } from '../../src/standins/databricks/faults.js';
import { startLocalSlack, type LocalSlack } from '../../src/standins/slack/index.js';
import { tally } from '../helpers/alert-ledger.js';
import { deletePrefix, TEST_REDIS_URL } from '../helpers/redis.js';
import { silentLogger, uniquePrefix, waitFor } from '../pipeline/helpers/harness.js';
import { queryIdOf, simSpec, type SimSourceSettings } from '../pipeline/helpers/sim-source.js';
import { settle } from './helpers/settle.js';
import { faultsSeed, recordFigures, seededRandom } from './helpers/figures.js';

const p = uniquePrefix('dbxfaults');
let worker: WorkerRuntime | undefined;
let clock: ClockRuntime | undefined;
let slack: LocalSlack | undefined;
let databricks: LocalDatabricks | undefined;
let feeder: NodeJS.Timeout | undefined;

afterAll(async () => {
  if (feeder) clearInterval(feeder);
  await clock?.close();
  await worker?.close();
  await slack?.close();
  await databricks?.close();
  await deletePrefix(TEST_REDIS_URL, p.prefix);
});

const CLIENT = { clientId: 'streamdoctor-sp', clientSecret: 'local-secret-0123456789' };
const SOURCE = 'dbx.progress';

describe('Databricks faults while streams lag', () => {
  it('429, 503, 500, timeouts, resets and expired tokens: every batch once, every incident posted once', async () => {
    const rng = seededRandom(faultsSeed() ^ 0xdb);
    databricks = await startLocalDatabricks({ oauthClients: [CLIENT], tokenLifetimeSec: 3600 });
    slack = await startLocalSlack();
    const sim: SimSourceSettings = { queries: 5, laggingQueries: 3, startMs: Date.now() - 8 * 60_000, batches: 54 };
    const batches = Array.from({ length: sim.queries }, (_, i) => {
      const s = new StreamSimulator(simSpec(i, sim), { startMs: sim.startMs, seed: 7 + i });
      return Array.from({ length: sim.batches }, () => s.next());
    });
    const inserted = new Array<number>(sim.queries).fill(0);
    const feed = () => {
      for (let i = 0; i < sim.queries; i++) {
        while (inserted[i]! < sim.batches && batches[i]![inserted[i]!]!.endMs <= Date.now()) databricks!.insertProgress(batches[i]![inserted[i]++]!.json);
      }
    };
    feed();
    feeder = setInterval(feed, 250);

    const client = createDatabricksClient({
      host: databricks.url,
      credentials: { kind: 'oauth-m2m', ...CLIENT },
      // Short, so a slow answer is a timeout; few attempts, so some polls fail outright and the
      // schedule's next poll (or the job's retry) picks up from the cursor.
      timeoutMs: 1200,
      retry: { maxAttempts: 3, budgetMs: 8000, baseDelayMs: 200, maxDelayMs: 1000 },
    });
    const source = new ProgressTableSource({
      client,
      warehouseId: '0c7d5e2f9a1b3c46',
      table: 'main.streamdoctor.streaming_progress',
      watched: { queryIds: Array.from({ length: sim.queries }, (_, i) => queryIdOf(i)), queryNames: [] },
    });
    worker = await startWorker({
      redisUrl: TEST_REDIS_URL,
      ...p,
      logger: silentLogger,
      sources: new Map([[SOURCE, { id: SOURCE, workspace: 'prod', source }]]),
      trackers: engineTrackers(),
      chat: new WebClientChat({ token: 'xoxb-local-streamdoctor', slackApiUrl: slack.apiUrl }),
      routing: { defaultChannel: 'C0DATAALRT' },
      store: { storm: { threshold: 1000 } },
    });
    clock = await startClock({ redisUrl: TEST_REDIS_URL, ...p, logger: silentLogger, schedule: { sourceIds: [SOURCE], pollEveryMs: 1000, sweepEveryMs: 60_000, digest: false } });

    // 25 s of faults in a seeded order, tokens expiring every few seconds.
    const menu: FaultRule[] = [
      { kind: 'rate_limit', times: 4, retryAfterSec: 1 },
      { kind: 'unavailable', times: 3, retryAfterSec: 1 },
      { kind: 'unavailable', times: 2 },
      { kind: 'server_error', times: 2 },
      { kind: 'slow', times: 2, delayMs: 2000 },
      { kind: 'reset', times: 2 },
    ];
    // Every kind twice, in a seeded order, one every other second.
    const order = [...menu, ...menu].map((rule) => ({ rule, key: rng() })).sort((a, b) => a.key - b.key).map((x) => x.rule);
    let expired = 0;
    for (let step = 0; step < 25; step++) {
      if (step % 2 === 0 && order.length) databricks.faults.inject(order.shift()!);
      if (step % 4 === 1) expired += databricks.expireTokens();
      await new Promise((r) => setTimeout(r, 1000));
    }
    const hits = databricks.faults.hitCounts();
    databricks.faults.clear();
    const note = `faults hit ${JSON.stringify(hits)}; OAuth tokens expired ${expired}, token requests ${databricks.requests().byRoute['POST /oidc/v1/token'] ?? 0}`;
    process.stdout.write(`databricks faults: ${note}\n`);
    for (const kind of ['rate_limit', 'unavailable', 'server_error', 'slow', 'reset'] as const) expect(hits[kind] ?? 0, kind).toBeGreaterThan(0);
    expect(expired).toBeGreaterThan(0);

    // Settle: every batch that ended is observed, exactly once.
    const rt = worker;
    await waitFor(async () => {
      feed();
      for (let i = 0; i < sim.queries; i++) {
        const stream = await rt.store.streams.get(queryIdOf(i));
        if (!stream || stream.observedCount < inserted[i]!) return false;
      }
      return true;
    }, 'every inserted batch observed', 60_000, 500);
    for (let i = 0; i < sim.queries; i++) {
      const stream = (await rt.store.streams.get(queryIdOf(i)))!;
      expect(stream.observedCount).toBe(stream.lastObservedBatchId! + 1);
    }
    const ids: string[] = [];
    for (let i = 0; i < sim.queries; i++) ids.push(...(await rt.store.incidents.listForQuery(queryIdOf(i))).map((r) => r.id));
    expect(ids.length, 'the lagging streams opened incidents').toBeGreaterThanOrEqual(sim.laggingQueries);
    await settle(rt, ids, 60_000);
    const failed = await rt.queues.notify.getJobs(['failed'], 0, 100);
    expect(failed.map((j) => `${j.id}: ${j.failedReason}`)).toEqual([]);

    const figures = await tally('Databricks 429/503/500, timeouts, resets, expired tokens', slack, rt.redis, p.prefix, ids);
    recordFigures({ ...figures, notes: [note, `${sim.queries} streams, ${inserted.reduce((a, b) => a + b, 0)} progress rows, each observed once`] });
    expect(figures.details).toEqual([]);
    expect(figures).toMatchObject({ duplicates: 0, lost: 0, stuckClaims: 0 });
  }, 180_000);
});
