/**
 * Redis goes away and comes back (a private redis-server with AOF, restarted on the same port):
 * /healthz says 503 while it is down and 200 after; the worker reconnects by itself and keeps
 * observing progress exactly once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { engineTrackers } from '../../jobs/engine-trackers.js';
import { WebClientChat } from '../../src/slack/gateway/slack-chat.js';
import { startWebEndpoints, startWorker, type WebRuntime, type WorkerRuntime } from '../../src/runtime/pipeline-runtime.js';
import { freePort, pingRedis } from '../../src/runtime/redis-discovery.js';
import { startLocalSlack, type LocalSlack } from '../../src/standins/slack/index.js';
import { silentLogger, uniquePrefix, waitFor } from './helpers/harness.js';
import { SimulatedSource, queryIdOf } from './helpers/sim-source.js';

const dir = mkdtempSync(join(tmpdir(), 'sd-redis-restart-'));
let server: ChildProcess | undefined;
let worker: WorkerRuntime | undefined;
let web: WebRuntime | undefined;
let slack: LocalSlack | undefined;

async function startRedis(port: number): Promise<ChildProcess> {
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', ''], { stdio: 'ignore' });
  await waitFor(() => pingRedis('127.0.0.1', port, 300), 'redis-server up', 10_000);
  return proc;
}

async function stopRedis(proc: ChildProcess): Promise<void> {
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  await exited;
}

afterAll(async () => {
  await web?.close();
  await worker?.close();
  await slack?.close();
  if (server) await stopRedis(server);
  rmSync(dir, { recursive: true, force: true });
});

describe('Redis restart', () => {
  it('reports 503 while Redis is down, then reconnects and keeps observing every batch once', async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    server = await startRedis(port);
    slack = await startLocalSlack({ rateLimit: false });
    const startMs = Date.UTC(2026, 10, 29, 9, 0, 0);
    let simNow = startMs + 3 * 60_000;
    const source = new SimulatedSource({ queries: 3, laggingQueries: 0, startMs, batches: 40 }, () => simNow);
    const p = uniquePrefix('restart');
    worker = await startWorker({
      redisUrl: url,
      ...p,
      logger: silentLogger,
      sources: new Map([['sim', { id: 'sim', source }]]),
      trackers: engineTrackers(),
      chat: new WebClientChat({ token: 'xoxb-local-streamdoctor', slackApiUrl: slack.apiUrl }),
      routing: { defaultChannel: 'C0DATAALRT' },
      workers: { lockDurationMs: 3000, stalledIntervalMs: 1000 },
    });
    web = await startWebEndpoints({ redisUrl: url, ...p, logger: silentLogger });
    const observed = async () => {
      let n = 0;
      for (let i = 0; i < 3; i++) n += (await worker!.store.streams.get(queryIdOf(i)))?.observedCount ?? 0;
      return n;
    };

    await worker.queues.poll.add('poll', { sourceId: 'sim' });
    const before = source.visible(simNow);
    await waitFor(async () => (await observed()) === before, 'first batches observed');
    expect((await fetch(`${web.url}/healthz`)).status).toBe(200);

    await stopRedis(server);
    server = undefined;
    const down = await fetch(`${web.url}/healthz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ status: 'error', redis: 'error' });
    // Metrics still answer from process memory while Redis is away.
    expect((await fetch(`${web.url}/metrics`)).status).toBe(200);

    simNow += 2 * 60_000;
    server = await startRedis(port);
    await waitFor(async () => (await fetch(`${web!.url}/healthz`)).status === 200, 'healthy again', 15_000);
    await waitFor(async () => {
      await worker!.queues.poll.add('poll', { sourceId: 'sim' });
      return (await observed()) === source.visible(simNow);
    }, 'progress after the restart observed', 20_000, 500);
    for (let i = 0; i < 3; i++) {
      const stream = (await worker.store.streams.get(queryIdOf(i)))!;
      expect(stream.observedCount).toBe(stream.lastObservedBatchId! + 1);
    }
  }, 60_000);
});
