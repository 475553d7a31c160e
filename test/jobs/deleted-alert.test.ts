/**
 * An alert message deleted in Slack: the next change of its incident posts the incident's current
 * state as a new message in the same channel, makes it the incident's message (later updates and
 * replies go to it) and carries on with the change, through the poster's claim (a retried re-post
 * is adopted, never posted twice). Also when the message goes between its update and a thread reply.
 * Real worker, real Redis, the local Slack over HTTP.
 */
import { webApi } from '@slack/bolt';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { IncidentChange } from '../../src/diagnosis/types.js';
import type { WorkerRuntime } from '../../src/runtime/pipeline-runtime.js';
import { startWorker } from '../../src/runtime/pipeline-runtime.js';
import { MessagePoster, ThreadGoneError } from '../../src/slack/gateway/message-poster.js';
import { WebClientChat, type ChatMessage, type SlackChat } from '../../src/slack/gateway/slack-chat.js';
import { startLocalSlack, type LocalSlack } from '../../src/standins/slack/index.js';
import { incidentIdOf } from '../../src/store/index.js';
import { StoreKeys } from '../../src/store/keys.js';
import { lagIncident } from '../store/fixtures.js';
import { commitAndDrain, deletePrefix, REDIS_URL, silentLogger, uniquePrefix, unusedTrackers, waitFor } from '../pipeline/helpers/harness.js';
import { testRedis } from '../helpers/redis.js';

const CHANNEL = 'C0DATAALRT';
const TOKEN = 'xoxb-local-streamdoctor';
const QID = '7a1c0f3e-5b2d-4c8e-9f10-00000000d001';
const OPENED = lagIncident('2026-11-29T10:06:40.000Z');
const WORSE = lagIncident('2026-11-29T10:06:40.000Z', { severity: 'critical', summary: 'now 2 h behind' });
const RESOLVED = { ...WORSE, resolvedAt: '2026-11-29T12:40:00.000Z', resolvedAtBatchId: 300 };

let runtime: WorkerRuntime | undefined;
let slack: LocalSlack | undefined;
let redis: Redis | undefined;
let prefix: string | undefined;

afterEach(async () => {
  await runtime?.close();
  await slack?.close();
  redis?.disconnect();
  if (prefix) await deletePrefix(REDIS_URL, prefix);
  runtime = slack = redis = prefix = undefined;
});

/** A worker on the local Slack; `wrap` may stand between notify and the Slack client. */
async function setup(wrap: (chat: SlackChat) => SlackChat = (chat) => chat): Promise<WorkerRuntime> {
  const p = uniquePrefix('deleted');
  prefix = p.prefix;
  slack = await startLocalSlack({ rateLimit: false });
  runtime = await startWorker({
    redisUrl: REDIS_URL,
    ...p,
    logger: silentLogger,
    sources: new Map(),
    trackers: unusedTrackers,
    chat: wrap(new WebClientChat({ token: TOKEN, slackApiUrl: slack.apiUrl })),
    routing: { defaultChannel: CHANNEL },
    channelIntervalMs: 0,
    store: { storm: { windowMs: 30_000, threshold: 100 } },
  });
  return runtime;
}

async function change(rt: WorkerRuntime, type: IncidentChange['type'], incident: IncidentChange['incident']): Promise<string> {
  await rt.store.streams.upsert({ queryId: QID, name: 'orders' });
  await commitAndDrain(rt, QID, [{ type, queryId: QID, queryName: 'orders', incident }], { health: type === 'resolved' ? 'ok' : 'warning' });
  return incidentIdOf(QID, incident);
}

/** Deletes a message as a person in Slack does (chat.delete). */
async function deleteInSlack(ts: string): Promise<void> {
  await new webApi.WebClient(TOKEN, { slackApiUrl: slack!.apiUrl }).chat.delete({ channel: CHANNEL, ts });
}

const keyOf = (m: { metadata?: unknown }) => (m.metadata as { event_payload?: { key?: string } } | undefined)?.event_payload?.key;

async function idle(rt: WorkerRuntime): Promise<boolean> {
  const d = await rt.queues.depths();
  return d.notify!.waiting + d.notify!.active + d.notify!.delayed === 0;
}

describe('an alert message deleted in Slack', () => {
  it('is posted anew by the next change, which becomes the message later changes update and reply under', async () => {
    const rt = await setup();
    const id = await change(rt, 'opened', OPENED);
    const first = await waitFor(async () => (await rt.store.incidents.get(id))?.slack, 'posted');
    await deleteInSlack(first.ts);

    await change(rt, 'updated', WORSE);
    const again = await waitFor(async () => {
      const slackRef = (await rt.store.incidents.get(id))?.slack;
      return slackRef && slackRef.ts !== first.ts ? slackRef : null;
    }, 'posted anew');
    expect(again.channel).toBe(CHANNEL);
    expect(slack!.messages(CHANNEL)).toHaveLength(1);
    expect(slack!.messages(CHANNEL)[0]).toMatchObject({ ts: again.ts, text: expect.stringContaining('now 2 h behind') });

    // The resolution updates the new message and replies in its thread.
    await change(rt, 'resolved', RESOLVED);
    await waitFor(async () => (await idle(rt)) && slack!.thread(CHANNEL, again.ts).some((m) => /Resolved/.test(m.text) && m.ts !== again.ts), 'resolve reply');
    const top = slack!.messages(CHANNEL);
    expect(top).toHaveLength(1);
    expect(keyOf(top[0]!)).toBe(id);
    expect(top[0]!.text).toMatch(/^🟢 Resolved: orders/);
    // The alert, the escalation it was posted anew for (the change being delivered), the resolve reply.
    expect(slack!.thread(CHANNEL, again.ts).map((m) => m.text)).toEqual([expect.stringMatching(/^🟢 Resolved/), expect.stringContaining('Escalated to critical'), expect.stringContaining('Resolved after')]);
    expect(await rt.store.incidents.get(id)).toMatchObject({ state: 'resolved', notifiedVersion: 3, slack: again });
    expect(await rt.queues.notify.getFailedCount()).toBe(0);
  });

  it('is posted anew when it goes between its update and the thread reply (thread_not_found)', async () => {
    // A person deletes the alert right after the resolving change updated it: the resolve reply meets
    // a thread that is gone.
    let deleteAfterUpdate = false;
    const rt = await setup((chat) => ({
      postMessage: (message: ChatMessage) => chat.postMessage(message),
      findPosted: (...args: Parameters<SlackChat['findPosted']>) => chat.findPosted(...args),
      async update(message: ChatMessage & { ts: string }) {
        await chat.update(message);
        if (deleteAfterUpdate) {
          deleteAfterUpdate = false;
          await deleteInSlack(message.ts);
        }
      },
    }));
    const id = await change(rt, 'opened', OPENED);
    const first = await waitFor(async () => (await rt.store.incidents.get(id))?.slack, 'posted');
    deleteAfterUpdate = true;
    await change(rt, 'resolved', { ...OPENED, resolvedAt: '2026-11-29T12:40:00.000Z', resolvedAtBatchId: 300 });
    await waitFor(async () => (await idle(rt)) && (await rt.store.incidents.get(id))?.notifiedVersion === 2, 'resolved');
    const again = (await rt.store.incidents.get(id))!.slack!;
    expect(again.ts).not.toBe(first.ts);
    expect(slack!.messages(CHANNEL).map((m) => m.ts)).toEqual([again.ts]);
    expect(slack!.thread(CHANNEL, again.ts).map((m) => m.text)).toEqual([expect.stringMatching(/^🟢 Resolved/), expect.stringMatching(/Resolved/)]);
    expect(await rt.queues.notify.getFailedCount()).toBe(0);
  });
});

describe('the poster, for a message deleted in Slack', () => {
  async function poster(afterPost?: () => void): Promise<{ poster: MessagePoster; keys: StoreKeys }> {
    prefix ??= uniquePrefix('deleted').prefix;
    slack ??= await startLocalSlack({ rateLimit: false });
    redis ??= testRedis();
    const keys = new StoreKeys(prefix);
    const chat = new WebClientChat({ token: TOKEN, slackApiUrl: slack.apiUrl });
    return { keys, poster: new MessagePoster({ redis, keys, chat, channelIntervalMs: 0, ...(afterPost ? { afterPost } : {}) }) };
  }

  it('adopts a re-post whose worker died before recording it, instead of posting it twice', async () => {
    const { poster: sound, keys } = await poster();
    const { poster: dying } = await poster(() => {
      throw new Error('worker killed');
    });
    const first = await sound.postOrUpdate(CHANNEL, 'inc-1', () => ({ text: 'Lag · orders' }));
    await deleteInSlack(first.ts);
    await expect(dying.postOrUpdate(CHANNEL, 'inc-1', () => ({ text: 'Lag · orders, critical' }))).rejects.toThrow('worker killed');
    // Notify aliases the incident's recorded (deleted) message before the retry posts.
    await sound.alias(CHANNEL, 'inc-1', first.ts);
    const retried = await sound.postOrUpdate(CHANNEL, 'inc-1', () => ({ text: 'Lag · orders, critical' }));
    expect(retried.action).toBe('adopted');
    expect(slack!.messages(CHANNEL).map((m) => m.ts)).toEqual([retried.ts]);
    expect(await sound.messageTs(CHANNEL, 'inc-1')).toBe(retried.ts);
    expect(await redis!.exists(keys.messageClaim(CHANNEL, 'inc-1'))).toBe(0);
  });

  it('refuses a reply under a deleted parent with ThreadGoneError, posting nothing and keeping no claim', async () => {
    const { poster: p, keys } = await poster();
    const parent = await p.postOrUpdate(CHANNEL, 'inc-2', () => ({ text: 'Lag · orders' }));
    await deleteInSlack(parent.ts);
    const reply = p.postOrUpdate(CHANNEL, 'inc-2.resolved', () => ({ text: 'Resolved', threadTs: parent.ts }));
    await expect(reply).rejects.toBeInstanceOf(ThreadGoneError);
    expect(await redis!.exists(keys.messageClaim(CHANNEL, 'inc-2.resolved'))).toBe(0);
    expect(slack!.messages(CHANNEL)).toHaveLength(0);
  });
});
