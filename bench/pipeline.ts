/**
 * `npm run bench:pipeline`: the local Databricks serves 2,000 streaming queries at a 10-second
 * cadence (40 of them fall behind at staggered moments), worker processes run the pipeline, one
 * clock polls every 10 s, and the local Slack receives the posts. The stand-ins run in a process of
 * their own (bench/pipeline-standins.ts), so their CPU is shown apart. Prints sustained progress
 * events per second, p50/p99 latency from a batch appearing in Databricks to its Slack message,
 * queue depths (does it keep up?), Redis memory per query, and the cost model: CPU milliseconds per
 * progress event for each stage (process.cpuUsage() in every process, stages measured by
 * src/util/stage-cpu.ts in the workers), the Redis server and the stand-ins.
 *
 * Options (env): BENCH_QUERIES (2000), BENCH_LAGGING (40), BENCH_SECONDS (60 measured, after warm-up),
 * BENCH_WORKERS (2; a list such as 1,2,4 runs the same load once per count and prints a scaling
 * table), BENCH_WORKER_NODE_ARGS (extra node flags for the workers, e.g. --cpu-prof), REDIS_URL
 * (redis://127.0.0.1:6379).
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
import { StreamSimulator, constantRate } from '../src/simulator/index.js';
import { RedisStore } from '../src/store/index.js';
import { IpcPeer, benchChannelId as channelId, benchQueryId as queryId, type StandinsConfig, type WorkerCpu } from './pipeline-ipc.js';

const QUERIES = Number(process.env.BENCH_QUERIES ?? 2000);
const LAGGING = Math.min(QUERIES, Number(process.env.BENCH_LAGGING ?? 40));
const MEASURE_S = Number(process.env.BENCH_SECONDS ?? 60);
const WORKER_COUNTS = (process.env.BENCH_WORKERS ?? '2').split(',').map((n) => Math.max(1, Math.floor(Number(n)))).filter((n) => Number.isFinite(n));
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

const cpuMicros = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

async function redisCpuMicros(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const num = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return Math.round((num('used_cpu_sys') + num('used_cpu_user')) * 1e6);
}

/** Sum of MEMORY USAGE over every key matching `pattern` (SCAN). */
async function memoryOf(redis: Redis, pattern: string): Promise<{ bytes: number; keys: number }> {
  let cursor = '0';
  let bytes = 0;
  let keys = 0;
  for (let i = 0; i < 1_000_000; i++) {
    const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    if (batch.length > 0) {
      const p = redis.pipeline();
      for (const key of batch) p.call('MEMORY', 'USAGE', key, 'SAMPLES', '0');
      for (const [, v] of (await p.exec()) ?? []) bytes += Number(v ?? 0);
      keys += batch.length;
    }
    cursor = next;
    if (cursor === '0') break;
  }
  return { bytes, keys };
}

/** The cost model of one run: CPU µs per process and per stage over the measured window. */
interface Costs {
  events: number;
  workers: { processMicros: number; stages: Record<string, number> };
  redisMicros: number;
  standinsMicros: number;
  benchMicros: number;
  seconds: number;
}

interface RunResult {
  workers: number;
  rate: number;
  offered: number;
  keptUp: boolean;
  p50: number;
  p99: number;
  steadyP99: number;
  incidents: number;
  costs: Costs;
  redisPerQueryKB: number;
  lines: string[];
}

const STAGES: [string, string][] = [
  ['poll.fetch', 'poll: fetch + parse (HTTP client, JSON, parseProgress)'],
  ['poll.store', 'poll: store + enqueue (encode, inbox appends, jobs)'],
  ['detect.load', 'detect: load (decode state + inbox, restore tracker)'],
  ['detect.run', 'detect: run (engine observe + tick + snapshot)'],
  ['detect.commit', 'detect: commit (serialize state, scripts, outbox)'],
  ['notify', 'notify (route, render, post; whole job)'],
];

function costTable(c: Costs, workers: number): string[] {
  const per = (us: number) => (c.events > 0 ? (us / 1000 / c.events).toFixed(3) : 'n/a');
  const pct = (us: number) => `${((100 * us) / Math.max(1, c.workers.processMicros)).toFixed(0).padStart(3)} %`;
  const lines = [`cost model: CPU ms per progress event (${c.events} events in ${c.seconds.toFixed(0)} s, ${workers} worker process${workers > 1 ? 'es' : ''})`];
  let staged = 0;
  for (const [stage, label] of STAGES) {
    const us = c.workers.stages[stage] ?? 0;
    staged += us;
    lines.push(`  ${label.padEnd(58)} ${per(us).padStart(7)}  ${pct(us)}`);
  }
  const rest = c.workers.processMicros - staged;
  lines.push(`  ${'queue, Redis client, event loop (rest of the workers)'.padEnd(58)} ${per(rest).padStart(7)}  ${pct(rest)}`);
  lines.push(`  ${'= pipeline workers, all processes'.padEnd(58)} ${per(c.workers.processMicros).padStart(7)}  (${(c.workers.processMicros / 1e6 / c.seconds).toFixed(2)} cores)`);
  lines.push(`  ${'Redis server (INFO cpu; shared with anything else on it)'.padEnd(58)} ${per(c.redisMicros).padStart(7)}  (${(c.redisMicros / 1e6 / c.seconds).toFixed(2)} cores)`);
  lines.push(`  ${'local Databricks + local Slack (own process)'.padEnd(58)} ${per(c.standinsMicros).padStart(7)}  (${(c.standinsMicros / 1e6 / c.seconds).toFixed(2)} cores)`);
  lines.push(`  ${'bench process (clock, sampling)'.padEnd(58)} ${per(c.benchMicros).padStart(7)}  (${(c.benchMicros / 1e6 / c.seconds).toFixed(2)} cores)`);
  return lines;
}

async function runOnce(workerCount: number): Promise<RunResult> {
  const benchStart = Date.now();
  const prefix = `sdbench-${process.pid}-${workerCount}`;
  const dir = mkdtempSync(join(tmpdir(), 'sd-bench-'));
  const redis = new Redis(REDIS_URL);
  const store = new RedisStore({ redis, prefix });
  const usedBefore = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? 0);
  const out: string[] = [];
  const say = (line: string) => {
    out.push(line);
    log(line);
  };

  const standinsConfig: StandinsConfig = { queries: QUERIES, lagging: LAGGING, channels: CHANNELS, benchStart };
  writeFileSync(join(dir, 'standins.json'), JSON.stringify(standinsConfig));
  const standins = new IpcPeer(spawn(process.execPath, ['bin/run-ts.mjs', 'bench/pipeline-standins.ts', join(dir, 'standins.json')], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  const { databricksUrl, slackApiUrl } = (await standins.ready) as { databricksUrl: string; slackApiUrl: string };

  const ids = Array.from({ length: QUERIES }, (_, i) => queryId(i));
  const routes: Record<string, string> = {};
  ids.forEach((id, i) => (routes[id] = channelId(i % CHANNELS)));
  say(`bench:pipeline  ${QUERIES} queries (${LAGGING} fall behind), 10 s trigger, poll every ${POLL_MS / 1000} s, ${workerCount} worker process${workerCount > 1 ? 'es' : ''}, ${CHANNELS} channels`);

  const configPath = join(dir, 'worker.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      redisUrl: REDIS_URL,
      prefix,
      databricksUrl,
      token: 'dapi-local-0123456789abcdef',
      slackApiUrl,
      queryIds: ids,
      routes,
    }),
  );
  const workers: IpcPeer[] = [];
  const procs: ChildProcess[] = [];
  for (let w = 0; w < workerCount; w++) {
    // BENCH_WORKER_NODE_ARGS: extra node flags for the workers (e.g. --cpu-prof --cpu-prof-dir=…).
    const nodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const proc = spawn(process.execPath, [...nodeArgs, 'bin/run-ts.mjs', 'bench/pipeline-worker.ts', configPath], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    procs.push(proc);
    const peer = new IpcPeer(proc);
    await Promise.race([peer.ready, sleep(30_000).then(() => Promise.reject(new Error('worker did not start in 30 s')))]);
    workers.push(peer);
  }
  const clock = await startClock({ redisUrl: REDIS_URL, prefix, logger, schedule: { sourceIds: ['bench-table'], pollEveryMs: POLL_MS, digest: false } });
  const queues = new PipelineQueues({ connection: redis, prefix: `{${prefix}}` });

  const observedTotal = async (): Promise<number> => {
    const pipeline = redis.pipeline();
    for (const id of ids) pipeline.hget(store.keys.streamMeta(id), 'observed');
    const res = (await pipeline.exec()) ?? [];
    return res.reduce((sum, [, v]) => sum + (Number(v) || 0), 0);
  };
  const cpuSnapshot = async () => {
    const reports = await Promise.all(workers.map((w) => w.call<WorkerCpu>('cpu')));
    const stages: Record<string, number> = {};
    for (const r of reports) for (const [k, v] of Object.entries(r.stages)) stages[k] = (stages[k] ?? 0) + v;
    return {
      workers: { processMicros: reports.reduce((a, r) => a + r.processMicros, 0), stages },
      redis: await redisCpuMicros(redis),
      standins: await standins.call<number>('cpu'),
      bench: cpuMicros(),
    };
  };

  try {
    // Warm-up: the two minutes of history, then the first steady cycles.
    const warmDeadline = Date.now() + 90_000;
    while (Date.now() < warmDeadline) {
      await sleep(2000);
      const seen = await observedTotal();
      if (seen >= QUERIES * 12 && Date.now() - benchStart > 20_000) break;
    }
    say(`warm-up done after ${((Date.now() - benchStart) / 1000).toFixed(1)} s (history of ${QUERIES * 12}+ batches observed)`);

    const t0 = Date.now();
    const o0 = await observedTotal();
    const cpu0 = await cpuSnapshot();
    const samples: { t: number; observed: number; detectWaiting: number; notifyWaiting: number }[] = [];
    while (Date.now() - t0 < MEASURE_S * 1000) {
      await sleep(5000);
      const depths = await queues.depths();
      samples.push({ t: Date.now(), observed: await observedTotal(), detectWaiting: depths.detect!.waiting + depths.detect!.active, notifyWaiting: depths.notify!.waiting + depths.notify!.delayed });
    }
    const cpu1 = await cpuSnapshot();
    const t1 = Date.now();
    const o1 = await observedTotal();
    const stageDelta: Record<string, number> = {};
    for (const [k, v] of Object.entries(cpu1.workers.stages)) stageDelta[k] = v - (cpu0.workers.stages[k] ?? 0);
    const costs: Costs = {
      events: o1 - o0,
      workers: { processMicros: cpu1.workers.processMicros - cpu0.workers.processMicros, stages: stageDelta },
      redisMicros: cpu1.redis - cpu0.redis,
      standinsMicros: cpu1.standins - cpu0.standins,
      benchMicros: cpu1.bench - cpu0.bench,
      seconds: (t1 - t0) / 1000,
    };
    // Let the last cycle land, then compare what appeared with what was observed.
    await sleep(POLL_MS + 3000);
    const checkAt = Date.now() - POLL_MS - 3000;
    const visible = await standins.call<number>('visible', { atMs: checkAt });
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
    const messages = (await standins.call<{ channel: string; ts: string; threadTs: string | null; key: string }[]>('messages')).filter((m) => !m.threadTs);
    const shownList: { record: Awaited<ReturnType<typeof store.incidents.getMany>>[number]; shownMs: number; anchor: boolean }[] = [];
    for (const message of messages) {
      const key = message.key;
      const postedMs = Number(message.ts) * 1000;
      const group = key.startsWith('group.') ? await store.storms.get(message.channel, key.slice('group.'.length)) : null;
      const shown = group ? await store.storms.shownAt(message.channel, group.id) : {};
      const memberIds = group ? group.incidentIds : [key];
      for (const record of await store.incidents.getMany(memberIds)) {
        const shownMs = group && record.id !== group.anchorId ? (shown[record.id] ?? postedMs) : postedMs;
        shownList.push({ record, shownMs, anchor: !group || record.id === group.anchorId });
      }
    }
    const appearedAt = await standins.call<(number | null)[]>('appearedAt', { pairs: shownList.map(({ record }) => [record.queryId, record.incident.openedAtBatchId ?? -1]) });
    shownList.forEach(({ record, shownMs, anchor }, i) => {
      const opened = appearedAt[i];
      if (opened === null || opened === undefined || opened <= benchStart) return; // opened on history rows
      incidents += 1;
      latencies.push(shownMs - opened);
      if (opened >= t0) steady.push(shownMs - opened);
      const committed = committedAt.get(record.id);
      if (committed !== undefined) {
        toCommit.push(committed - opened);
        commitToSlack.push(shownMs - committed);
        if (anchor) commitToOwn.push(shownMs - committed);
      }
    });
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
    const storeMemory = await memoryOf(redis, `${prefix}:*`);
    const queueMemory = await memoryOf(redis, `{${prefix}}:*`);
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
    const worstDropped = (await worstStore.queries.push(worstId, fill)).dropped;
    const worstBytes = await worstStore.memoryPerQuery(worstId);
    await worstStore.deleteEverything();
    const usedAfter = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? 0);

    const rate = (o1 - o0) / ((t1 - t0) / 1000);
    const offered = QUERIES / 10;
    const keptUp = observedEnd >= visible;
    say('');
    say(`sustained progress events/s   ${rate.toFixed(1)} observed (offered ${offered.toFixed(0)}/s) over ${((t1 - t0) / 1000).toFixed(0)} s`);
    say(`kept up                       ${keptUp ? 'yes' : 'NO'}: ${observedEnd} observed of ${visible} appeared ≥ ${POLL_MS / 1000 + 3} s ago`);
    say(`detect queue (waiting+active) ${samples.map((s) => s.detectWaiting).join(' ')}  (every 5 s)`);
    say(`notify queue (waiting+delayed) ${samples.map((s) => s.notifyWaiting).join(' ')}`);
    say(`incident messages             ${incidents} incidents in ${await standins.call<number>('topLevelMessages')} top-level Slack messages`);
    say(`latency batch→Slack           p50 ${(percentile(latencies, 50) / 1000).toFixed(2)} s · p99 ${(percentile(latencies, 99) / 1000).toFixed(2)} s · max ${(percentile(latencies, 100) / 1000).toFixed(2)} s (target p99 ≤ ${POLL_MS / 1000 + 2} s)`);
    say(`  after warm-up               p50 ${(percentile(steady, 50) / 1000).toFixed(2)} s · p99 ${(percentile(steady, 99) / 1000).toFixed(2)} s (${steady.length} incidents whose batch appeared after the warm-up)`);
    say(`  split                       batch→detect commit p50 ${(percentile(toCommit, 50) / 1000).toFixed(2)} s p99 ${(percentile(toCommit, 99) / 1000).toFixed(2)} s · commit→Slack p50 ${(percentile(commitToSlack, 50) / 1000).toFixed(2)} s p99 ${(percentile(commitToSlack, 99) / 1000).toFixed(2)} s (${toCommit.length} incidents; first posts alone p50 ${(percentile(commitToOwn, 50) / 1000).toFixed(2)} s p99 ${(percentile(commitToOwn, 99) / 1000).toFixed(2)} s)`);
    say(`poll jobs                     ${pollStamps}; median ${median(pollSplit.map((r) => r.sourceMs ?? 0))} ms in Databricks, ${median(pollSplit.map((r) => r.storeMs ?? 0))} ms storing`);
    say(`detect jobs                   ${detectStamps}`);
    say(`Redis per query (MEMORY USAGE) mean ${(memory.reduce((a, b) => a + b, 0) / memory.length / 1024).toFixed(1)} KB · max ${(Math.max(...memory) / 1024).toFixed(1)} KB over ${memory.length} queries (target < 64 KB)`);
    say(`Redis per query, whole prefix ${(storeMemory.bytes / QUERIES / 1024).toFixed(1)} KB store (${storeMemory.keys} keys) + ${(queueMemory.bytes / QUERIES / 1024).toFixed(1)} KB queues (${queueMemory.keys} keys) = ${((storeMemory.bytes + queueMemory.bytes) / QUERIES / 1024).toFixed(1)} KB (MEMORY USAGE over the prefixes; target ≤ 16 KB)`);
    say(`Redis per query, worst case   ${(worstBytes / 1024).toFixed(1)} KB with a full inbox (${fill.length} batches arrived while detect was down ≥ 10 min, ${fill.length - worstDropped} kept by the ${(store.queries.inboxMaxBytes / 1024).toFixed(0)} KB bound)`);
    say(`Redis used_memory growth      ${((usedAfter - usedBefore) / QUERIES / 1024).toFixed(1)} KB per query (everything, queues included)`);
    say('');
    for (const line of costTable(costs, workerCount)) say(line);
    return {
      workers: workerCount,
      rate,
      offered,
      keptUp,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      steadyP99: percentile(steady, 99),
      incidents,
      costs,
      redisPerQueryKB: (storeMemory.bytes + queueMemory.bytes) / QUERIES / 1024,
      lines: out,
    };
  } finally {
    await clock.close();
    for (const proc of procs) proc.kill('SIGTERM');
    await Promise.all(procs.map((proc) => new Promise((r) => (proc.exitCode !== null ? r(null) : proc.once('exit', r)))));
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
    await standins.call('close').catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

const results: RunResult[] = [];
for (const count of WORKER_COUNTS) {
  results.push(await runOnce(count));
  log('');
}
if (results.length > 1) {
  log(`scaling: ${QUERIES} queries, ${LAGGING} lagging, offered ${results[0]!.offered.toFixed(0)} events/s, on ${(await import('node:os')).availableParallelism()} cores`);
  log('  workers  events/s  kept up  p50 s   p99 s   workers ms/event  workers cores  Redis cores  stand-ins cores');
  for (const r of results) {
    const c = r.costs;
    log(
      `  ${String(r.workers).padStart(7)}  ${r.rate.toFixed(1).padStart(8)}  ${(r.keptUp ? 'yes' : 'NO').padStart(7)}  ${(r.p50 / 1000).toFixed(2).padStart(5)}  ${(r.p99 / 1000).toFixed(2).padStart(6)}  ${(c.workers.processMicros / 1000 / Math.max(1, c.events)).toFixed(3).padStart(16)}  ${(c.workers.processMicros / 1e6 / c.seconds).toFixed(2).padStart(13)}  ${(c.redisMicros / 1e6 / c.seconds).toFixed(2).padStart(11)}  ${(c.standinsMicros / 1e6 / c.seconds).toFixed(2).padStart(15)}`,
    );
  }
}
