/**
 * `npm run bench:pipeline`: the local Databricks serves 2,000 streaming queries at a 10-second
 * cadence (40 of them fall behind at staggered moments), two worker processes run the pipeline,
 * one clock polls every 10 s, and the local Slack receives the posts. Prints sustained progress
 * events per second, p50/p99 latency from a batch appearing in Databricks to its Slack message,
 * queue depths (does it keep up?) and Redis memory per query.
 *
 * Options (env): BENCH_QUERIES (2000), BENCH_LAGGING (40), BENCH_SECONDS (60 measured, after warm-up),
 * REDIS_URL (redis://127.0.0.1:6379).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { PipelineQueues } from '../jobs/queues.js';
import { parseProgress } from '../src/progress/parse-progress.js';
import type { Progress } from '../src/progress/types.js';
import { createLogger } from '../src/observability/logger.js';
import { startClock } from '../src/runtime/pipeline-runtime.js';
import { StreamSimulator, constantRate, steppedRate, type StreamSpec } from '../src/simulator/index.js';
import { startLocalDatabricks } from '../src/standins/databricks/index.js';
import { startLocalSlack } from '../src/standins/slack/index.js';
import { RedisStore } from '../src/store/index.js';

const QUERIES = Number(process.env.BENCH_QUERIES ?? 2000);
const LAGGING = Math.min(QUERIES, Number(process.env.BENCH_LAGGING ?? 40));
const MEASURE_S = Number(process.env.BENCH_SECONDS ?? 60);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const POLL_MS = 10_000;
const CHANNELS = 20;
const ROOT = resolve(import.meta.dirname, '..');

const logger = createLogger({ name: 'bench', level: 'warn' });
const log = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const queryId = (i: number) => `b0000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
const channelId = (k: number) => `C0BENCH${String(k).padStart(3, '0')}`;

async function main(): Promise<void> {
  const benchStart = Date.now();
  const prefix = `sdbench-${process.pid}`;
  const dir = mkdtempSync(join(tmpdir(), 'sd-bench-'));
  const redis = new Redis(REDIS_URL);
  const store = new RedisStore({ redis, prefix });
  const usedBefore = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? 0);

  // The stand-in caps rows per table (20,000 by default); 2,000 streams write that in 100 s, and the
  // two minutes of history alone exceed it. Keep ten minutes, so no row is dropped before a poll reads it.
  const databricks = await startLocalDatabricks({ startMs: benchStart, speed: 1, tickMs: 100, maxRowsPerTable: QUERIES * 60 });
  const slack = await startLocalSlack({
    channels: Array.from({ length: CHANNELS }, (_, k) => ({ id: channelId(k), name: `bench-${k}` })),
  });

  // When each batch became visible in Databricks, by query and batch id (the latency origin).
  const appeared = new Map<string, Map<number, number>>();
  const historyMs = 2 * 60_000; // each stream has two minutes of history when the bench starts
  const routes: Record<string, string> = {};
  for (let i = 0; i < QUERIES; i++) {
    const id = queryId(i);
    const lagging = i < LAGGING;
    routes[id] = channelId(i % CHANNELS);
    const stepAt = benchStart + 5_000 + Math.floor((i * 30_000) / Math.max(1, LAGGING));
    const spec: StreamSpec = {
      id,
      name: `${lagging ? 'orders_lagging' : 'orders'}_${i}`,
      arrival: lagging ? steppedRate(12_000, [{ atMs: stepAt, rowsPerSec: 45_000 }]) : constantRate(6_000 + (i % 50) * 100),
      processing: { rowsPerSecPerCore: 2_500, cores: 8 },
      triggerMs: 10_000,
      source: { kind: 'kafka', topic: `orders${i}`, partitions: 8, maxOffsetsPerTrigger: 200_000 },
    };
    const sim = new StreamSimulator(spec, { startMs: benchStart - historyMs - (i % 10) * 1000, seed: 11 + i });
    const times = new Map<number, number>();
    appeared.set(id, times);
    databricks.addStream(id, {
      generator: {
        next() {
          const batch = sim.next();
          const batchId = Number((batch.progress as { batchId?: unknown }).batchId);
          // History rows all appear at the first tick; later ones when their batch ends.
          times.set(batchId, Math.max(batch.endMs, benchStart));
          return batch;
        },
      },
    });
  }
  log(`bench:pipeline  ${QUERIES} queries (${LAGGING} fall behind), 10 s trigger, poll every ${POLL_MS / 1000} s, 2 workers, ${CHANNELS} channels`);

  const configPath = join(dir, 'worker.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      redisUrl: REDIS_URL,
      prefix,
      databricksUrl: databricks.url,
      token: 'dapi-local-0123456789abcdef',
      slackApiUrl: slack.apiUrl,
      queryIds: [...appeared.keys()],
      routes,
    }),
  );
  const workers: ChildProcess[] = [];
  for (let w = 0; w < 2; w++) {
    const proc = spawn(process.execPath, ['bin/run-ts.mjs', 'bench/pipeline-worker.ts', configPath], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((res, rej) => {
      const timer = setTimeout(() => rej(new Error('worker did not start in 30 s')), 30_000);
      proc.stdout!.on('data', (d) => {
        if (String(d).includes('ready')) {
          clearTimeout(timer);
          res();
        }
      });
      proc.once('exit', (code) => rej(new Error(`worker exited early (${code})`)));
    });
    workers.push(proc);
  }
  const clock = await startClock({ redisUrl: REDIS_URL, prefix, logger, schedule: { sourceIds: ['bench-table'], pollEveryMs: POLL_MS, digest: false } });
  const queues = new PipelineQueues({ connection: redis, prefix: `{${prefix}}` });

  const ids = [...appeared.keys()];
  const observedTotal = async (): Promise<number> => {
    const pipeline = redis.pipeline();
    for (const id of ids) pipeline.hget(store.keys.streamMeta(id), 'observed');
    const res = (await pipeline.exec()) ?? [];
    return res.reduce((sum, [, v]) => sum + (Number(v) || 0), 0);
  };
  const visibleTotal = (atMs: number): number => {
    let n = 0;
    for (const times of appeared.values()) for (const t of times.values()) if (t <= atMs) n++;
    return n;
  };

  try {
    // Warm-up: the two minutes of history, then the first steady cycles.
    const warmDeadline = Date.now() + 60_000;
    while (Date.now() < warmDeadline) {
      await sleep(2000);
      const seen = await observedTotal();
      if (seen >= QUERIES * 12 && Date.now() - benchStart > 20_000) break;
    }
    log(`warm-up done after ${((Date.now() - benchStart) / 1000).toFixed(1)} s (history of ${QUERIES * 12}+ batches observed)`);

    const t0 = Date.now();
    const o0 = await observedTotal();
    const samples: { t: number; observed: number; detectWaiting: number; notifyWaiting: number }[] = [];
    while (Date.now() - t0 < MEASURE_S * 1000) {
      await sleep(5000);
      const depths = await queues.depths();
      samples.push({ t: Date.now(), observed: await observedTotal(), detectWaiting: depths.detect!.waiting + depths.detect!.active, notifyWaiting: depths.notify!.waiting + depths.notify!.delayed });
    }
    const t1 = Date.now();
    const o1 = await observedTotal();
    // Let the last cycle land, then compare what appeared with what was observed.
    await sleep(POLL_MS + 3000);
    const checkAt = Date.now() - POLL_MS - 3000;
    const visible = visibleTotal(checkAt);
    const observedEnd = await observedTotal();

    // Latency: each incident vs the batch that opened it, to the moment Slack showed it: its own
    // message, or (storm members that joined a group) the group update that first listed it.
    const committedAt = new Map<string, number>();
    for (const job of await queues.notify.getJobs(['completed'], 0, 999)) {
      const data = job.data as { kind?: string; incidentId?: string; change?: string; committedAt?: number };
      if (data.kind === 'incident' && data.change === 'opened' && data.incidentId && data.committedAt) committedAt.set(data.incidentId, data.committedAt);
    }
    const latencies: number[] = [];
    const toCommit: number[] = [];
    const commitToSlack: number[] = [];
    const commitToOwn: number[] = [];
    // Incidents opened by batches that appeared after the warm-up (steady state: no history catch-up).
    const steady: number[] = [];
    let incidents = 0;
    for (let k = 0; k < CHANNELS; k++) {
      for (const message of slack.messages(channelId(k))) {
        const key = (message.metadata as { event_payload?: { key?: string } } | undefined)?.event_payload?.key ?? '';
        const postedMs = Number(message.ts) * 1000;
        const group = key.startsWith('group.') ? await store.storms.get(channelId(k), key.slice('group.'.length)) : null;
        const shown = group ? await store.storms.shownAt(channelId(k), group.id) : {};
        const memberIds = group ? group.incidentIds : [key];
        for (const record of await store.incidents.getMany(memberIds)) {
          const opened = appeared.get(record.queryId)?.get(record.incident.openedAtBatchId ?? -1);
          if (opened === undefined || opened <= benchStart) continue; // opened on history rows
          const shownMs = group && record.id !== group.anchorId ? (shown[record.id] ?? postedMs) : postedMs;
          incidents += 1;
          latencies.push(shownMs - opened);
          if (opened >= t0) steady.push(shownMs - opened);
          const committed = committedAt.get(record.id);
          if (committed !== undefined) {
            toCommit.push(committed - opened);
            commitToSlack.push(shownMs - committed);
            if (!group || record.id === group.anchorId) commitToOwn.push(shownMs - committed);
          }
        }
      }
    }
    latencies.sort((a, b) => a - b);
    toCommit.sort((a, b) => a - b);
    steady.sort((a, b) => a - b);
    commitToSlack.sort((a, b) => a - b);
    commitToOwn.sort((a, b) => a - b);

    // Where the time goes: job waits and run times from BullMQ's own stamps (last kept jobs).
    const stamps = async (queue: PipelineQueues['poll'] | PipelineQueues['detect'], name: string, withWait: boolean) => {
      const jobs = (await queue.getJobs(['completed'], 0, 199)).filter((j) => j.name === name && j.processedOn && j.finishedOn);
      const wait = jobs.map((j) => j.processedOn! - j.timestamp).sort((a, b) => a - b);
      const run = jobs.map((j) => j.finishedOn! - j.processedOn!).sort((a, b) => a - b);
      const waitText = withWait ? `wait p50 ${percentile(wait, 50)} ms p99 ${percentile(wait, 99)} ms · ` : '';
      return `${waitText}run p50 ${percentile(run, 50)} ms p99 ${percentile(run, 99)} ms (last ${jobs.length} jobs)`;
    };
    // Scheduler jobs are created one period ahead, so only their run time means something.
    const pollStamps = await stamps(queues.poll, 'poll', false);
    const pollSplit = (await queues.poll.getJobs(['completed'], 0, 199))
      .filter((j) => j.name === 'poll' && j.returnvalue)
      .map((j) => j.returnvalue as { sourceMs?: number; storeMs?: number });
    const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);
    const detectStamps = await stamps(queues.detect, 'detect', true);
    const memory: number[] = [];
    for (const id of [...ids.slice(0, LAGGING), ...ids.slice(LAGGING, LAGGING + 60)]) memory.push(await store.memoryPerQuery(id));
    // Worst case: detect down long enough for a lagging query's inbox to fill to its bound.
    const worstId = ids[0]!;
    const stored = await redis.get(store.keys.trackerState(worstId));
    const fullInbox = `${prefix}-worst`;
    const worstStore = new RedisStore({ redis, prefix: fullInbox });
    if (stored) await redis.set(worstStore.keys.trackerState(worstId), stored);
    await redis.hset(worstStore.keys.streamMeta(worstId), await redis.hgetall(store.keys.streamMeta(worstId)));
    const sim = new StreamSimulator(
      { id: worstId, arrival: constantRate(45_000), processing: { rowsPerSecPerCore: 2_500, cores: 8 }, triggerMs: 10_000, source: { kind: 'kafka', topic: 'orders0', partitions: 8, maxOffsetsPerTrigger: 200_000 } },
      { startMs: benchStart, seed: 3 },
    );
    const fill: Progress[] = [];
    for (let b = 0; b < worstStore.queries.inboxLimit; b++) {
      const parsed = parseProgress(JSON.parse(sim.next().json));
      if (parsed.ok) fill.push(parsed.progress);
    }
    const worstDropped = await worstStore.queries.pushProgress(worstId, fill);
    const worstBytes = await worstStore.memoryPerQuery(worstId);
    await worstStore.deleteEverything();
    const usedAfter = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? 0);

    const rate = (o1 - o0) / ((t1 - t0) / 1000);
    const offered = QUERIES / 10;
    log('');
    log(`sustained progress events/s   ${rate.toFixed(1)} observed (offered ${offered.toFixed(0)}/s) over ${((t1 - t0) / 1000).toFixed(0)} s`);
    log(`kept up                       ${observedEnd >= visible ? 'yes' : 'NO'}: ${observedEnd} observed of ${visible} appeared ≥ ${POLL_MS / 1000 + 3} s ago`);
    log(`detect queue (waiting+active) ${samples.map((s) => s.detectWaiting).join(' ')}  (every 5 s)`);
    log(`notify queue (waiting+delayed) ${samples.map((s) => s.notifyWaiting).join(' ')}`);
    log(`incident messages             ${incidents} incidents in ${slack.messages().filter((m) => !m.thread_ts).length} top-level Slack messages`);
    log(`latency batch→Slack           p50 ${(percentile(latencies, 50) / 1000).toFixed(2)} s · p99 ${(percentile(latencies, 99) / 1000).toFixed(2)} s · max ${(percentile(latencies, 100) / 1000).toFixed(2)} s (target p99 < ${POLL_MS / 1000 + 2} s)`);
    log(`  after warm-up               p50 ${(percentile(steady, 50) / 1000).toFixed(2)} s · p99 ${(percentile(steady, 99) / 1000).toFixed(2)} s (${steady.length} incidents whose batch appeared after the warm-up)`);
    log(`  split                       batch→detect commit p50 ${(percentile(toCommit, 50) / 1000).toFixed(2)} s p99 ${(percentile(toCommit, 99) / 1000).toFixed(2)} s · commit→Slack p50 ${(percentile(commitToSlack, 50) / 1000).toFixed(2)} s p99 ${(percentile(commitToSlack, 99) / 1000).toFixed(2)} s (${toCommit.length} incidents; first posts alone p50 ${(percentile(commitToOwn, 50) / 1000).toFixed(2)} s p99 ${(percentile(commitToOwn, 99) / 1000).toFixed(2)} s)`);
    log(`poll jobs                     ${pollStamps}; median ${median(pollSplit.map((r) => r.sourceMs ?? 0))} ms in Databricks, ${median(pollSplit.map((r) => r.storeMs ?? 0))} ms storing`);
    log(`detect jobs                   ${detectStamps}`);
    log(`Redis per query (MEMORY USAGE) mean ${(memory.reduce((a, b) => a + b, 0) / memory.length / 1024).toFixed(1)} KB · max ${(Math.max(...memory) / 1024).toFixed(1)} KB over ${memory.length} queries (target < 64 KB)`);
    log(`Redis per query, worst case   ${(worstBytes / 1024).toFixed(1)} KB with a full inbox (${fill.length} batches arrived while detect was down ≥ 10 min, ${fill.length - worstDropped} kept by the ${(store.queries.inboxMaxBytes / 1024).toFixed(0)} KB bound)`);
    log(`Redis used_memory growth      ${((usedAfter - usedBefore) / QUERIES / 1024).toFixed(1)} KB per query (everything, queues included)`);
  } finally {
    await clock.close();
    for (const proc of workers) proc.kill('SIGTERM');
    await Promise.all(workers.map((proc) => new Promise((r) => (proc.exitCode !== null ? r(null) : proc.once('exit', r)))));
    await queues.close();
    await store.deleteEverything();
    const bull = `{${prefix}}:*`;
    let cursor = '0';
    for (let i = 0; i < 10_000; i++) {
      const [next, keys] = await redis.scan(cursor, 'MATCH', bull, 'COUNT', 1000);
      if (keys.length) await redis.unlink(...keys);
      cursor = next;
      if (cursor === '0') break;
    }
    redis.disconnect();
    await databricks.close();
    await slack.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
