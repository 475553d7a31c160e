/**
 * App Home shows the person what concerns them: open incidents, silences and watches in channels
 * they are a member of (users.conversations on the local Slack, membership from its channel
 * members). When the lookup fails (the token lacks a scope), it shows nothing and says why.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_BOT, DEFAULT_USERS } from '../../src/standins/slack/index.js';
import type { WorkspaceChannel } from '../../src/standins/slack/types.js';
import { CHANNEL, DEV, MARIA, startHarness, type Harness } from './helpers/harness.js';
import { postAlert, seedScenario, type SeededStream } from './helpers/seed.js';

const STREAMING = 'C0STREAMNG';
const SAM = 'U0SAM00003';
const BOT = DEFAULT_BOT.userId;
// Dev is only in #data-alerts; Maria is in both; #old-alerts is archived.
const CHANNELS: WorkspaceChannel[] = [
  { id: CHANNEL, name: 'data-alerts', members: [MARIA, DEV, SAM, BOT] },
  { id: STREAMING, name: 'streaming', members: [MARIA, SAM, BOT] },
  { id: 'C0OLDALERT', name: 'old-alerts', members: [MARIA, DEV, BOT], isArchived: true },
];

let h: Harness | undefined;
const text = (json: unknown) => JSON.stringify(json);

afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function seed(harness: Harness): Promise<{ orders: SeededStream; sensor: SeededStream; healthy: SeededStream; nowMs: number }> {
  const orders = await seedScenario(harness.store, 'kafka-uncapped-overload-12pct');
  const sensor = await seedScenario(harness.store, 'kafka-partition-bound');
  const healthy = await seedScenario(harness.store, 'healthy-steady');
  const nowMs = Math.max(orders.nowMs, sensor.nowMs, healthy.nowMs);
  await harness.store.routing.setRoute('query', orders.queryId, CHANNEL);
  await harness.store.routing.setRoute('query', sensor.queryId, STREAMING);
  await harness.store.routing.setRoute('query', healthy.queryId, STREAMING);
  for (const record of orders.incidents) await postAlert(harness.client, harness.deps, record, CHANNEL);
  for (const record of sensor.incidents) await postAlert(harness.client, harness.deps, record, STREAMING);
  // Sensor is silenced (no open incident needed: its route puts it in #streaming).
  await harness.store.silences.silence(sensor.queryId, nowMs + 3_600_000, MARIA, nowMs);
  return { orders, sensor, healthy, nowMs };
}

async function homeOf(harness: Harness, user: string): Promise<string> {
  const before = harness.slack.homeView(user)?.hash;
  const outcome = await harness.slack.interactions.openHome({ user });
  expect(outcome.delivery.status).toBe(200);
  const view = await harness.until(() => {
    const v = harness.slack.homeView(user);
    return v && v.hash !== before ? v : undefined;
  });
  expect(view.blocks.length).toBeLessThanOrEqual(100);
  return text(view.blocks);
}

describe('App Home by channel membership', () => {
  it('shows each person the incidents, silences and watches of their channels only', async () => {
    let nowMs = 0;
    h = await startHarness({ now: () => nowMs, slack: { channels: CHANNELS } });
    const seeded = await seed(h);
    nowMs = seeded.nowMs;
    const open = await h.store.incidents.listOpen();
    const inAlerts = open.filter((r) => (r.slack?.channel ?? r.channel) === CHANNEL).length;
    expect(inAlerts).toBeGreaterThan(0);
    expect(open.length).toBeGreaterThan(inAlerts);

    const dev = await homeOf(h, DEV);
    expect(dev).toContain('Showing the channels you are a member of.');
    expect(dev).toContain(`Open incidents (${inAlerts})`);
    expect(dev).toContain(seeded.orders.name);
    expect(dev).not.toContain(seeded.sensor.name);
    expect(dev).toContain('Silenced streams (0)');
    expect(dev).toContain('Watches: streams, jobs and pipelines (1)');
    expect(dev).toContain(`query \`${seeded.orders.name}\` → <#${CHANNEL}>`);
    expect(dev).not.toContain(`<#${STREAMING}>`);

    const maria = await homeOf(h, MARIA);
    expect(maria).toContain(`Open incidents (${open.length})`);
    expect(maria).toContain(seeded.sensor.name);
    expect(maria).toContain(`🔕 \`${seeded.sensor.name}\` until`);
    expect(maria).toContain('Silenced streams (1)');
    expect(maria).toContain('Watches: streams, jobs and pipelines (3)');
  });

  it('a person in both channels sees the streams of both', async () => {
    let nowMs = 0;
    // Same workspace, but Dev is also in #streaming.
    const channels = CHANNELS.map((c) => (c.id === STREAMING ? { ...c, members: [...c.members!, DEV] } : c));
    h = await startHarness({ now: () => nowMs, slack: { channels } });
    const seeded = await seed(h);
    nowMs = seeded.nowMs;
    const dev = await homeOf(h, DEV);
    expect(dev).toContain(seeded.sensor.name);
    expect(dev).toContain('Watches: streams, jobs and pipelines (3)');
  });

  it('fails closed when users.conversations fails: says it cannot list, shows nothing of any channel', async () => {
    let nowMs = 0;
    // Installed without groups:read: Slack answers missing_scope for private channels.
    const bot = { ...DEFAULT_BOT, scopes: ['commands', 'chat:write', 'chat:write.public', 'channels:read', 'files:write', 'files:read'] };
    h = await startHarness({ now: () => nowMs, slack: { channels: CHANNELS, bots: [bot], users: DEFAULT_USERS } });
    const seeded = await seed(h);
    nowMs = seeded.nowMs;
    const dev = await homeOf(h, DEV);
    expect(dev).toContain('StreamDoctor cannot list the channels you are in (missing_scope), so it shows none of them here.');
    expect(dev).toContain('Open incidents (0)');
    expect(dev).not.toContain(seeded.sensor.name);
    expect(dev).not.toContain(seeded.orders.name);
    expect(dev).toContain('Silenced streams (0)');
    expect(dev).toContain('Watches: streams, jobs and pipelines (0)');
    expect(h.logLines.join('')).toContain('could not read the person');
  });

  it('matches routes the watch file writes by channel name (#data-alerts) to the person’s channels', async () => {
    let nowMs = 0;
    h = await startHarness({ now: () => nowMs, slack: { channels: CHANNELS } });
    const orders = await seedScenario(h.store, 'kafka-uncapped-overload-12pct');
    nowMs = orders.nowMs;
    // The watch file routes by name; the incident carries the name as its channel until it is posted.
    await h.store.routing.setRoute('query', orders.queryId, '#streaming');
    for (const record of orders.incidents) await h.store.incidents.assignChannel(record, '#streaming', nowMs);
    const open = (await h.store.incidents.listOpen()).filter((r) => r.queryId === orders.queryId);
    expect(open.length).toBeGreaterThan(0);
    const maria = await homeOf(h, MARIA);
    expect(maria).toContain(`Open incidents (${open.length})`);
    expect(maria).toContain('Watches: streams, jobs and pipelines (1)');
    const dev = await homeOf(h, DEV);
    expect(dev).toContain('Open incidents (0)');
  });
});
