/**
 * Alert storms as a unit (jobs/storm-grouping.ts) on real Redis and the local Slack: openings below
 * the threshold stand alone; the one that reaches it forms a group whose anchor is the earliest
 * opening with a message of its own; the group's message takes that message over (no second
 * top-level message) and leads with a critical member; renders of one burst are one debounced job.
 * Each stream's silence shows where the stream does (the lead's in the message's own line and
 * button, the others' in the list), and a person's note goes to the group's thread.
 */
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { blockKitRenderer } from '../../jobs/notify-renderer.js';
import { PipelineQueues } from '../../jobs/queues.js';
import { createStormGrouping, type StormGrouping } from '../../jobs/storm-grouping.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { MessagePoster } from '../../src/slack/gateway/message-poster.js';
import { WebClientChat } from '../../src/slack/gateway/slack-chat.js';
import { startLocalSlack, type LocalSlack } from '../../src/standins/slack/index.js';
import { incidentIdOf, RedisStore } from '../../src/store/index.js';
import { lagIncident } from '../store/fixtures.js';
import { deletePrefix, REDIS_URL, uniquePrefix } from '../pipeline/helpers/harness.js';
import { testRedis } from '../helpers/redis.js';

const CHANNEL = 'C0DATAALRT';
const QID = (i: number) => `5e0c9a1b-2d3f-4a5b-8c6d-${String(i).padStart(12, '0')}`;

let redis: Redis;
let slack: LocalSlack;
let store: RedisStore;
let queues: PipelineQueues;
let poster: MessagePoster;
let storms: StormGrouping;
let prefixes: { prefix: string; queuePrefix: string };

beforeEach(async () => {
  prefixes = uniquePrefix('storm');
  redis = testRedis();
  slack = await startLocalSlack({ rateLimit: false });
  store = new RedisStore({ redis, prefix: prefixes.prefix, storm: { windowMs: 30_000, threshold: 3 } });
  queues = new PipelineQueues({ connection: redis, prefix: prefixes.queuePrefix });
  poster = new MessagePoster({ redis, keys: store.keys, chat: new WebClientChat({ token: 'xoxb-local-streamdoctor', slackApiUrl: slack.apiUrl }), channelIntervalMs: 0 });
  storms = createStormGrouping({ store, queues, poster, renderer: blockKitRenderer, metrics: createMetrics({ processMetrics: false }), groupDebounceMs: 60_000 });
});

afterEach(async () => {
  await queues.close();
  await slack.close();
  await deletePrefix(REDIS_URL, prefixes.prefix);
  redis.disconnect();
});

/** An opened incident of query `i`, committed as detect does. */
async function opened(i: number, severity: 'warning' | 'critical' = 'warning'): Promise<string> {
  const incident = lagIncident('2026-11-29T10:06:40.000Z', { severity, summary: `orders_${i} is behind` });
  await store.streams.upsert({ queryId: QID(i), name: `orders_${i}` });
  await store.queries.commitChanges(QID(i), [{ type: 'opened', queryId: QID(i), queryName: `orders_${i}`, incident }]);
  return incidentIdOf(QID(i), incident);
}

describe('storm grouping', () => {
  it('groups the openings that reach the threshold, anchored on the first one that has a message', async () => {
    const nowMs = Date.now();
    const first = await opened(1);
    expect(await storms.placeOpening(CHANNEL, first, nowMs)).toBeNull();
    // The first opening is posted at once, on its own.
    const own = await poster.postOrUpdate(CHANNEL, first, () => ({ text: 'orders_1 is behind' }));
    const second = await opened(2);
    expect(await storms.placeOpening(CHANNEL, second, nowMs + 1_000)).toBeNull();
    const third = await opened(3, 'critical');
    const groupId = await storms.placeOpening(CHANNEL, third, nowMs + 2_000);
    expect(groupId).toMatch(/^storm-/);

    const group = (await store.storms.get(CHANNEL, groupId!))!;
    expect(group.anchorId).toBe(first);
    expect([...group.incidentIds].sort()).toEqual([first, second, third].sort());
    for (const id of [first, second, third]) expect((await store.incidents.get(id))!.groupId).toBe(groupId);

    // The group's message is the anchor's message, leading with the critical member.
    expect(await storms.processGroup(CHANNEL, groupId!, nowMs)).toBe('updated');
    const top = slack.messages(CHANNEL);
    expect(top).toHaveLength(1);
    expect(top[0]!.ts).toBe(own.ts);
    expect(top[0]!.text).toContain('orders_3');
    for (const id of [first, second, third]) expect((await store.incidents.get(id))!.slack).toEqual({ channel: CHANNEL, ts: own.ts });
    expect((await store.storms.get(CHANNEL, groupId!))!.notifiedVersion).toBe(group.version);
  });

  it('renders a burst of changes with one debounced job', async () => {
    await storms.enqueueGroup(CHANNEL, 'storm-1');
    await storms.enqueueGroup(CHANNEL, 'storm-1');
    await storms.enqueueGroup(CHANNEL, 'storm-2');
    const delayed = await queues.notify.getJobs(['delayed']);
    expect(delayed.map((job) => (job.data as { groupId: string }).groupId).sort()).toEqual(['storm-1', 'storm-2']);
  });

  /** Three openings grouped behind the first one's message; the third, critical, leads. */
  async function groupOfThree(nowMs: number): Promise<{ groupId: string; ts: string }> {
    const first = await opened(1);
    await storms.placeOpening(CHANNEL, first, nowMs);
    const own = await poster.postOrUpdate(CHANNEL, first, () => ({ text: 'orders_1 is behind' }));
    await storms.placeOpening(CHANNEL, await opened(2), nowMs + 1_000);
    const groupId = (await storms.placeOpening(CHANNEL, await opened(3, 'critical'), nowMs + 2_000))!;
    return { groupId, ts: own.ts };
  }

  it('shows each stream’s silence where the stream shows: the lead’s in the message’s own line and button, the others’ in the list', async () => {
    const nowMs = Date.now();
    const { groupId, ts } = await groupOfThree(nowMs);
    const shown = () => JSON.stringify(slack.messages(CHANNEL).find((m) => m.ts === ts)!.blocks);

    // Only another member's stream is silenced: the list says so; the lead (orders_3) still alerts.
    await store.silences.silence(QID(1), nowMs + 3_600_000, 'U0MARIA001', nowMs);
    await storms.processGroup(CHANNEL, groupId, nowMs);
    expect(shown()).toContain('`orders_1`: Falling behind (🔕 silenced until');
    expect(shown()).toMatch(/`orders_2`: Falling behind(\\n|"|$)/);
    expect(shown()).toContain('Silence…');
    expect(shown()).not.toContain('Unsilence');

    // The lead's stream silenced (what the message's own menu does): the message shows it and offers to undo it.
    await store.silences.silence(QID(3), nowMs + 7_200_000, 'U0MARIA001', nowMs);
    await storms.processGroup(CHANNEL, groupId, nowMs);
    expect(shown()).toContain('🔕 Silenced until');
    expect(shown()).toContain('Unsilence');
    expect(shown()).not.toContain('Silence…');
    expect(slack.messages(CHANNEL)).toHaveLength(1);
  });

  it('tells a member’s note once in the group’s thread', async () => {
    const nowMs = Date.now();
    const { groupId, ts } = await groupOfThree(nowMs);
    await storms.processGroup(CHANNEL, groupId, nowMs);
    const note = () => ({ text: 'Silenced for 1h', blocks: [] });
    await storms.tellThread(CHANNEL, groupId, null, 'note.silence.1', note);
    await storms.tellThread(CHANNEL, groupId, null, 'note.silence.1', note); // a retried job
    expect(slack.thread(CHANNEL, ts).map((m) => m.text)).toEqual([expect.any(String), 'Silenced for 1h']);
  });

  it('says gone for a group that no longer exists', async () => {
    expect(await storms.processGroup(CHANNEL, 'storm-0', Date.now())).toBe('gone');
  });
});
