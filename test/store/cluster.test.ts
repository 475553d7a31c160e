/**
 * The store and the notify pipeline on a real Redis Cluster: three masters from
 * `redis-server` on loopback ports (removed afterwards), REDIS_URL `redis+cluster://…`. Streams,
 * silences, the detect commit and incident reads span many hash slots; every transaction and script
 * stays in one slot; BullMQ's queues share the `{prefix}` slot; an alert is posted once through the
 * local Slack.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebClientChat } from '../../src/slack/gateway/slack-chat.js';
import { freePort, findOnPath, pingRedis } from '../../src/runtime/redis-discovery.js';
import { createRedis } from '../../src/runtime/redis-client.js';
import { checkRedisServer } from '../../src/runtime/redis-server-check.js';
import { startWorker } from '../../src/runtime/pipeline-runtime.js';
import { startLocalSlack } from '../../src/standins/slack/index.js';
import { RedisStore, incidentIdOf } from '../../src/store/index.js';
import { lagIncident } from './fixtures.js';
import { deletePrefix, onCluster, scanKeys, TEST_REDIS_URL } from '../helpers/redis.js';
import { silentLogger, unusedTrackers, waitFor } from '../pipeline/helpers/harness.js';

// Under `npm run test:cluster` the run's own cluster (STREAMDOCTOR_TEST_REDIS_URL) is used instead.
const available = onCluster || (findOnPath('redis-server') !== null && findOnPath('redis-cli') !== null);
const nodes: ChildProcess[] = [];
let dir = '';
let url = '';

async function clusterReady(ports: number[]): Promise<boolean> {
  return ports.every((port) => /cluster_state:ok/.test(spawnSync('redis-cli', ['-p', String(port), 'cluster', 'info'], { encoding: 'utf8' }).stdout));
}

beforeAll(async () => {
  if (onCluster) {
    url = TEST_REDIS_URL;
    return;
  }
  if (!available) return;
  dir = mkdtempSync(join(tmpdir(), 'sd-cluster-'));
  const ports = [await freePort(), await freePort(), await freePort()];
  for (const port of ports) {
    nodes.push(
      spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--dir', dir, '--save', '', '--appendonly', 'no'], { stdio: 'ignore' }),
    );
  }
  for (const port of ports) for (let i = 0; i < 100 && !(await pingRedis('127.0.0.1', port, 200)); i++) await new Promise((r) => setTimeout(r, 50));
  const created = spawnSync('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'], { encoding: 'utf8' });
  if (created.status !== 0) throw new Error(`cluster create failed: ${created.stderr || created.stdout}`);
  for (let i = 0; i < 200 && !(await clusterReady(ports)); i++) await new Promise((r) => setTimeout(r, 50));
  url = `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`;
}, 30_000);

afterAll(async () => {
  if (onCluster) await deletePrefix(url, 'sdcluster', 'sdnotify');
  for (const node of nodes) {
    if (node.exitCode === null) {
      const exited = new Promise((resolve) => node.once('exit', resolve));
      node.kill('SIGKILL');
      await exited;
    }
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!available)('Redis Cluster', () => {
  it('the start-up checks read every seed node (all noeviction here)', async () => {
    expect(await checkRedisServer(url)).toEqual([]);
  });

  it('the store works across slots: registry, silences, detect commit, incidents, storms, routing', async () => {
    const redis = createRedis(url, 'worker', { enableAutoPipelining: true });
    try {
      const store = new RedisStore({ redis, prefix: 'sdcluster' });
      const ids = Array.from({ length: 12 }, (_, i) => `c1a2b3c4-0000-4000-8000-${String(i).padStart(12, '0')}`);
      const now = Date.now();
      for (const queryId of ids) {
        await store.streams.upsert({ queryId, name: `stream_${queryId.slice(-2)}` });
        const load = await store.queries.loadForDetect(queryId);
        await store.queries.commitDetect(queryId, {
          expectedVersion: load.stateVersion, state: {}, lastSeq: load.lastSeq, snapshot: null, health: 'warning', name: null,
          lastRunId: null, lastBatchId: null, lastObservedAt: null, timeBehindSec: null,
          changes: [{ type: 'opened', queryId, queryName: null, incident: lagIncident('2026-11-29T10:06:40.000Z') }], nowMs: now,
        });
        const { raw } = await store.outbox.peek(queryId);
        await store.outbox.removeDrained(queryId, raw);
      }
      expect((await store.streams.list()).map((s) => s.queryId).sort()).toEqual(ids);
      const records = await store.incidents.getMany(ids.map((q) => incidentIdOf(q, lagIncident('2026-11-29T10:06:40.000Z'))));
      expect(records).toHaveLength(12);
      for (const record of records) {
        await store.incidents.index(record);
        await store.incidents.assignChannel(record, 'C0DATAALRT', now);
        await store.storms.classify('C0DATAALRT', record.id, now);
      }
      expect(await store.incidents.listOpen()).toHaveLength(12);
      await store.silences.silence(ids[0]!, now + 60_000, 'U0MARIA001', now);
      expect((await store.silences.list(now)).map((s) => s.queryId)).toEqual([ids[0]]);
      expect(await store.silences.unsilence(ids[0]!)).toBe(true);
      await store.routing.setRoute('query', ids[1]!, 'C0STREAMNG');
      expect(await store.routing.resolve({ queryId: ids[1]! })).toBe('C0STREAMNG');
    } finally {
      redis.disconnect();
    }
  });

  it('deleteEverything removes the prefix on every master (one UNLINK per key: keys of many slots)', async () => {
    const redis = createRedis(url, 'worker');
    try {
      const store = new RedisStore({ redis, prefix: 'sdwipe' });
      for (let i = 0; i < 20; i++) await store.streams.upsert({ queryId: `e1e2e3e4-0000-4000-8000-${String(i).padStart(12, '0')}`, name: `s${i}` });
      const before = await scanKeys(redis, 'sdwipe:*');
      expect(new Set(before.map((k) => k.split('}')[0])).size).toBeGreaterThan(3);
      expect(await store.deleteEverything()).toBe(before.length);
      expect(await scanKeys(redis, 'sdwipe:*')).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });

  it('notify posts an alert once with the workers and queues on the cluster', async () => {
    const slack = await startLocalSlack({ rateLimit: false });
    const runtime = await startWorker({
      redisUrl: url,
      prefix: 'sdnotify',
      logger: silentLogger,
      sources: new Map(),
      trackers: unusedTrackers,
      chat: new WebClientChat({ token: 'xoxb-local-streamdoctor', slackApiUrl: slack.apiUrl }),
      routing: { defaultChannel: 'C0DATAALRT' },
      channelIntervalMs: 0,
    });
    try {
      const queryId = 'd4c3b2a1-0000-4000-8000-000000000001';
      const incident = lagIncident('2026-11-29T10:06:40.000Z');
      await runtime.store.streams.upsert({ queryId, name: 'orders_enrich' });
      const load = await runtime.store.queries.loadForDetect(queryId);
      await runtime.store.queries.commitDetect(queryId, {
        expectedVersion: load.stateVersion, state: {}, lastSeq: load.lastSeq, snapshot: null, health: 'warning', name: null,
        lastRunId: null, lastBatchId: null, lastObservedAt: null, timeBehindSec: null,
        changes: [{ type: 'opened', queryId, queryName: 'orders_enrich', incident }], nowMs: Date.now(),
      });
      const { drainOutbox } = await import('../../jobs/notify-intents.js');
      await drainOutbox(runtime.store, runtime.queues, queryId, Date.now());
      await waitFor(async () => (await runtime.store.incidents.get(incidentIdOf(queryId, incident)))?.slack, 'posted', 15_000);
      expect(slack.messages('C0DATAALRT')).toHaveLength(1);
    } finally {
      await runtime.close();
      await slack.close();
    }
  }, 30_000);
});
