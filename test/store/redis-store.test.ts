import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IncidentChange } from '../../src/diagnosis/types.js';
import { RedisStore, StateConflictError, incidentIdOf, parseIncidentId } from '../../src/store/index.js';
import { bulkyTrackerState, kafkaProgress, lagIncident } from './fixtures.js';
import { testRedis } from '../helpers/redis.js';

const redis = testRedis({ lazyConnect: false });
let store: RedisStore;
const QID = '4f1e1c4a-7d4b-4a8e-9d7e-2b6c0c9a1f00';
const T0 = Date.parse('2026-11-29T10:00:00.000Z');

beforeEach(() => {
  store = new RedisStore({ redis, prefix: `sdtest-${randomUUID()}`, inboxLimit: 50 });
});
afterEach(async () => {
  await store.deleteEverything();
});
afterAll(async () => {
  await redis.quit();
});

function commitBase(expectedVersion: number, lastSeq: number) {
  return {
    expectedVersion,
    state: { hello: 'world' },
    lastSeq,
    snapshot: { timeBehindSec: 12, batchDurationMs: 8200, triggerMs: 10_000, stateRows: 1_250_000, health: 'ok' as const, lastProgressAt: T0, lastBatchId: 3 },
    health: 'ok' as const,
    name: 'orders_enrichment',
    lastRunId: 'run1',
    lastBatchId: 3,
    lastObservedAt: T0,
    timeBehindSec: 12,
    changes: [] as IncidentChange[],
    nowMs: T0,
  };
}

describe('key layout', () => {
  it('puts every per-query key in the {q:<id>} hash slot and escapes braces and colons', () => {
    const keys = store.keys;
    for (const key of keys.queryFixedKeys(QID)) expect(key).toContain(`{q:${QID}}`);
    expect(keys.incident(QID, 'x')).toContain(`{q:${QID}}`);
    expect(keys.streamMeta('we{ird}:id')).toContain('{q:we%7bird%7d%3aid}');
  });
});

describe('progress inbox and detect commit', () => {
  it('returns pushed progress in order and consumes exactly what a commit says', async () => {
    await store.streams.upsert({ queryId: QID, name: 'orders_enrichment', source: 'table', jobId: '881' });
    await store.queries.push(QID, [kafkaProgress(QID, 1, T0), kafkaProgress(QID, 2, T0)]);
    const load = await store.queries.loadForDetect(QID);
    expect(load.entries.map((e) => e.progress.batchId)).toEqual([1, 2]);
    expect(load.stateVersion).toBe(0);
    expect(load.stream?.jobId).toBe('881');

    // New progress lands while the detect run works; the commit must not eat it.
    await store.queries.push(QID, [kafkaProgress(QID, 3, T0)]);
    const result = await store.queries.commitDetect(QID, commitBase(0, load.lastSeq));
    expect(result.stateVersion).toBe(1);
    const next = await store.queries.loadForDetect(QID);
    expect(next.entries.map((e) => e.progress.batchId)).toEqual([3]);
    expect(next.state).toEqual({ hello: 'world' });
    expect(next.stream?.snapshot?.timeBehindSec).toBe(12);
    expect(next.stream?.lastObservedBatchId).toBe(3);
  });

  it('refuses a commit based on stale state (two workers on one query)', async () => {
    await store.queries.push(QID, [kafkaProgress(QID, 1, T0)]);
    const a = await store.queries.loadForDetect(QID);
    const b = await store.queries.loadForDetect(QID);
    await store.queries.commitDetect(QID, commitBase(a.stateVersion, a.lastSeq));
    await expect(store.queries.commitDetect(QID, commitBase(b.stateVersion, b.lastSeq))).rejects.toBeInstanceOf(StateConflictError);
  });

  it('bounds the inbox and reports how many old entries it dropped', async () => {
    const batch = Array.from({ length: 60 }, (_, i) => kafkaProgress(QID, i, T0));
    const { dropped } = await store.queries.push(QID, batch);
    expect(dropped).toBe(10);
    const load = await store.queries.loadForDetect(QID, 500);
    expect(load.entries).toHaveLength(50);
    expect(load.entries[0]!.progress.batchId).toBe(10);
  });

  it('skips and consumes corrupt inbox entries instead of wedging the query', async () => {
    await store.queries.push(QID, [kafkaProgress(QID, 1, T0)]);
    await redis.rpush(store.keys.inbox(QID), '99|{not json');
    const load = await store.queries.loadForDetect(QID);
    expect(load.corrupt).toBe(1);
    expect(load.entries).toHaveLength(1);
    await store.queries.commitDetect(QID, commitBase(0, load.lastSeq));
    expect(await store.queries.inboxLength(QID)).toBe(0);
  });
});

describe('incident records', () => {
  const opened = lagIncident('2026-11-29T10:06:40.000Z');
  const change = (type: IncidentChange['type'], incident = opened): IncidentChange => ({ type, queryId: QID, queryName: 'orders_enrichment', incident });

  it('creates a versioned record and a notification intent per change, idempotent ids', async () => {
    const first = await store.queries.commitDetect(QID, { ...commitBase(0, 0), changes: [change('opened')] });
    const id = incidentIdOf(QID, opened);
    expect(parseIncidentId(id)).toEqual({ queryId: QID, kind: 'lag', opened: String(Date.parse(opened.openedAt)) });
    expect(first.outbox).toEqual([{ queryId: QID, incidentId: id, version: 1, change: 'opened' }]);
    const rec = await store.incidents.get(id);
    expect(rec).toMatchObject({ id, queryId: QID, kind: 'lag', state: 'open', version: 1, slack: null, notifiedVersion: 0 });
    expect(rec!.incident.advice[0]!.setting).toBe('maxOffsetsPerTrigger');
    expect(rec!.incident.causes).toHaveLength(1);

    const acked = await store.incidents.acknowledge(id, 'U024BE7LH');
    expect(acked).toMatchObject({ acknowledgedBy: 'U024BE7LH', version: 2 });

    const resolved = { ...opened, resolvedAt: '2026-11-29T10:20:00.000Z', resolvedAtBatchId: 120 };
    const second = await store.queries.commitDetect(QID, { ...commitBase(1, 0), changes: [change('resolved', resolved)] });
    expect(second.outbox[0]).toMatchObject({ version: 3, change: 'resolved' });
    const done = await store.incidents.get(id);
    expect(done).toMatchObject({ state: 'resolved', acknowledgedBy: 'U024BE7LH', resolvedAt: Date.parse('2026-11-29T10:20:00.000Z') });
    expect(await redis.pttl(store.keys.incident(QID, id))).toBeGreaterThan(0);
    expect((await store.outbox.read(QID)).map((e) => e.change)).toEqual(['opened', 'resolved']);
    await store.outbox.ack(QID, 2);
    expect(await store.outbox.read(QID)).toEqual([]);
  });

  it('indexes open incidents, records the channel once and lists the channel\'s last 24 h', async () => {
    await store.queries.commitDetect(QID, { ...commitBase(0, 0), changes: [change('opened')] });
    const rec = (await store.incidents.get(incidentIdOf(QID, opened)))!;
    await store.incidents.index(rec);
    expect((await store.incidents.listOpen()).map((r) => r.id)).toEqual([rec.id]);
    expect(await store.incidents.assignChannel(rec, 'C0STREAMS', rec.openedAt)).toBe('C0STREAMS');
    expect(await store.incidents.assignChannel(rec, 'C0OTHER', rec.openedAt)).toBe('C0STREAMS');
    expect(await store.incidents.listForChannel('C0STREAMS', rec.openedAt - 1000)).toEqual([{ incidentId: rec.id, queryId: QID, openedAt: rec.openedAt }]);
    await store.incidents.markNotified(rec.id, 1);
    await store.incidents.markNotified(rec.id, 0);
    expect((await store.incidents.get(rec.id))!.notifiedVersion).toBe(1);
  });
});

describe('silences', () => {
  it('expire by themselves and are listed while active', async () => {
    const now = Date.now();
    await store.silences.silence(QID, now + 300, 'U1');
    await store.silences.silence('other', now + 60_000, 'U2');
    expect(await store.silences.isSilenced(QID)).toBe(true);
    expect((await store.silences.list()).map((s) => s.queryId)).toEqual([QID, 'other']);
    await new Promise((r) => setTimeout(r, 400));
    expect(await store.silences.isSilenced(QID)).toBe(false);
    expect((await store.silences.list()).map((s) => s.queryId)).toEqual(['other']);
    expect(await store.silences.unsilence('other')).toBe(true);
    expect(await store.silences.unsilence('other')).toBe(false);
    await expect(store.silences.silence(QID, now - 1, 'U1')).rejects.toMatchObject({ code: 'streamdoctor_store_invalid' });
  });
});

describe('routing', () => {
  it('prefers Slack overrides, then the most specific config default, then the default channel', async () => {
    const defaults = { jobs: { '881': 'C0JOBS' }, pipelines: { p1: 'C0PIPE' }, defaultChannel: 'C0DEFAULT' };
    expect(await store.routing.resolve({ queryId: QID, jobId: '881' }, defaults)).toBe('C0JOBS');
    expect(await store.routing.resolve({ queryId: 'x', pipelineId: 'p1' }, defaults)).toBe('C0PIPE');
    expect(await store.routing.resolve({ queryId: 'x' }, defaults)).toBe('C0DEFAULT');
    expect(await store.routing.resolve({ queryId: 'x' })).toBeNull();
    await store.routing.setRoute('job', '881', 'C0WATCH');
    expect(await store.routing.resolve({ queryId: QID, jobId: '881' }, defaults)).toBe('C0WATCH');
    await store.routing.setRoute('query', QID, 'C0QUERY');
    expect(await store.routing.resolve({ queryId: QID, jobId: '881' }, defaults)).toBe('C0QUERY');
    expect(await store.routing.listRoutes()).toHaveLength(2);
    await store.routing.bindChannel('C0INC1', QID);
    expect(await store.routing.getChannelBinding('C0INC1')).toBe(QID);
  });
});

describe('history and memory', () => {
  it('keeps one max sample per bucket for 24 h and stays under 64 KB per query at the engine state bound', async () => {
    const bucket = store.queries.historyBucketMs;
    let version = 0;
    const state = bulkyTrackerState(24 * 1024);
    expect(JSON.stringify(state).length).toBeGreaterThanOrEqual(24 * 1024);
    const opened = lagIncident('2026-11-29T10:06:40.000Z');
    // Two days of 10-second progress would be 17,280 detect runs; sample one run per 5 minutes.
    for (let t = 0; t < 2 * 24 * 3_600_000; t += 5 * 60_000) {
      const at = T0 + t;
      await store.queries.push(QID, [kafkaProgress(QID, t / 10_000, T0)]);
      const load = await store.queries.loadForDetect(QID);
      const changes: IncidentChange[] = t === 0 ? [{ type: 'opened', queryId: QID, queryName: 'orders_enrichment', incident: opened }] : [];
      await store.queries.commitDetect(QID, {
        ...commitBase(version, load.lastSeq),
        state,
        changes,
        timeBehindSec: (t / 60_000) % 97,
        lastObservedAt: at,
        nowMs: at,
      });
      version += 1;
    }
    const samples = await store.history.timeBehind(QID, T0 + 24 * 3_600_000);
    expect(samples.length).toBeGreaterThanOrEqual(95);
    expect(samples.length).toBeLessThanOrEqual(97);
    expect(samples.every((s) => s.atMs % bucket === 0)).toBe(true);
    const stored = await redis.hlen(store.keys.timeBehindHistory(QID));
    expect(stored).toBeLessThanOrEqual(24 * 3_600_000 / bucket + 2);
    const bytes = await store.memoryPerQuery(QID);
    expect(bytes).toBeGreaterThan(24 * 1024);
    expect(bytes).toBeLessThan(64 * 1024);
  });
});
