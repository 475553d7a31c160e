/**
 * `/stream tune` is asked now: it shows the stream's latest figures (the snapshot the detect job
 * stores), not the ones the incident was last described with, and dates the advice it cannot redo.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatSeconds } from '../../src/slack/format.js';
import { CHANNEL, MARIA, startHarness, type Harness } from './helpers/harness.js';
import { seedScenario, type SeededStream } from './helpers/seed.js';

let h: Harness;
let orders: SeededStream;
let nowMs = 0;

async function run(commandText: string) {
  const outcome = await h.slack.interactions.slashCommand({ user: MARIA, channel: CHANNEL, text: commandText });
  const record = await h.until(() => h.slack.responses().find((r) => r.url === outcome.responseUrl && r.responses.length > 0));
  return record.responses[0] as { text: string; blocks?: unknown[] };
}

beforeAll(async () => {
  h = await startHarness({ now: () => nowMs });
  orders = await seedScenario(h.store, 'kafka-uncapped-overload-12pct');
  await h.store.routing.setRoute('query', orders.queryId, CHANNEL);
  // Much later: the detect job stored a newer snapshot and changed nothing of the incident.
  nowMs = orders.nowMs + 40 * 60_000;
  const state = await h.store.queries.loadForDetect(orders.queryId);
  await h.store.queries.commitDetect(orders.queryId, {
    expectedVersion: state.stateVersion,
    state: (await h.store.queries.getTrackerState(orders.queryId))!.state,
    lastSeq: state.lastSeq,
    snapshot: { timeBehindSec: 1109, batchDurationMs: 95_000, triggerMs: 60_000, stateRows: null, health: 'critical', lastProgressAt: nowMs - 30_000, lastBatchId: 9_999, arrivalRate: 14_100, processingRate: 12_600 },
    health: 'critical',
    name: orders.name,
    lastRunId: null,
    lastBatchId: 9_999,
    lastObservedAt: nowMs - 30_000,
    timeBehindSec: 1109,
    changes: [],
    nowMs,
  });
});

afterAll(async () => {
  await h?.close();
});

describe('/stream tune with an incident described long ago', () => {
  it('shows the current figures and dates the advice', async () => {
    const lag = orders.incidents.find((record) => record.kind === 'lag')!;
    const then = lag.incident.metrics!.timeBehindSec!;
    expect(formatSeconds(then)).not.toBe('18m 29s');
    const reply = await run('tune orders_5min');
    const body = JSON.stringify(reply.blocks);
    // The live figures, as of the latest batch read.
    expect(body).toContain('18m 29s');
    expect(body).toContain('1m 35s');
    expect(body).toMatch(/14\.1K rows\/s vs 12\.6K rows\/s/);
    // The incident's own figures and the advice sized on them say when they are from.
    expect(body).toMatch(/as of the incident.s last update/i);
    const nowAt = body.indexOf('18m 29s');
    // The incident's field (the summary, above the label, says it too).
    const thenAt = body.indexOf(`*Time behind*\\n${formatSeconds(then)}`);
    const label = body.search(/as of the incident.s last update/i);
    expect(nowAt).toBeGreaterThan(-1);
    expect(thenAt).toBeGreaterThan(-1);
    expect(nowAt).toBeLessThan(label);
    expect(label).toBeLessThan(thenAt);
  });
});
