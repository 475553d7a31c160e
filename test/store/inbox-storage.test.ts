/**
 * What a query's inbox keeps of a report: a report is stored within its depth and text bounds
 * (`storableProgress`), and entries stored as plain JSON (before the codec) still decode beside
 * compacted ones.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/index.js';
import { STORED_NAME_MAX_CHARS, STORED_PROGRESS_MAX_DEPTH, STORED_TEXT_MAX_CHARS, storableProgress } from '../../src/store/inbox-codec.js';
import { testRedis } from '../helpers/redis.js';
import { kafkaProgress } from './fixtures.js';

const redis = testRedis({ lazyConnect: false });
let store: RedisStore;
const QID = '3c9e1d27-5a4b-4f6e-8d2c-1b7a9e0f4c36';
const T0 = Date.parse('2026-11-29T10:00:00.000Z');

beforeEach(() => {
  store = new RedisStore({ redis, prefix: `sdtest-${randomUUID()}` });
});
afterEach(async () => {
  await store.deleteEverything();
});
afterAll(async () => {
  await redis.quit();
});

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i += 1) value = { a: value };
  return value;
}

describe('what the inbox keeps of a report', () => {
  it('is the report itself when within the bounds (no copy)', () => {
    const p = kafkaProgress(QID, 1, T0);
    expect(storableProgress(p)).toBe(p);
  });

  it('cuts values nested past the depth bound and texts past their length, keeping the figures', () => {
    const p = kafkaProgress(QID, 1, T0, { name: 'n'.repeat(10_000) });
    p.sources[0]!.startOffset = { orders: nested(20_000) };
    p.sources[0]!.description = `KafkaV2[Subscribe[${'t'.repeat(5_000)}]]`;
    p.stateOperators[0]!.operatorName = 'o'.repeat(5_000);
    expect(() => JSON.stringify(p)).toThrow(RangeError);
    const kept = storableProgress(p);
    expect(kept.name).toBe(`${'n'.repeat(STORED_NAME_MAX_CHARS - 1)}…`);
    expect(kept.sources[0]!.description).toHaveLength(STORED_TEXT_MAX_CHARS);
    expect(kept.stateOperators[0]!.operatorName).toHaveLength(STORED_TEXT_MAX_CHARS);
    // progress (0) › sources (1) › [0] (2) › startOffset (3) › orders (4) › a (5) …: null from depth 8 on.
    let at: unknown = (kept.sources[0]!.startOffset as Record<string, unknown>).orders;
    for (let depth = 4; depth < STORED_PROGRESS_MAX_DEPTH; depth += 1) at = (at as { a: unknown }).a;
    expect(at).toBeNull();
    expect({ ...kept, name: p.name, sources: p.sources, stateOperators: p.stateOperators }).toEqual(p);
    // The report pushed is untouched.
    expect(p.name).toHaveLength(10_000);
  });

  it('reads an entry stored as plain JSON (before the codec) beside a compacted one', async () => {
    await redis.rpush(store.keys.inbox(QID), `1|${JSON.stringify(kafkaProgress(QID, 1, T0))}`);
    await redis.hset(store.keys.streamMeta(QID), 'inboxSeq', 1);
    await store.queries.push(QID, [kafkaProgress(QID, 2, T0)]);
    const load = await store.queries.loadForDetect(QID);
    expect(load.entries.map((e) => [e.seq, e.progress.batchId])).toEqual([[1, 1], [2, 2]]);
    expect(load.corrupt).toBe(0);
    // The entry format an older detect worker reads: `seq|payload`, the payload right after the bar.
    const [, compacted] = await redis.lrangeBuffer(store.keys.inbox(QID), 0, -1);
    expect(compacted!.subarray(0, 2).toString('latin1')).toBe('2|');
    expect(compacted![2]).toBe(0x01);
  });
});
