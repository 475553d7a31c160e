/**
 * Notify against the local Slack over real HTTP and real Redis: one message per incident updated in
 * place, a single resolve reply, silences, about one new message per second per channel, Slack 429
 * turned into a delayed job with nothing dropped, alert storms grouped into one message.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { IncidentChange } from '../../src/diagnosis/types.js';
import { WebClientChat } from '../../src/slack/gateway/slack-chat.js';
import { startWorker, type WorkerRuntime } from '../../src/runtime/pipeline-runtime.js';
import { startLocalSlack, type LocalSlack } from '../../src/standins/slack/index.js';
import { incidentIdOf } from '../../src/store/index.js';
import { requestRefresh } from '../../jobs/notify-processor.js';
import { lagIncident } from '../store/fixtures.js';
import { commitAndDrain, deletePrefix, REDIS_URL, silentLogger, uniquePrefix, unusedTrackers, waitFor } from '../pipeline/helpers/harness.js';

let runtime: WorkerRuntime | undefined;
let slack: LocalSlack | undefined;
let prefix: string | undefined;

afterEach(async () => {
  await runtime?.close();
  await slack?.close();
  if (prefix) await deletePrefix(REDIS_URL, prefix);
  runtime = slack = prefix = undefined;
});

async function setup(options: { rateLimit?: false | { perSecond: number; burst: number }; channelIntervalMs?: number; storm?: { windowMs?: number; threshold?: number } } = {}) {
  const p = uniquePrefix('notify');
  prefix = p.prefix;
  slack = await startLocalSlack({ rateLimit: options.rateLimit ?? false });
  runtime = await startWorker({
    redisUrl: REDIS_URL,
    ...p,
    logger: silentLogger,
    sources: new Map(),
    trackers: unusedTrackers,
    chat: new WebClientChat({ token: 'xoxb-local-streamdoctor', slackApiUrl: slack.apiUrl }),
    routing: { defaultChannel: 'C0DATAALRT' },
    groupDebounceMs: 300,
    ...(options.channelIntervalMs !== undefined ? { channelIntervalMs: options.channelIntervalMs } : {}),
    store: { storm: options.storm ?? { windowMs: 30_000, threshold: 100 } },
  });
  return runtime;
}

const QID = (i: number) => `7a1c0f3e-5b2d-4c8e-9f10-${String(i).padStart(12, '0')}`;

/** Commits an engine change for a query and enqueues its notify jobs, as a detect run would. */
async function change(rt: WorkerRuntime, queryId: string, type: IncidentChange['type'], incident = lagIncident('2026-11-29T10:06:40.000Z')) {
  await rt.store.streams.upsert({ queryId, name: `orders_${queryId.slice(-2)}` });
  await commitAndDrain(rt, queryId, [{ type, queryId, queryName: `orders_${queryId.slice(-2)}`, incident }], {
    health: type === 'resolved' ? 'ok' : 'warning',
  });
  return incidentIdOf(queryId, incident);
}

function keyOf(m: { metadata?: unknown }): string | undefined {
  return (m.metadata as { event_payload?: { key?: string } } | undefined)?.event_payload?.key;
}

async function idle(rt: WorkerRuntime): Promise<boolean> {
  const d = await rt.queues.depths();
  return d.notify!.waiting + d.notify!.active + d.notify!.delayed === 0;
}

describe('notify', () => {
  it('posts once, updates the same message, replies once on resolve', async () => {
    const rt = await setup();
    const id = await change(rt, QID(1), 'opened');
    const posted = await waitFor(async () => (await rt.store.incidents.get(id))?.slack, 'posted');
    const worse = lagIncident('2026-11-29T10:06:40.000Z', { severity: 'critical', summary: 'now 20 min behind' });
    await change(rt, QID(1), 'updated', worse);
    await waitFor(async () => slack!.messages('C0DATAALRT').find((m) => m.ts === posted.ts)?.text.includes('20 min'), 'updated in place');
    const resolved = { ...worse, resolvedAt: '2026-11-29T10:40:00.000Z', resolvedAtBatchId: 300 };
    await change(rt, QID(1), 'resolved', resolved);
    await waitFor(async () => slack!.thread('C0DATAALRT', posted.ts).some((m) => m.text.startsWith('Resolved after')), 'resolve reply');
    // A replayed notify job (same version) changes nothing.
    await waitFor(() => idle(rt), 'idle');
    await rt.queues.notify.add('refresh', { kind: 'refresh', incidentId: id, committedAt: Date.now() });
    await waitFor(() => idle(rt), 'idle');
    const record = (await rt.store.incidents.get(id))!;
    expect(slack!.messages('C0DATAALRT').filter((m) => keyOf(m) === id)).toHaveLength(1);
    // The alert, its escalation (warning → critical), the resolve reply.
    expect(slack!.thread('C0DATAALRT', posted.ts)).toHaveLength(3);
    expect(record).toMatchObject({ state: 'resolved', notifiedVersion: record.version });
    expect(await rt.store.incidents.countOpen()).toBe(0);
  });

  it('a relapse re-opens the same message, says so in the thread, and its second resolution gets its own reply', async () => {
    const rt = await setup();
    const opened = lagIncident('2026-11-29T10:06:40.000Z');
    const id = await change(rt, QID(3), 'opened', opened);
    const posted = await waitFor(async () => (await rt.store.incidents.get(id))?.slack, 'posted');
    await change(rt, QID(3), 'resolved', { ...opened, resolvedAt: '2026-11-29T10:40:00.000Z', resolvedAtBatchId: 300 });
    await waitFor(async () => slack!.thread('C0DATAALRT', posted.ts).length === 2, 'first resolve reply');
    // The engine re-opens it in its cool-down: an update of the same incident, open again.
    const back = { ...opened, relapses: 1, relapsedAt: '2026-11-29T10:52:00.000Z', summary: 'Falling behind again: 4m of data waiting' };
    await change(rt, QID(3), 'updated', back);
    await waitFor(async () => slack!.thread('C0DATAALRT', posted.ts).some((m) => /Back/.test(m.text)), 'relapse line');
    expect((await rt.store.incidents.get(id))!.state).toBe('open');
    const root = slack!.messages('C0DATAALRT').find((m) => m.ts === posted.ts)!;
    expect(root.text).toMatch(/Falling behind again/);
    await change(rt, QID(3), 'resolved', { ...back, resolvedAt: '2026-11-29T11:10:00.000Z', resolvedAtBatchId: 420 });
    await waitFor(async () => slack!.thread('C0DATAALRT', posted.ts).filter((m) => /Resolved/.test(m.text)).length === 2, 'second resolve reply');
    await waitFor(() => idle(rt), 'idle');
    // One alert for the whole episode: the same root message throughout.
    expect(slack!.messages('C0DATAALRT').filter((m) => keyOf(m) === id)).toHaveLength(1);
    expect(slack!.thread('C0DATAALRT', posted.ts)).toHaveLength(4);
  });

  it('links a catch-up to the alert of the stall it follows', async () => {
    const rt = await setup();
    const stallOpenedAt = '2026-11-29T10:00:00.000Z';
    const stall = await change(rt, QID(60), 'opened', lagIncident(stallOpenedAt, { kind: 'stalled', summary: 'No progress for 12m' }));
    const stallRef = await waitFor(async () => (await rt.store.incidents.get(stall))?.slack, 'the stall alert');
    const catchUp = lagIncident('2026-11-29T10:41:00.000Z', {
      summary: 'Catching up after a 40m stall: 9m of data waiting, about 7m to drain',
      aftermath: { what: 'stall', startedAt: '2026-11-29T09:58:00.000Z', durationMs: 2_400_000, stallOpenedAt },
    });
    const id = await change(rt, QID(60), 'opened', catchUp);
    const ref = await waitFor(async () => (await rt.store.incidents.get(id))?.slack, 'the catch-up alert');
    const shown = JSON.stringify(slack!.messages('C0DATAALRT').find((m) => m.ts === ref.ts)!.blocks);
    expect(shown).toContain(`/archives/${stallRef.channel}/p${stallRef.ts.replace('.', '')}|stall alert>`);
  });

  it('keeps a silenced opening quiet', async () => {
    const rt = await setup();
    await rt.store.silences.silence(QID(2), Date.now() + 60_000, 'U0MARIA001');
    const id = await change(rt, QID(2), 'opened');
    await waitFor(async () => (await rt.store.incidents.get(id))?.notifiedVersion === 1, 'handled');
    expect(slack!.messages('C0DATAALRT')).toHaveLength(0);
  });

  it('spaces new messages in one channel about a second apart', async () => {
    const rt = await setup();
    for (let i = 10; i < 13; i++) await change(rt, QID(i), 'opened');
    await waitFor(() => slack!.messages('C0DATAALRT').length === 3, 'three posts', 15_000);
    const ts = slack!.messages('C0DATAALRT').map((m) => Number(m.ts) * 1000).sort((a, b) => a - b);
    // Slots are taken 1 s apart; local Slack stamps each post on arrival, which a busy
    // process can delay for the first post more than for the next.
    expect(ts[1]! - ts[0]!).toBeGreaterThanOrEqual(750);
    expect(ts[2]! - ts[1]!).toBeGreaterThanOrEqual(750);
  });

  it('turns Slack 429 into a delayed job and drops nothing', async () => {
    // Our own spacing off, Slack allows one message then one per second: most posts meet a 429.
    const rt = await setup({ rateLimit: { perSecond: 1, burst: 0 }, channelIntervalMs: 1 });
    const ids: string[] = [];
    for (let i = 20; i < 24; i++) ids.push(await change(rt, QID(i), 'opened'));
    await waitFor(() => slack!.messages('C0DATAALRT').length === 4, 'all four posted', 25_000);
    await waitFor(() => idle(rt), 'idle');
    expect(slack!.messages('C0DATAALRT').map(keyOf).sort()).toEqual([...ids].sort());
    const limited = await rt.metrics.registry.getSingleMetric('streamdoctor_slack_rate_limited_total')!.get();
    expect(limited.values[0]!.value).toBeGreaterThan(0);
    const failed = await rt.queues.notify.getFailedCount();
    expect(failed).toBe(0);
  }, 40_000);

  it('groups an alert storm into one message and updates it as members change', async () => {
    const rt = await setup({ storm: { windowMs: 30_000, threshold: 3 } });
    const ids: string[] = [];
    for (let i = 30; i < 38; i++) ids.push(await change(rt, QID(i), 'opened'));
    await waitFor(async () => (await idle(rt)) && slack!.messages('C0DATAALRT').some((m) => String(keyOf(m)).startsWith('group.')), 'storm handled', 20_000);
    const messages = slack!.messages('C0DATAALRT');
    // Openings before the storm post on their own (fewer than the threshold); every later one, and
    // any still waiting for its channel slot, shares one grouped message.
    const singles = messages.filter((m) => !String(keyOf(m)).startsWith('group.'));
    const groups = messages.filter((m) => String(keyOf(m)).startsWith('group.'));
    expect(groups).toHaveLength(1);
    expect(singles.length).toBeLessThan(3);
    const group = groups[0]!;
    const records = await rt.store.incidents.getMany(ids);
    const members = records.filter((r) => r.groupId !== null);
    expect(members.length + singles.length).toBe(ids.length);
    expect(new Set(members.map((r) => r.groupId)).size).toBe(1);
    expect(members.every((r) => r.slack?.ts === group.ts)).toBe(true);
    expect(JSON.stringify(group.blocks)).toContain(`+${members.length - 1} more`);
    expect(JSON.stringify(group.blocks)).toContain(`Also affected (${members.length - 1})`);

    const resolved = { ...lagIncident('2026-11-29T10:06:40.000Z'), resolvedAt: '2026-11-29T10:30:00.000Z', resolvedAtBatchId: 99 };
    await change(rt, members[1]!.queryId, 'resolved', resolved);
    await waitFor(async () => slack!.messages('C0DATAALRT').find((m) => m.ts === group.ts)?.edited, 'group message updated', 10_000);
    await waitFor(() => idle(rt), 'idle');
    expect(slack!.messages('C0DATAALRT')).toHaveLength(messages.length);
  });

  it('a silence on a grouped alert shows in the group message and is told once in its thread', async () => {
    const rt = await setup({ storm: { windowMs: 30_000, threshold: 2 } });
    const ids: string[] = [];
    for (let i = 100; i < 104; i++) ids.push(await change(rt, QID(i), 'opened'));
    await waitFor(async () => (await idle(rt)) && slack!.messages('C0DATAALRT').some((m) => String(keyOf(m)).startsWith('group.')), 'storm handled', 10_000);
    const group = slack!.messages('C0DATAALRT').find((m) => String(keyOf(m)).startsWith('group.'))!;
    const lead = (await rt.store.incidents.getMany(ids)).find((r) => r.groupId && JSON.stringify(group.blocks).includes(`incident:${r.id}`))!;
    // What the message's Silence menu does (silenceStream): store the silence, ask notify for a refresh with a note.
    const nowMs = Date.now();
    const untilMs = nowMs + 3_600_000;
    await rt.store.silences.silence(lead.queryId, untilMs, 'U0MARIA001', nowMs);
    await requestRefresh(rt.queues, lead.id, 'silence', nowMs, { nowMs, note: { kind: 'silence', userId: 'U0MARIA001', atMs: nowMs, untilMs } });
    const shown = () => JSON.stringify(slack!.messages('C0DATAALRT').find((m) => m.ts === group.ts)?.blocks);
    await waitFor(async () => (await idle(rt)) && shown().includes('Unsilence'), 'group shows the silence', 10_000);
    expect(shown()).toContain('🔕 Silenced until');
    expect(shown()).not.toContain('Silence…');
    const notes = slack!.thread('C0DATAALRT', group.ts).filter((m) => m.ts !== group.ts && /Silenced .*for/.test(m.text));
    expect(notes).toHaveLength(1);
    // The thread is every member's: the note names the stream, not "this stream".
    const name = (await rt.store.streams.get(lead.queryId))?.name || lead.queryName || lead.queryId;
    expect(JSON.stringify(notes[0]!.blocks)).toContain(`silenced \`${name}\` for`);
    expect(await rt.queues.notify.getFailedCount()).toBe(0);
  });

  it('posts with the channel spacing turned off (channelIntervalMs 0)', async () => {
    // Redis refuses a zero expiry; the poster must not try to take a slot at all.
    const rt = await setup({ channelIntervalMs: 0 });
    const ids: string[] = [];
    for (let i = 40; i < 43; i++) ids.push(await change(rt, QID(i), 'opened'));
    await waitFor(() => slack!.messages('C0DATAALRT').length === 3, 'three posts', 10_000);
    await waitFor(() => idle(rt), 'idle');
    expect(slack!.messages('C0DATAALRT').map(keyOf).sort()).toEqual([...ids].sort());
    expect(await rt.queues.notify.getFailedCount()).toBe(0);
    expect(await rt.redis.exists(rt.store.keys.channelPostSlot('C0DATAALRT'))).toBe(0);
  });

  it('posts a lone incident at once as its own message (default storm settings)', async () => {
    const rt = await setup({ storm: {} });
    const id = await change(rt, QID(50), 'opened');
    const posted = await waitFor(async () => (await rt.store.incidents.get(id))?.slack, 'posted', 5_000);
    await waitFor(() => idle(rt), 'idle');
    const messages = slack!.messages('C0DATAALRT');
    expect(messages).toHaveLength(1);
    expect(keyOf(messages[0]!)).toBe(id);
    expect(messages[0]!.ts).toBe(posted.ts);
    expect((await rt.store.incidents.get(id))!.groupId).toBeNull();
  });

  it('an outage of 10 openings in one channel is one message listing all 10, updated as they resolve', async () => {
    const rt = await setup({ storm: {} });
    const queries = Array.from({ length: 10 }, (_, k) => QID(60 + k));
    const names = queries.map((q) => `orders_${q.slice(-2)}`);
    // The first opening is posted on its own right away; the other nine follow within the window,
    // in two poll cycles, and fold into that same message.
    const ids = [await change(rt, queries[0]!, 'opened')];
    const first = await waitFor(async () => (await rt.store.incidents.get(ids[0]!))?.slack, 'first posted', 5_000);
    for (const q of queries.slice(1, 5)) ids.push(await change(rt, q, 'opened'));
    await new Promise((r) => setTimeout(r, 400));
    for (const q of queries.slice(5)) ids.push(await change(rt, q, 'opened'));
    const listsAll = (m: { blocks?: unknown } | undefined) => m !== undefined && names.every((n) => JSON.stringify(m.blocks).includes(n));
    await waitFor(async () => (await idle(rt)) && listsAll(slack!.messages('C0DATAALRT').find((m) => m.ts === first.ts)), 'one message lists all ten', 15_000);
    const top = slack!.messages('C0DATAALRT');
    expect(top).toHaveLength(1);
    expect(top[0]!.ts).toBe(first.ts);
    expect(String(keyOf(top[0]!))).toMatch(/^group\./);
    expect(JSON.stringify(top[0]!.blocks)).toContain('Also affected (9)');
    const records = await rt.store.incidents.getMany(ids);
    expect(new Set(records.map((r) => r.groupId)).size).toBe(1);
    expect(records.every((r) => r.groupId !== null && r.slack?.ts === first.ts)).toBe(true);
    const group = (await rt.store.storms.get('C0DATAALRT', records[0]!.groupId!))!;
    expect(group.anchorId).toBe(ids[0]);
    expect([...group.incidentIds].sort()).toEqual([...ids].sort());

    // They resolve one after another: the same message shows it, nothing new is posted.
    for (const q of queries) {
      const resolved = { ...lagIncident('2026-11-29T10:06:40.000Z'), resolvedAt: '2026-11-29T10:30:00.000Z', resolvedAtBatchId: 99 };
      await change(rt, q, 'resolved', resolved);
    }
    const allResolved = (m: { blocks?: unknown } | undefined) => m !== undefined && JSON.stringify(m.blocks).split('(resolved)').length - 1 === 9 && JSON.stringify(m.blocks).includes('Resolved: ');
    await waitFor(async () => (await idle(rt)) && allResolved(slack!.messages('C0DATAALRT').find((m) => m.ts === first.ts)), 'group shows all resolved', 15_000);
    expect(slack!.messages('C0DATAALRT')).toHaveLength(1);
    expect((await rt.store.incidents.getMany(ids)).every((r) => r.state === 'resolved')).toBe(true);
    expect(await rt.queues.notify.getFailedCount()).toBe(0);
  }, 40_000);

  it('openings committed all at once also end up in one message', async () => {
    const rt = await setup({ storm: {} });
    const ids: string[] = [];
    for (let i = 80; i < 90; i++) ids.push(await change(rt, QID(i), 'opened'));
    await waitFor(async () => (await idle(rt)) && (await rt.store.incidents.getMany(ids)).every((r) => r.slack), 'all shown', 15_000);
    const top = slack!.messages('C0DATAALRT');
    expect(top).toHaveLength(1);
    expect(JSON.stringify(top[0]!.blocks)).toContain('Also affected (9)');
    expect((await rt.store.incidents.getMany(ids)).every((r) => r.slack?.ts === top[0]!.ts)).toBe(true);
  });

  it('a first post interrupted before its ts was recorded is adopted by the group, not posted again', async () => {
    const rt = await setup({ storm: {} });
    const chat = new WebClientChat({ token: 'xoxb-local-streamdoctor', slackApiUrl: slack!.apiUrl });
    // Incident A was classified and posted by a worker that died before it recorded the ts: its claim
    // is left, its message exists, its notify job has not run again yet.
    const a = QID(91);
    const current = await rt.store.queries.loadForDetect(a);
    await rt.store.streams.upsert({ queryId: a, name: 'orders_91' });
    await rt.store.queries.commitDetect(a, {
      expectedVersion: current.stateVersion, state: {}, lastSeq: current.lastSeq, snapshot: null, health: 'warning', name: null,
      lastRunId: null, lastBatchId: null, lastObservedAt: null, timeBehindSec: null,
      changes: [{ type: 'opened', queryId: a, queryName: 'orders_91', incident: lagIncident('2026-11-29T10:06:40.000Z') }], nowMs: Date.now(),
    });
    const idA = incidentIdOf(a, lagIncident('2026-11-29T10:06:40.000Z'));
    await rt.store.incidents.assignChannel((await rt.store.incidents.get(idA))!, 'C0DATAALRT', Date.now());
    await rt.store.storms.classify('C0DATAALRT', idA, Date.now());
    await rt.redis.set(rt.store.keys.messageClaim('C0DATAALRT', idA), `${Date.now() - 1000}|`, 'PX', 60_000);
    const lost = await chat.postMessage({ channel: 'C0DATAALRT', key: idA, text: 'Lag · orders_91' });

    // B opens: the group forms, takes A's message over (adopting it), and lists both.
    const idB = await change(rt, QID(92), 'opened');
    await waitFor(async () => (await idle(rt)) && JSON.stringify(slack!.messages('C0DATAALRT')[0]?.blocks ?? '').includes('Also affected (1)'), 'group shown', 10_000);
    const { drainOutbox } = await import('../../jobs/notify-intents.js');
    await drainOutbox(rt.store, rt.queues, a, Date.now());
    await waitFor(async () => (await rt.store.incidents.get(idA))?.notifiedVersion === 1 && (await idle(rt)), 'A handled', 10_000);
    const top = slack!.messages('C0DATAALRT');
    expect(top).toHaveLength(1);
    expect(top[0]!.ts).toBe(lost.ts);
    const records = await rt.store.incidents.getMany([idA, idB]);
    expect(records.map((r) => r.slack?.ts)).toEqual([lost.ts, lost.ts]);
    expect(await rt.redis.exists(rt.store.keys.messageClaim('C0DATAALRT', idA))).toBe(0);
  });
});
