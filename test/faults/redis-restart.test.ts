/**
 * Redis goes away twice while alerts flow (a private redis-server with AOF, fsync always, restarted on
 * the same port): once stopped cleanly (SIGTERM), once killed (SIGKILL). Two workers keep opening,
 * updating and resolving incidents' messages through both outages; the one that commits the changes
 * waits for Redis like the others. Afterwards: one message per incident, no key twice, no claim stuck,
 * no notify job given up, and every progress batch observed exactly once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { engineTrackers } from '../../jobs/engine-trackers.js';
import { WebClientChat } from '../../src/slack/gateway/slack-chat.js';
import type { Incident } from '../../src/diagnosis/types.js';
import { startWorker, type WorkerRuntime } from '../../src/runtime/pipeline-runtime.js';
import { freePort, pingRedis } from '../../src/runtime/redis-discovery.js';
import { startLocalSlack, type LocalSlack } from '../../src/standins/slack/index.js';
import { incidentIdOf } from '../../src/store/index.js';
import { lagIncident } from '../store/fixtures.js';
import { tally } from '../helpers/alert-ledger.js';
import { commitAndDrain, silentLogger, uniquePrefix, waitFor } from '../pipeline/helpers/harness.js';
import { SimulatedSource, queryIdOf } from '../pipeline/helpers/sim-source.js';
import { settle } from './helpers/settle.js';
import { recordFigures } from './helpers/figures.js';

const dir = mkdtempSync(join(tmpdir(), 'sd-faults-redis-'));
let server: ChildProcess | undefined;
const runtimes: WorkerRuntime[] = [];
let slack: LocalSlack | undefined;

async function startRedis(port: number): Promise<ChildProcess> {
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', ''], { stdio: 'ignore' });
  await waitFor(() => pingRedis('127.0.0.1', port, 300), 'redis-server up', 10_000);
  return proc;
}

async function stopRedis(proc: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill(signal);
  await exited;
}

afterAll(async () => {
  for (const rt of runtimes) await rt.close();
  await slack?.close();
  if (server) await stopRedis(server, 'SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

const QID = (i: number) => `4ed15000-0000-4000-8000-${String(i).padStart(12, '0')}`;
const CHANNELS = ['C0DATAALRT', 'C0STREAMNG'];

describe('Redis restarts while alerts flow', () => {
  it('a clean stop and a kill of Redis: nothing lost, nothing doubled, every batch once', async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    server = await startRedis(port);
    slack = await startLocalSlack();
    const startMs = Date.now() - 6 * 60_000;
    let simNow = startMs + 3 * 60_000;
    const source = new SimulatedSource({ queries: 3, laggingQueries: 0, startMs, batches: 40 }, () => simNow);
    const p = uniquePrefix('redisfaults');
    for (let w = 0; w < 2; w++) {
      runtimes.push(
        await startWorker({
          redisUrl: url,
          ...p,
          logger: silentLogger,
          sources: new Map([['sim', { id: 'sim', source }]]),
          trackers: engineTrackers(),
          chat: new WebClientChat({ token: 'xoxb-local-streamdoctor', slackApiUrl: slack.apiUrl }),
          routing: { defaultChannel: 'C0DATAALRT' },
          workers: { lockDurationMs: 5000, stalledIntervalMs: 2000 },
          store: { storm: { threshold: 1000 } },
        }),
      );
    }
    const rt = runtimes[0]!;
    const incident: Incident = lagIncident(new Date(startMs).toISOString());
    const opened: string[] = [];
    let next = 0;
    const openSome = async (n: number) => {
      for (let k = 0; k < n; k++) {
        const i = next++;
        const queryId = QID(i);
        await rt.store.streams.upsert({ queryId, name: `ledger_${i}` });
        await rt.store.routing.setRoute('query', queryId, CHANNELS[i % CHANNELS.length]!);
        await commitAndDrain(rt, queryId, [{ type: 'opened', queryId, queryName: `ledger_${i}`, incident }]);
        opened.push(incidentIdOf(queryId, incident));
        if (i >= 2) {
          const q = QID(i - 2);
          await commitAndDrain(rt, q, [{ type: 'updated', queryId: q, queryName: null, incident: { ...incident, summary: `${incident.summary} (${i})` } }]);
        }
        // Resolve one that has its message (an incident resolved before it was ever posted is, by
        // design, not worth a message of its own: it would not count as lost, but proves nothing here).
        if (i >= 4 && i % 4 === 0 && (await rt.store.incidents.get(incidentIdOf(QID(i - 4), incident)))?.slack) {
          const q = QID(i - 4);
          await commitAndDrain(rt, q, [{ type: 'resolved', queryId: q, queryName: null, incident: { ...incident, resolvedAt: new Date().toISOString(), resolvedAtBatchId: 50 } }], { health: 'ok' });
        }
        await new Promise((r) => setTimeout(r, 150));
      }
    };
    const observed = async () => {
      let n = 0;
      for (let i = 0; i < 3; i++) n += (await rt.store.streams.get(queryIdOf(i)))?.observedCount ?? 0;
      return n;
    };

    await rt.queues.poll.add('poll', { sourceId: 'sim' });
    await openSome(6);
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      // The outage starts while openings are being committed and posted.
      const flowing = openSome(6);
      await new Promise((r) => setTimeout(r, 400));
      await stopRedis(server, signal);
      server = undefined;
      await new Promise((r) => setTimeout(r, 1500));
      simNow += 60_000;
      server = await startRedis(port);
      await flowing;
      await waitFor(async () => {
        await rt.queues.poll.add('poll', { sourceId: 'sim' });
        return (await observed()) === source.visible(simNow);
      }, `progress observed after the ${signal} restart`, 30_000, 500);
    }
    await openSome(4);

    await settle(rt, opened, 90_000);
    const failed = await rt.queues.notify.getJobs(['failed'], 0, 100);
    expect(failed.map((j) => `${j.id}: ${j.failedReason}`)).toEqual([]);
    for (let i = 0; i < 3; i++) {
      const stream = (await rt.store.streams.get(queryIdOf(i)))!;
      expect(stream.observedCount).toBe(stream.lastObservedBatchId! + 1);
    }
    const figures = await tally('Redis restart (SIGTERM, then SIGKILL; AOF)', slack, rt.redis, p.prefix, opened);
    recordFigures({ ...figures, notes: ['two outages of ~2 s while openings were committed and posted; every batch observed once'] });
    expect(figures.details).toEqual([]);
    expect(figures).toMatchObject({ duplicates: 0, lost: 0, stuckClaims: 0 });
  }, 180_000);
});
