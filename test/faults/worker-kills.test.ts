/**
 * 20 worker kills at seeded random points of notify (before the post, after the post before its ts is
 * recorded, in the middle of an update), with 2 worker processes and 2 clocks on one Redis and the local
 * Slack (its real per-channel rate limit on). Every killed worker is replaced by a new process. While
 * they die, incidents keep opening (3 channels), changing and resolving, and the simulated streams keep
 * producing progress (two of them lag, so detect opens incidents too). Afterwards: every incident has
 * exactly one message, no message key was posted twice, no poster claim is stuck, and every progress
 * batch was observed exactly once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { PipelineQueues } from '../../jobs/queues.js';
import type { Incident } from '../../src/diagnosis/types.js';
import { startLocalSlack, type LocalSlack } from '../../src/standins/slack/index.js';
import { incidentIdOf, RedisStore } from '../../src/store/index.js';
import { lagIncident } from '../store/fixtures.js';
import { tally } from '../helpers/alert-ledger.js';
import { deletePrefix, TEST_REDIS_URL, testRedis } from '../helpers/redis.js';
import type { Child } from '../pipeline/helpers/children.js';
import { commitAndDrain, expectEveryVisibleBatchObservedOnce, uniquePrefix, waitFor } from '../pipeline/helpers/harness.js';
import { queryIdOf } from '../pipeline/helpers/sim-source.js';
import { startFaultChild } from './helpers/children.js';
import type { FaultChildConfig, KillPoint } from './helpers/fault-worker.js';
import { faultsSeed, recordFigures, seededRandom } from './helpers/figures.js';

const KILLS = 20;
const POINTS: KillPoint[] = ['before_post', 'after_post', 'mid_update'];
const CHANNELS = ['C0DATAALRT', 'C0STREAMNG', 'C0GENERAL1'];

const p = uniquePrefix('kills');
const redis = testRedis();
const children = new Set<Child>();
let stopping = false;
let slack: LocalSlack | undefined;
let queues: PipelineQueues | undefined;

afterAll(async () => {
  stopping = true;
  for (const child of children) child.proc.kill('SIGKILL');
  await queues?.close();
  await slack?.close();
  await deletePrefix(TEST_REDIS_URL, p.prefix);
  redis.disconnect();
});

const QID = (i: number) => `c0ffee00-0000-4000-8000-${String(i).padStart(12, '0')}`;

describe('worker kills during notify', () => {
  it(`${KILLS} SIGKILLs at random points of notify: nothing lost, nothing doubled, no claim stuck`, async () => {
    const seed = faultsSeed();
    const rng = seededRandom(seed);
    const plan = Array.from({ length: KILLS }, () => `${POINTS[Math.floor(rng() * POINTS.length)]}|${Math.floor(rng() * 3)}`);
    process.stdout.write(`worker kills: seed ${seed}, plan ${plan.join(' ')}\n`);
    const killPlanKey = `${p.queuePrefix}:faults:plan`;
    const killLogKey = `${p.queuePrefix}:faults:killed`;
    await redis.rpush(killPlanKey, ...plan);

    // Hours of simulated batches run in about two minutes: chat.update's Tier 3 budget (50 a minute)
    // would hold updates back for much of the run; this test is about kills, not rate limits.
    slack = await startLocalSlack({ rateLimit: { updatesPerMinute: 10_000 } });
    const sim = { queries: 4, laggingQueries: 2, startMs: Date.now() - 8 * 60_000, batches: 56 };
    const common: Omit<FaultChildConfig, 'role'> = { redisUrl: TEST_REDIS_URL, ...p, slackApiUrl: slack.apiUrl, sim, killPlanKey, killLogKey };
    const exits: string[] = [];

    /** Keeps one worker process alive in this slot: a killed one is replaced until the test stops. */
    const keepWorker = async (slot: number): Promise<void> => {
      for (let attempt = 0; !stopping && attempt < 200; attempt++) {
        let child: Child;
        try {
          child = await startFaultChild({ role: 'worker', ...common });
        } catch (err) {
          // Killed by its own plan before it said ready: start another.
          exits.push(`slot ${slot}: ${String(err).slice(0, 80)}`);
          continue;
        }
        children.add(child);
        const { signal, code } = await child.exited;
        children.delete(child);
        exits.push(`slot ${slot}: ${signal ?? code}`);
        if (!stopping && signal !== 'SIGKILL') throw new Error(`worker exited unexpectedly (${code ?? signal}): ${child.stderr()}`);
      }
    };
    const slots = [keepWorker(1), keepWorker(2)];
    for (let i = 0; i < 2; i++) children.add(await startFaultChild({ role: 'clock', ...common, pollEveryMs: 1000 }));

    const store = new RedisStore({ redis, prefix: p.prefix });
    queues = new PipelineQueues({ connection: redis, prefix: p.queuePrefix });
    const rt = { store, queues };
    const incident: Incident = lagIncident(new Date(Date.now() - 60_000).toISOString());
    const opened: string[] = [];
    const open = new Set<number>();
    let next = 0;
    let round = 0;
    const killed = async () => redis.llen(killLogKey);

    // Drive notify until every planned kill happened (bounded). Unloaded, 20 kills take about 40 s; with
    // two other CPU-bound processes on 2 cores 96-155 rounds and up to 143 s (workers restart slowly).
    const deadline = Date.now() + 210_000;
    while ((await killed()) < KILLS && Date.now() < deadline) {
      round += 1;
      const i = next++;
      const queryId = QID(i);
      await store.streams.upsert({ queryId, name: `orders_${i}` });
      await store.routing.setRoute('query', queryId, CHANNELS[i % CHANNELS.length]!);
      await commitAndDrain(rt, queryId, [{ type: 'opened', queryId, queryName: `orders_${i}`, incident }]);
      opened.push(incidentIdOf(queryId, incident));
      open.add(i);
      for (let u = 0; u < 2 && open.size > 1; u++) {
        const pick = [...open][Math.floor(rng() * open.size)]!;
        const q = QID(pick);
        await commitAndDrain(rt, q, [{ type: 'updated', queryId: q, queryName: null, incident: { ...incident, summary: `${incident.summary} (round ${round})`, metrics: { ...incident.metrics, timeBehindSec: 360 + round } } }]);
      }
      if (round % 5 === 0) {
        // Resolve one that has its message (a resolve reply is a post in its thread: a kill point too).
        for (const candidate of open) {
          const record = await store.incidents.get(incidentIdOf(QID(candidate), incident));
          if (!record?.slack) continue;
          const q = QID(candidate);
          await commitAndDrain(rt, q, [{ type: 'resolved', queryId: q, queryName: null, incident: { ...incident, resolvedAt: new Date().toISOString(), resolvedAtBatchId: 60 } }], { health: 'ok' });
          open.delete(candidate);
          break;
        }
      }
      await new Promise((r) => setTimeout(r, 400));
    }
    const kills = await redis.lrange(killLogKey, 0, -1);
    const killNote = `seed ${seed}: ${kills.length} kills in ${round} rounds (${POINTS.map((pt) => `${pt} ${kills.filter((k) => k.startsWith(pt)).length}`).join(', ')}), ${exits.length} worker exits`;
    process.stdout.write(`worker kills: ${killNote}\n`);
    expect(kills.length).toBe(KILLS);

    // Settle: every opened incident posted, notify idle (the dead workers' message locks expire by themselves).
    const simIncidents = async () => {
      const ids: string[] = [];
      for (let i = 0; i < sim.queries; i++) ids.push(...(await store.incidents.listForQuery(queryIdOf(i))).map((r) => r.id));
      return ids;
    };
    await waitFor(async () => {
      const ids = [...opened, ...(await simIncidents())];
      const records = await store.incidents.getMany(ids);
      const d = await queues!.depths();
      return records.every((r) => r.slack?.ts) && d.notify!.waiting + d.notify!.active + d.notify!.delayed === 0;
    }, 'every incident posted and notify idle', 90_000, 500);
    // Nothing given up either: no notify job ran out of attempts or stalled past BullMQ's limit.
    const failed = await queues.notify.getJobs(['failed'], 0, 100);
    expect(failed.map((j) => `${j.id}: ${j.failedReason}`)).toEqual([]);
    const lagIds = await simIncidents();
    expect(lagIds.length, 'the lagging simulated streams opened incidents through detect').toBeGreaterThanOrEqual(sim.laggingQueries);

    const figures = await tally(`${KILLS} worker kills (2 workers, 2 clocks)`, slack, redis, p.prefix, [...opened, ...lagIds]);
    recordFigures({ ...figures, notes: [killNote, `${lagIds.length} of the incidents opened by detect on the lagging simulated streams`] });
    expect(figures.details).toEqual([]);
    expect(figures).toMatchObject({ duplicates: 0, lost: 0, stuckClaims: 0 });

    // Every progress batch that has appeared was observed exactly once, across all the kills.
    await expectEveryVisibleBatchObservedOnce(store, sim, 2500);
    stopping = true;
    for (const child of children) child.proc.kill('SIGTERM');
    await Promise.race([Promise.allSettled(slots), new Promise((r) => setTimeout(r, 15_000))]);
  }, 360_000);
});
