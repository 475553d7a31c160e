/**
 * Setting a silence once however often the same one is asked for (a double click on Silence ▾, two
 * people at once), and ending one: only a silence in force counts as ended. Real Redis.
 */
import { describe, expect, it } from 'vitest';
import { storeAndQueuesPerTest } from '../helpers/store-and-queues.js';

const fresh = storeAndQueuesPerTest('silence-once');
const QID = '0a1b2c3d-0000-4000-8000-00000000e004';
const HOUR_MS = 3_600_000;
const WITHIN_MS = 10_000;

describe('silenceOnce', () => {
  it('of the same choice asked twice at once, 400 ms apart, one sets it and the other finds it in force', async () => {
    const t0 = Date.now();
    const [a, b] = await Promise.all([
      fresh.store.silences.silenceOnce(QID, t0 + 2 * HOUR_MS, 'U0MARIA001', t0, WITHIN_MS),
      fresh.store.silences.silenceOnce(QID, t0 + 400 + 2 * HOUR_MS, 'U0DEV00002', t0 + 400, WITHIN_MS),
    ]);
    expect([a.changed, b.changed].sort()).toEqual([false, true]);
    const set = a.changed ? a : b;
    expect((a.changed ? b : a).record).toEqual(set.record);
    expect(await fresh.store.silences.get(QID, t0 + 400)).toEqual(set.record);
    expect((await fresh.store.silences.list(t0 + 400)).map((s) => s.untilMs)).toEqual([set.record.untilMs]);
  });

  it('sets what moves the end: the same choice past the tolerance, another length, an end asked before it', async () => {
    const t0 = Date.now();
    expect((await fresh.store.silences.silenceOnce(QID, t0 + 2 * HOUR_MS, 'U0MARIA001', t0, WITHIN_MS)).changed).toBe(true);
    // The same end asked again, whatever length it was picked as, is the silence in force.
    expect((await fresh.store.silences.silenceOnce(QID, t0 + 2 * HOUR_MS, 'U0DEV00002', t0 + HOUR_MS, WITHIN_MS)).changed).toBe(false);
    const later = t0 + WITHIN_MS + 1;
    expect(await fresh.store.silences.silenceOnce(QID, later + 2 * HOUR_MS, 'U0DEV00002', later, WITHIN_MS)).toMatchObject({ changed: true, record: { untilMs: later + 2 * HOUR_MS, byUser: 'U0DEV00002' } });
    expect((await fresh.store.silences.silenceOnce(QID, later + 1 + 8 * HOUR_MS, 'U0DEV00002', later + 1, WITHIN_MS)).changed).toBe(true);
    expect((await fresh.store.silences.silenceOnce(QID, later + 2 + 30 * 60_000, 'U0DEV00002', later + 2, WITHIN_MS)).changed).toBe(true);
    expect((await fresh.store.silences.get(QID))!.untilMs).toBe(later + 2 + 30 * 60_000);
  });

  it('sets it over a silence whose end passed while its key lived, and over a record it cannot read', async () => {
    const t0 = Date.now();
    const key = fresh.store.keys.silence(QID);
    await fresh.redis.set(key, JSON.stringify({ queryId: QID, untilMs: t0 - 5_000, byUser: 'U0MARIA001', createdAt: t0 - 5_000 - 2 * HOUR_MS }), 'PX', 60_000);
    expect((await fresh.store.silences.silenceOnce(QID, t0 + 2 * HOUR_MS, 'U0DEV00002', t0, WITHIN_MS)).changed).toBe(true);
    await fresh.redis.set(key, 'not json', 'PX', 60_000);
    expect((await fresh.store.silences.silenceOnce(QID, t0 + 2 * HOUR_MS, 'U0DEV00002', t0, WITHIN_MS)).changed).toBe(true);
    expect((await fresh.store.silences.read(QID, t0)).record).toMatchObject({ untilMs: t0 + 2 * HOUR_MS, byUser: 'U0DEV00002' });
  });
});

describe('unsilence', () => {
  it('says whether a silence was in force: one whose end passed while its key lived was not, and its key goes too', async () => {
    const t0 = Date.now();
    await fresh.store.silences.silence(QID, t0 + 30 * 60_000, 'U0MARIA001', t0);
    expect(await fresh.store.silences.unsilence(QID, t0 + 60_000)).toBe(true);
    expect(await fresh.store.silences.unsilence(QID, t0 + 60_000)).toBe(false);
    // Set on a clock behind this one: the key outlives the end asked for.
    await fresh.store.silences.silence(QID, t0 + 30 * 60_000, 'U0MARIA001', t0 - HOUR_MS);
    expect(await fresh.store.silences.unsilence(QID, t0 + 31 * 60_000)).toBe(false);
    expect(await fresh.redis.exists(fresh.store.keys.silence(QID))).toBe(0);
    expect(await fresh.store.silences.list(t0)).toEqual([]);
  });
});
