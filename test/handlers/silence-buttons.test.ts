/**
 * The alert's Silence ▾ and Unsilence controls clicked twice, or late: a double click silences once
 * and tells the thread once; a stale Unsilence always answers the person privately. Clicks reach the
 * app as signed block_actions from the local Slack; notes are read from the alert's thread there.
 */
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE } from '../../jobs/queue-names.js';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import { renderIncidentMessage } from '../../src/slack/render/incident-message.js';
import type { IncidentRecord } from '../../src/store/types.js';
import { CHANNEL, DEV, MARIA, startHarness, type Harness } from './helpers/harness.js';
import { postAlert, seedScenario, type SeededStream } from './helpers/seed.js';

const HOUR_MS = 3_600_000;
let h: Harness;
let notify: Queue;
let nowMs = 0;

beforeAll(async () => {
  h = await startHarness({ now: () => nowMs });
  notify = new Queue(QUEUE.notify, { connection: h.redis, prefix: `{${h.store.keys.prefix}}` });
});

afterAll(async () => {
  await notify?.close();
  await h?.close();
});

async function click(actionId: string, user: string, ts: string, selected?: string) {
  const outcome = await h.slack.interactions.messageAction({ user, channel: CHANNEL, messageTs: ts, actionId, ...(selected ? { selected } : {}) });
  expect(outcome.delivery.status).toBe(200);
  expect(outcome.error).toBeUndefined();
}

/** The private replies `user` got so far. */
function repliesTo(user: string): string[] {
  return h.slack.ephemerals(CHANNEL, user).map((e) => e.text);
}

/** The next private reply to `user` after the `seen` first ones. */
function nextReply(user: string, seen: number): Promise<string> {
  return h.until(() => repliesTo(user)[seen]);
}

/** Waits until notify has run every refresh asked for so far (a note it would post is posted). */
async function notifySettled(): Promise<void> {
  await h.until(async () => {
    const counts = await notify.getJobCounts('waiting', 'active', 'prioritized', 'waiting-children');
    return Object.values(counts).every((n) => n === 0);
  });
}

function threadNotes(alertTs: string, prefix: string): string[] {
  return h.slack.thread(CHANNEL, alertTs).map((m) => m.text).filter((text) => text.startsWith(prefix));
}

/** A copy of the alert as someone's Slack may still show it (its buttons outlive the message's updates). */
async function staleCopy(record: IncidentRecord, silencedUntilMs?: number): Promise<string> {
  const message = renderIncidentMessage(record, { nowMs, ...(silencedUntilMs ? { silencedUntilMs, silencedBy: MARIA } : {}) });
  const posted = await h.client.chat.postMessage({ channel: CHANNEL, text: message.text, blocks: message.blocks });
  return posted.ts as string;
}

describe('Silence ▾ clicked twice', () => {
  let orders: SeededStream;
  let alertTs = '';

  beforeAll(async () => {
    orders = await seedScenario(h.store, 'kafka-uncapped-overload-12pct');
    nowMs = orders.nowMs;
    await h.store.routing.setRoute('query', orders.queryId, CHANNEL);
    alertTs = (await postAlert(h.client, h.deps, orders.incidents[0]!, CHANNEL)).ts;
  });

  it('a double click silences once and notes it once; the second click hears it is already silenced', async () => {
    // Both payloads come from the menu as it was before the alert re-rendered.
    const menu = await staleCopy(orders.incidents[0]!);
    const firstAt = nowMs;
    await click(ACTION_IDS.silence, DEV, menu, String(2 * HOUR_MS));
    expect(await nextReply(DEV, 0)).toContain('Silenced `orders_5min_agg` for 2h');
    nowMs += 400;
    await click(ACTION_IDS.silence, DEV, menu, String(2 * HOUR_MS));
    const second = await nextReply(DEV, 1);
    await notifySettled();
    expect(threadNotes(alertTs, 'Silenced for')).toHaveLength(1);
    expect(second).toContain('already silenced until');
    expect(second).toContain(`<!date^${Math.floor((firstAt + 2 * HOUR_MS) / 1000)}^`);
    expect(await h.store.silences.get(orders.queryId, nowMs)).toMatchObject({ byUser: DEV, untilMs: firstAt + 2 * HOUR_MS });
    await h.client.chat.delete({ channel: CHANNEL, ts: menu });
  });

  it('a later pick that moves the end is applied and noted once, the same duration included', async () => {
    const menu = await staleCopy(orders.incidents[0]!);
    nowMs += 30 * 60_000;
    const seen = repliesTo(MARIA).length;
    await click(ACTION_IDS.silence, MARIA, menu, String(2 * HOUR_MS));
    expect(await nextReply(MARIA, seen)).toContain('Silenced `orders_5min_agg` for 2h');
    expect((await h.store.silences.get(orders.queryId, nowMs))!.untilMs).toBe(nowMs + 2 * HOUR_MS);
    await click(ACTION_IDS.silence, MARIA, menu, String(8 * HOUR_MS));
    expect(await nextReply(MARIA, seen + 1)).toContain('for 8h');
    expect((await h.store.silences.get(orders.queryId, nowMs))!.untilMs).toBe(nowMs + 8 * HOUR_MS);
    await notifySettled();
    expect(threadNotes(alertTs, 'Silenced for 2h')).toHaveLength(2);
    expect(threadNotes(alertTs, 'Silenced for 8h')).toHaveLength(1);
    await h.client.chat.delete({ channel: CHANNEL, ts: menu });
  });
});

describe('a stale Unsilence button', () => {
  it('on an alert whose incident has resolved: ends the silence, notes it in the thread and tells the clicker', async () => {
    const scaled = await seedScenario(h.store, 'lag-then-scale-up');
    nowMs = scaled.nowMs;
    const resolved = scaled.incidents.find((r) => r.state === 'resolved')!;
    await h.store.routing.setRoute('query', scaled.queryId, CHANNEL);
    await h.store.silences.silence(scaled.queryId, nowMs + 2 * HOUR_MS, MARIA, nowMs);
    // The alert as it was shown while the incident was open and silenced.
    const alertTs = await staleCopy({ ...resolved, state: 'open', resolvedAt: null }, nowMs + 2 * HOUR_MS);
    await h.store.incidents.setSlackRef(resolved.id, { channel: CHANNEL, ts: alertTs });
    await h.store.incidents.assignChannel(resolved, CHANNEL, nowMs);
    const seen = repliesTo(DEV).length;
    nowMs += 60_000;
    await click(ACTION_IDS.unsilence, DEV, alertTs);
    const reply = await nextReply(DEV, seen);
    expect(reply).toContain(`\`${scaled.name}\` is no longer silenced`);
    expect(reply).toContain('thread');
    expect(await h.store.silences.isSilenced(scaled.queryId)).toBe(false);
    await h.until(() => threadNotes(alertTs, 'Unsilenced').length === 1);
    // The stale controls are gone: the alert reads as resolved again.
    await h.until(() => !JSON.stringify(h.slack.messages(CHANNEL).find((m) => m.ts === alertTs)?.blocks).includes(ACTION_IDS.unsilence));
  });

  it('after the silence already ended (its end passed, its key not yet expired): says there was none to end, notes nothing', async () => {
    const lagging = await seedScenario(h.store, 'kafka-partition-bound', { name: 'refunds <b> & co' });
    nowMs = lagging.nowMs;
    await h.store.routing.setRoute('query', lagging.queryId, CHANNEL);
    await h.store.silences.silence(lagging.queryId, nowMs + 30 * 60_000, MARIA, nowMs);
    const alertTs = (await postAlert(h.client, h.deps, lagging.incidents[0]!, CHANNEL)).ts;
    expect(JSON.stringify(h.slack.messages(CHANNEL).find((m) => m.ts === alertTs)?.blocks)).toContain(ACTION_IDS.unsilence);
    nowMs += 31 * 60_000;
    const seen = repliesTo(DEV).length;
    await click(ACTION_IDS.unsilence, DEV, alertTs);
    const reply = await nextReply(DEV, seen);
    expect(reply).toContain('`refunds &lt;b&gt; &amp; co` is not silenced');
    expect(reply).toContain('no silence to end');
    await notifySettled();
    expect(threadNotes(alertTs, 'Unsilenced')).toHaveLength(0);
  });

  it.each([
    ['a value that is no incident id', { value: 'not-an-incident' }, 'gone'],
    ['an incident id of nothing stored', { value: 'f00dfeed-0000-4000-8000-000000000000.lag.1700000000000' }, 'gone'],
    ['no value at all', {}, 'out of date'],
  ])('with %s: a private reply, nothing changed, no error', async (_what, button, expected) => {
    const posted = await h.client.chat.postMessage({
      channel: CHANNEL,
      text: 'an old alert',
      blocks: [{ type: 'actions', elements: [{ type: 'button', action_id: ACTION_IDS.unsilence, text: { type: 'plain_text', text: 'Unsilence' }, ...button }] }],
    });
    const seen = repliesTo(MARIA).length;
    const topLevel = h.slack.messages(CHANNEL).length;
    await click(ACTION_IDS.unsilence, MARIA, posted.ts as string);
    expect(await nextReply(MARIA, seen)).toContain(expected);
    expect(h.slack.messages(CHANNEL).length).toBe(topLevel);
    expect(h.logLines.join('')).not.toContain('"level":50');
  });
});
