/**
 * A silence record read back as the silence in effect: an end asked for that has passed is over
 * (the key is a backstop); a record that cannot say its end (seconds for ms, renamed, not a number,
 * past its key) reads as ending when the key expires, and one whose key never expires ends at its
 * record, or not at all.
 * Real Redis.
 */
import { describe, expect, it } from 'vitest';
import { storeAndQueuesPerTest } from '../helpers/store-and-queues.js';

const fresh = storeAndQueuesPerTest('silence-record');
const QID = '0a1b2c3d-0000-4000-8000-00000000e003';

async function stored(record: Record<string, unknown>, ttlMs: number | null) {
  const { store, redis } = fresh;
  const text = JSON.stringify({ queryId: QID, byUser: 'U0MARIA001', createdAt: Date.now(), ...record });
  if (ttlMs === null) await redis.set(store.keys.silence(QID), text);
  else await redis.set(store.keys.silence(QID), text, 'PX', ttlMs);
  return store.silences.read(QID);
}

describe('silence records read back', () => {
  it('a record as written is read as it is, with no problem', async () => {
    const untilMs = Date.now() + 60_000;
    await fresh.store.silences.silence(QID, untilMs, 'U0MARIA001');
    expect(await fresh.store.silences.read(QID)).toEqual({ record: expect.objectContaining({ untilMs, byUser: 'U0MARIA001' }), problem: null });
  });

  it.each([
    ['untilMs in seconds', (now: number) => ({ untilMs: Math.floor((now + 60_000) / 1000) })],
    ['untilMs renamed', (now: number) => ({ until: now + 60_000 })],
    ['untilMs a string', () => ({ untilMs: 'tomorrow' })],
    ['untilMs far past its key (1e300)', () => ({ untilMs: 1e300 })],
  ])('%s: ends when its key expires, and says so', async (_what, record) => {
    const now = Date.now();
    const read = await stored(record(now), 60_000);
    expect(read.record!.untilMs).toBeGreaterThanOrEqual(now + 59_000);
    expect(read.record!.untilMs).toBeLessThanOrEqual(Date.now() + 61_000);
    expect(read.problem).toContain('read as ending');
    expect(await fresh.store.silences.isSilenced(QID)).toBe(true);
  });

  it('an end asked for that passed while its key lives (a clock behind, or fast) is over; get() still shows it as written', async () => {
    const written = Date.now() - 5_000;
    expect(await stored({ untilMs: written }, 60_000)).toEqual({ record: null, problem: null });
    expect((await fresh.store.silences.get(QID))!.untilMs).toBe(written);
  });

  it('a key that never expires: ends at its record, and a record that ended is no silence', async () => {
    const until = Date.now() + 60_000;
    expect((await stored({ untilMs: until }, null)).record!.untilMs).toBe(until);
    const ended = await stored({ untilMs: Date.now() - 1000 }, null);
    expect(ended.record).toBeNull();
    expect(await fresh.store.silences.get(QID)).toBeNull();
    expect(await fresh.store.silences.isSilenced(QID)).toBe(false);
  });
});
