/**
 * Two worker processes and two clocks on one Redis, progress appearing over time. One worker
 * SIGKILLs itself right after chat.postMessage returned and before it recorded the ts (the worst
 * moment). Afterwards: every progress event was observed exactly once, every incident has exactly
 * one Slack message (the survivor adopted the orphaned post instead of posting again), the two
 * clocks produced one poll per tick, and SIGTERM drains the survivors within 10 s.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PipelineQueues } from '../../jobs/queues.js';
import { startLocalSlack, type LocalSlack } from '../../src/standins/slack/index.js';
import { RedisStore } from '../../src/store/index.js';
import { startChild, stopChild, type Child } from './helpers/children.js';
import { deletePrefix, expectEveryVisibleBatchObservedOnce, REDIS_URL, uniquePrefix, waitFor } from './helpers/harness.js';
import { queryIdOf } from './helpers/sim-source.js';
import { testRedis } from '../helpers/redis.js';

const children: Child[] = [];
let slack: LocalSlack | undefined;
const dir = mkdtempSync(join(tmpdir(), 'sd-multi-'));
const prefixes = uniquePrefix('multi');
const redis = testRedis();

afterAll(async () => {
  for (const child of children) child.proc.kill('SIGKILL');
  await slack?.close();
  await deletePrefix(REDIS_URL, prefixes.prefix);
  redis.disconnect();
  rmSync(dir, { recursive: true, force: true });
});

function keyOf(m: { metadata?: unknown }): string | undefined {
  return (m.metadata as { event_payload?: { key?: string } } | undefined)?.event_payload?.key;
}

describe('two workers, two clocks, one crash', () => {
  it('observes every batch once and posts every incident once across a SIGKILL between post and record', async () => {
    slack = await startLocalSlack();
    // Lag opens around batch 20 (~3.5 min); the last batches keep appearing during the test.
    const sim = { queries: 5, laggingQueries: 2, startMs: Date.now() - 8 * 60_000, batches: 52 };
    const crashMarker = join(dir, 'crashed');
    const postLog = join(dir, 'posts.log');
    // Storm grouping off: the two lag incidents open close together and would share one message;
    // here each gets its own, so the crash lands on an incident's first post (grouping has its own
    // tests in test/jobs/notify.test.ts).
    const storm = { threshold: 1000 };
    const common = { redisUrl: REDIS_URL, ...prefixes, slackApiUrl: slack.apiUrl, sim, crashMarker, postLog, storm };
    const [w1, w2] = await Promise.all([startChild({ role: 'worker', ...common }), startChild({ role: 'worker', ...common })]);
    children.push(w1!, w2!);
    const clockStarted = Date.now();
    const [c1, c2] = await Promise.all([
      startChild({ role: 'clock', ...common, pollEveryMs: 500 }),
      startChild({ role: 'clock', ...common, pollEveryMs: 500 }),
    ]);
    children.push(c1!, c2!);

    const store = new RedisStore({ redis, prefix: prefixes.prefix });
    const lagIds = [queryIdOf(0), queryIdOf(1)];
    const posted = await waitFor(async () => {
      const open = await store.incidents.listOpen();
      const lag = open.filter((r) => lagIds.includes(r.queryId) && r.kind === 'lag' && r.slack);
      return lag.length === 2 ? lag : null;
    }, "both lag incidents posted", 40_000);
    if (!posted) throw new Error("unreachable");
    expect(existsSync(crashMarker)).toBe(true);
    const crashedPid = Number(readFileSync(crashMarker, 'utf8'));
    const crashed = children.find((c) => c.proc.pid === crashedPid)!;
    expect((await crashed.exited).signal).toBe('SIGKILL');

    // Exactly one Slack message per incident, and the record points at it.
    for (const record of posted) {
      const mine = slack.messages('C0DATAALRT').filter((m) => keyOf(m) === record.id);
      expect(mine, record.id).toHaveLength(1);
      expect(mine[0]!.ts).toBe(record.slack!.ts);
    }
    const lines = readFileSync(postLog, 'utf8').trim().split('\n');
    const crashedPost = lines.find((l) => l.endsWith(` ${crashedPid}`))!;
    const [, crashedKey, crashedTs] = crashedPost.split(' ');
    // The orphaned post was adopted: no process posted that key again, and its ts is the recorded one.
    expect(lines.filter((l) => l.split(' ')[1] === crashedKey)).toHaveLength(1);
    const adopted = posted.find((r) => r.id === crashedKey) ?? (await store.incidents.get(crashedKey!));
    expect(adopted?.slack?.ts).toBe(crashedTs);

    // Every batch that has appeared is observed exactly once (batch ids run 0..N without gaps).
    await expectEveryVisibleBatchObservedOnce(store, sim, 1500);

    // Two clocks, one scheduler: poll jobs are one per 500 ms tick, not two.
    const elapsed = Date.now() - clockStarted;
    const queues = new PipelineQueues({ connection: redis, prefix: prefixes.queuePrefix });
    const schedulers = await queues.poll.getJobSchedulers(0, -1);
    expect(schedulers.map((s) => s.key).sort()).toEqual(['poll-sim', 'sweep']);
    const completed = await queues.poll.getJobs(['completed', 'active', 'waiting', 'delayed'], 0, 1000);
    const polls = completed.filter((j) => j.name === 'poll' && j.repeatJobKey);
    expect(polls.length).toBeLessThanOrEqual(Math.ceil(elapsed / 500) + 2);
    // The tick a scheduler job belongs to is in its id (`repeat:<scheduler>:<millis>`). timestamp +
    // delay is not: BullMQ clamps the delay of a late iteration to 0 and stamps it with its creation
    // time, so under load two different ticks can share that sum.
    const ticks = polls.map((j) => String(j.id).split(':').pop());
    expect(ticks.every((tick) => /^\d+$/.test(tick ?? ''))).toBe(true);
    expect(new Set(ticks).size).toBe(ticks.length);
    await queues.close();

    // SIGTERM drains and exits cleanly, well within 10 s.
    for (const child of children.filter((c) => c !== crashed)) {
      const took = await stopChild(child);
      expect(took).toBeLessThan(10_000);
      expect((await child.exited).code).toBe(0);
    }
  }, 90_000);
});
