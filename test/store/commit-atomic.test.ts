/**
 * The detect commit happens whole or not at all: Redis keeps what a script wrote before an error,
 * so a malformed value another writer left (a count, a history bucket, a version) is repaired and
 * named, never failed on half-way; a key of the wrong type refuses the commit before any write.
 * And what detect loads back: inbox entries that are no report (named by sequence), older-shaped
 * ones (filled with the parser's defaults), a state gone while its version says one was saved.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IncidentChange } from '../../src/diagnosis/types.js';
import { RedisStore, incidentIdOf } from '../../src/store/index.js';
import { encodeProgressJson } from '../../src/store/inbox-codec.js';
import { testRedis } from '../helpers/redis.js';
import { kafkaProgress, lagIncident } from './fixtures.js';

const redis = testRedis({ lazyConnect: false });
let store: RedisStore;
const QID = '7a1e1c4a-7d4b-4a8e-9d7e-2b6c0c9a1f07';
const T0 = Date.parse('2026-11-29T10:00:00.000Z');
const opened: IncidentChange = { type: 'opened', queryId: QID, queryName: 'orders', incident: lagIncident('2026-11-29T10:06:40.000Z') };
const LAG_ID = incidentIdOf(QID, opened.incident);
const LATER = T0 + 3_600_000;

beforeEach(() => {
  store = new RedisStore({ redis, prefix: `sdtest-commit-atomic-${randomUUID().slice(0, 8)}` });
});
afterEach(async () => {
  await store.deleteEverything();
});
afterAll(async () => {
  await redis.quit();
});

/** A commit; the first in `committedOnce` is an hour before the others (a new history bucket then). */
function commit(expectedVersion: number, lastSeq: number, changes: IncidentChange[] = [opened], at = LATER) {
  return {
    expectedVersion,
    state: { hello: 'world' },
    lastSeq,
    snapshot: null,
    health: 'ok' as const,
    name: 'orders',
    lastRunId: 'run1',
    lastBatchId: 3,
    lastObservedAt: at,
    timeBehindSec: 12,
    changes,
    nowMs: at,
    observed: 2,
  };
}

/** Commits once so a version, a history bucket and a count exist, then pushes 2 reports. */
async function committedOnce(): Promise<number> {
  await store.queries.push(QID, [kafkaProgress(QID, 1, T0)]);
  await store.queries.commitDetect(QID, commit(0, (await store.queries.loadForDetect(QID)).lastSeq, [], T0));
  await store.queries.push(QID, [kafkaProgress(QID, 2, T0), kafkaProgress(QID, 3, T0)]);
  return (await store.queries.loadForDetect(QID)).lastSeq;
}

describe('detect commit with malformed stored values', () => {
  it.each([
    ['meta.observed = "12.5"', () => redis.hset(store.keys.streamMeta(QID), 'observed', '12.5'), /observed "12.5" read as 12/],
    ['a history field "x"', () => redis.hset(store.keys.timeBehindHistory(QID), 'x', '1'), /history field "x" dropped/],
    ['a history bucket valued "abc"', () => redis.hset(store.keys.timeBehindHistory(QID), String(Math.floor(LATER / 900_000) * 900_000), 'abc'), /history bucket \d+ "abc" replaced/],
    ['meta.stateVersion = "v7"', () => redis.hset(store.keys.streamMeta(QID), 'stateVersion', 'v7'), /stateVersion "v7" read as 0/],
  ])('%s: the whole commit happens and the repair is named', async (_what, poke, said) => {
    const lastSeq = await committedOnce();
    await poke();
    const expected = (await store.queries.loadForDetect(QID)).stateVersion;
    const result = await store.queries.commitDetect(QID, commit(expected, lastSeq));
    expect(result.repaired?.join('; ')).toMatch(said);
    expect(result.stateVersion).toBe(expected + 1);
    expect(result.outbox).toEqual([{ queryId: QID, incidentId: LAG_ID, version: 1, change: 'opened' }]);
    expect((await store.incidents.get(LAG_ID))?.state).toBe('open');
    expect(await store.queries.inboxLength(QID)).toBe(0);
    const meta = await redis.hgetall(store.keys.streamMeta(QID));
    expect(meta.stateVersion).toBe(String(expected + 1));
    expect(meta.observed).toMatch(/^\d+$/);
    for (const [field, value] of Object.entries(await redis.hgetall(store.keys.timeBehindHistory(QID)))) {
      expect([Number(field), Number(value)].every(Number.isFinite)).toBe(true);
    }
    // The next commit needs no repair.
    await store.queries.push(QID, [kafkaProgress(QID, 4, T0)]);
    const next = await store.queries.loadForDetect(QID);
    expect((await store.queries.commitDetect(QID, commit(next.stateVersion, next.lastSeq, []))).repaired).toBeUndefined();
  });

  it('an incident record whose version is no number goes on from what was notified', async () => {
    const lastSeq = await committedOnce();
    await store.queries.commitChanges(QID, [opened], T0);
    await redis.hset(store.keys.incident(QID, LAG_ID), 'version', 'abc', 'notifiedVersion', '1');
    const result = await store.queries.commitDetect(QID, commit(1, lastSeq, [{ ...opened, type: 'updated' }]));
    expect(result.outbox[0]!.version).toBe(2);
    expect(result.repaired?.join()).toMatch(/version "abc" read as 1/);
  });

  it('a key of the wrong type refuses the commit before it writes anything', async () => {
    const lastSeq = await committedOnce();
    await redis.del(store.keys.outbox(QID));
    await redis.set(store.keys.outbox(QID), 'not a list');
    const stateBefore = await redis.get(store.keys.trackerState(QID));
    const metaBefore = await redis.hgetall(store.keys.streamMeta(QID));
    await expect(store.queries.commitDetect(QID, commit(1, lastSeq))).rejects.toThrow(/streamdoctor_store_corrupt/);
    expect(await redis.get(store.keys.trackerState(QID))).toBe(stateBefore);
    expect(await redis.hgetall(store.keys.streamMeta(QID))).toEqual(metaBefore);
    expect(await store.queries.inboxLength(QID)).toBe(2);
    expect(await redis.exists(store.keys.incident(QID, LAG_ID))).toBe(0);
  });
});

describe('what detect loads back', () => {
  it('entries that are no progress report are consumed, each named by its sequence', async () => {
    await store.queries.push(QID, [kafkaProgress(QID, 1, T0)]);
    for (const payload of ['null', '42', '"x"', '[]', '{}', '{"id":"q"}']) await redis.rpush(store.keys.inbox(QID), `${await redis.hincrby(store.keys.streamMeta(QID), 'inboxSeq', 1)}|${payload}`);
    const load = await store.queries.loadForDetect(QID);
    expect(load.entries.map((e) => e.progress.batchId)).toEqual([1]);
    expect(load.corrupt).toBe(6);
    expect(load.corruptEntries!.map((e) => e.seq)).toEqual([2, 3, 4, 5, 6, 7]);
    expect(load.corruptEntries![0]!.problem).toMatch(/not a progress report: null/);
    await store.queries.commitDetect(QID, commit(0, load.lastSeq, []));
    expect(await store.queries.inboxLength(QID)).toBe(0);
  });

  it.each([
    ['plain', (json: string) => json],
    ['deflated', (json: string) => encodeProgressJson(json).toString('latin1')],
  ])('a %s entry of an older shape is read with the parser’s defaults', async (_how, encode) => {
    const old: Record<string, unknown> = { ...kafkaProgress(QID, 5, T0) };
    delete old.timestampMs;
    delete old.batchDurationMs;
    delete old.eventTime;
    const seq = await redis.hincrby(store.keys.streamMeta(QID), 'inboxSeq', 1);
    await redis.rpush(store.keys.inbox(QID), Buffer.concat([Buffer.from(`${seq}|`), Buffer.from(encode(JSON.stringify(old)), 'latin1')]));
    const load = await store.queries.loadForDetect(QID);
    expect(load.corrupt).toBe(0);
    expect(load.filledEntries).toEqual([seq]);
    expect(load.entries[0]!.progress).toMatchObject({ batchId: 5, timestampMs: T0 + 50_000, batchDurationMs: 8_200, eventTime: {} });
  });

  it.each([
    ['deleted', () => redis.del(store.keys.trackerState(QID))],
    ['empty', () => redis.set(store.keys.trackerState(QID), '')],
    ['JSON null', () => redis.set(store.keys.trackerState(QID), 'null')],
  ])('a state %s while a version says one was saved is missing, not a new query', async (_what, lose) => {
    await store.queries.push(QID, [kafkaProgress(QID, 1, T0)]);
    expect((await store.queries.loadForDetect(QID)).stateMissing).toBeUndefined();
    await store.queries.commitDetect(QID, commit(0, (await store.queries.loadForDetect(QID)).lastSeq, []));
    await lose();
    const load = await store.queries.loadForDetect(QID);
    expect(load).toMatchObject({ stateVersion: 1, state: null, stateMissing: true });
  });
});
