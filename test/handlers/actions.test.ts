/**
 * Alert buttons clicked in the local Slack: the click reaches the app as a signed block_actions
 * request; results are read back from what the local Slack recorded and from the Redis store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import { renderIncidentMessage } from '../../src/slack/render/incident-message.js';
import { CHANNEL, DEV, MARIA, startHarness, type Harness } from './helpers/harness.js';
import { postAlert, seedScenario, type SeededStream } from './helpers/seed.js';

const RUN_URL = 'https://adb-1234567890123456.7.azuredatabricks.net/jobs/812/runs/99120';
let h: Harness;
let orders: SeededStream;
let alertTs = '';
let nowMs = 0;

const text = (json: unknown) => JSON.stringify(json);

function alert() {
  return h.slack.messages(CHANNEL).find((m) => m.ts === alertTs)!;
}

async function click(actionId: string, user: string, selected?: string, ts = alertTs) {
  const outcome = await h.slack.interactions.messageAction({ user, channel: CHANNEL, messageTs: ts, actionId, ...(selected ? { selected } : {}) });
  expect(outcome.delivery.status).toBe(200);
  expect(outcome.delivery.durationMs).toBeLessThan(3000);
  return outcome;
}

function ephemeralsFor(user: string) {
  return h.slack.ephemerals(CHANNEL, user).filter((e) => e.source !== 'command_echo');
}

beforeAll(async () => {
  h = await startHarness({ now: () => nowMs });
  orders = await seedScenario(h.store, 'kafka-uncapped-overload-12pct', { runPageUrl: RUN_URL });
  nowMs = orders.nowMs;
  await h.store.routing.setRoute('query', orders.queryId, CHANNEL);
  alertTs = (await postAlert(h.client, h.deps, orders.incidents[0]!, CHANNEL)).ts;
});

afterAll(async () => {
  await h?.close();
});

describe('alert buttons', () => {
  it('renders the engine incident with all four controls', () => {
    const ids = text(alert().blocks);
    for (const id of [ACTION_IDS.acknowledge, ACTION_IDS.silence, ACTION_IDS.tuningAdvice, ACTION_IDS.openDatabricks]) expect(ids).toContain(id);
    expect(ids).toContain(RUN_URL);
  });

  it('Acknowledge shows who and when in place, logs it in the thread, and refuses a second ack privately', async () => {
    const topLevel = h.slack.messages(CHANNEL).length;
    await click(ACTION_IDS.acknowledge, MARIA);
    await h.until(() => text(alert().blocks).includes(`Acknowledged by <@${MARIA}>`));
    expect(text(alert().blocks)).toContain(ACTION_IDS.unacknowledge);
    expect((await h.store.incidents.get(orders.incidents[0]!.id))!.acknowledgedBy).toBe(MARIA);
    await h.until(() => h.slack.thread(CHANNEL, alertTs).some((m) => m.text === 'Acknowledged'));
    // Stale click: Dev still sees the old message with Acknowledge; the refusal is ephemeral.
    const staleMessage = renderIncidentMessage(orders.incidents[0]!, { nowMs });
    const posted = await h.client.chat.postMessage({ channel: CHANNEL, text: staleMessage.text, blocks: staleMessage.blocks });
    await click(ACTION_IDS.acknowledge, DEV, undefined, posted.ts as string);
    const refusal = await h.until(() => ephemeralsFor(DEV).find((e) => e.text.includes('already acknowledged')));
    expect(refusal.text).toContain(`<@${MARIA}> already acknowledged`);
    expect(h.slack.messages(CHANNEL).length).toBe(topLevel + 1); // only the stale copy we posted ourselves
    await h.client.chat.delete({ channel: CHANNEL, ts: posted.ts as string });
  });

  it('Unacknowledge puts the Acknowledge button back', async () => {
    await click(ACTION_IDS.unacknowledge, MARIA);
    await h.until(() => text(alert().blocks).includes(ACTION_IDS.acknowledge) && !text(alert().blocks).includes('Acknowledged by'));
    expect((await h.store.incidents.get(orders.incidents[0]!.id))!.acknowledgedBy).toBeNull();
  });

  it('Silence ▾ silences the stream for the picked duration; Unsilence ends it', async () => {
    await click(ACTION_IDS.silence, DEV, String(8 * 3_600_000));
    await h.until(async () => (await h.store.silences.isSilenced(orders.queryId)) && text(alert().blocks).includes('🔕'));
    expect(await h.store.silences.get(orders.queryId)).toMatchObject({ byUser: DEV, untilMs: nowMs + 8 * 3_600_000 });
    const confirmation = await h.until(() => ephemeralsFor(DEV).find((e) => e.text.includes('Silenced')));
    expect(confirmation.text).toContain('for 8h');
    await h.until(() => h.slack.thread(CHANNEL, alertTs).some((m) => m.text.startsWith('Silenced for 8h')));
    await click(ACTION_IDS.unsilence, DEV);
    await h.until(async () => !(await h.store.silences.isSilenced(orders.queryId)) && text(alert().blocks).includes(ACTION_IDS.silence));
  });

  it('Tuning advice opens a modal with every cause and advice item; Share posts it in the thread', async () => {
    await click(ACTION_IDS.tuningAdvice, DEV);
    const modal = await h.until(() => h.slack.modals(DEV)[0]);
    const body = text(modal.blocks);
    for (const cause of orders.incidents[0]!.incident.causes) expect(body).toContain(cause.evidence.slice(0, 30).replace(/"/g, '\\"'));
    expect(body).toContain('*1.*');
    const before = h.slack.thread(CHANNEL, alertTs).length;
    const submitted = await h.slack.interactions.submitView({ user: DEV, viewId: modal.id });
    expect(submitted.delivery.status).toBe(200);
    const shared = await h.until(() => h.slack.thread(CHANNEL, alertTs).slice(before).find((m) => text(m.blocks).includes('Shared by')));
    expect(text(shared.blocks)).toContain('Tuning advice · orders_5min_agg');
  });

  it('Open in Databricks is acknowledged (a URL button still sends the click)', async () => {
    const outcome = await click(ACTION_IDS.openDatabricks, MARIA);
    expect(outcome.error).toBeUndefined();
  });

  it('a click on an incident that no longer exists gets a private reply, never a channel post', async () => {
    const ghost = { ...orders.incidents[0]!, id: `${orders.queryId}.lag.1000000000000` };
    const message = renderIncidentMessage(ghost, { nowMs });
    const posted = await h.client.chat.postMessage({ channel: CHANNEL, text: message.text, blocks: message.blocks });
    const topLevel = h.slack.messages(CHANNEL).length;
    await click(ACTION_IDS.acknowledge, MARIA, undefined, posted.ts as string);
    const reply = await h.until(() => ephemeralsFor(MARIA).find((e) => e.text.includes('incident is gone')));
    expect(reply.text).toContain('Nothing to acknowledge');
    await click(ACTION_IDS.silence, MARIA, String(30 * 60_000), posted.ts as string);
    await h.until(() => ephemeralsFor(MARIA).find((e) => e.text.includes('nothing was silenced')));
    expect(h.slack.messages(CHANNEL).length).toBe(topLevel);
  });

  it('a silence not allowed by the policy gets a private refusal', async () => {
    const restricted = await startHarness({ policy: { userGroups: ['S0ONCALL1'] }, now: () => nowMs });
    try {
      const stream = await seedScenario(restricted.store, 'kafka-uncapped-overload-12pct');
      const ts = (await postAlert(restricted.client, restricted.deps, stream.incidents[0]!, CHANNEL)).ts;
      await restricted.slack.interactions.messageAction({ user: DEV, channel: CHANNEL, messageTs: ts, actionId: ACTION_IDS.silence, selected: String(30 * 60_000) });
      const refusal = await restricted.until(() => restricted.slack.ephemerals(CHANNEL, DEV).find((e) => e.text.includes('may mute')));
      expect(refusal.text).toContain('<!subteam^S0ONCALL1>');
      expect(await restricted.store.silences.isSilenced(stream.queryId)).toBe(false);
    } finally {
      await restricted.close();
    }
  });
});
