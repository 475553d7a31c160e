/**
 * A channel with more streams than the digest reads history for (200): the chart still draws the
 * worst of them, and its title counts every stream it left out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDigestContent } from '../../src/slack/operations/post-digest.js';
import { CHANNEL, startHarness, type Harness } from './helpers/harness.js';
import { seedScenario, type SeededStream } from './helpers/seed.js';

let h: Harness;
let orders: SeededStream;

beforeAll(async () => {
  h = await startHarness();
  orders = await seedScenario(h.store, 'kafka-uncapped-overload-12pct');
  await h.store.routing.setRoute('query', orders.queryId, CHANNEL);
  // 250 healthy streams whose names sort before the lagging one's.
  for (let i = 0; i < 250; i += 1) {
    const queryId = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    await h.store.streams.upsert({ queryId, name: `aaa_etl_${String(i).padStart(3, '0')}` }, orders.nowMs);
    await h.store.routing.setRoute('query', queryId, CHANNEL);
  }
}, 60_000);

afterAll(async () => {
  await h?.close();
});

describe('the digest chart of a channel with many streams', () => {
  it('draws the stream that fell behind although 250 names sort before it, and counts the rest', async () => {
    const content = await buildDigestContent({ store: h.store }, CHANNEL, 'data-alerts', orders.nowMs);
    expect(content.streams).toBe(251);
    expect(content.chart).not.toBeNull();
    expect(content.chart!.drawn).toContain(orders.name);
    // Streams with no samples are not drawn; those never read (past the 200) are counted.
    expect(content.chart!.omitted).toBeGreaterThanOrEqual(51);
  });
});
