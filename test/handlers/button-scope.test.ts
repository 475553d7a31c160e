/**
 * Buttons that change a stream follow the commands' channel scope, judged when clicked: an alert
 * stays in the channel it was posted in after `/stream watch` moves its stream, and a Home can be
 * hours old, so the click is judged against where the stream alerts now (clicked there, or a member
 * of it). A refusal is ephemeral and names neither a stream nor a channel the clicker may not see.
 * Real app, local Slack over HTTP, real Redis.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import { DEFAULT_BOT, DEFAULT_USERS } from '../../src/standins/slack/index.js';
import type { WorkspaceChannel } from '../../src/standins/slack/types.js';
import { CHANNEL, DEV, MARIA, startHarness, type Harness } from './helpers/harness.js';
import { postAlert, seedScenario, type SeededStream } from './helpers/seed.js';

const STREAMING = 'C0STREAMNG';
const PAYMENTS = 'G0PAYMENTS';
const OPS = 'G0OPSPRIV1';
const BOT = DEFAULT_BOT.userId;
// Dev is in #data-alerts and private #ops only; Maria is everywhere; #streaming is public.
const CHANNELS: WorkspaceChannel[] = [
  { id: CHANNEL, name: 'data-alerts', members: [MARIA, DEV, BOT] },
  { id: STREAMING, name: 'streaming', members: [MARIA, BOT] },
  { id: PAYMENTS, name: 'payments', members: [MARIA, BOT], isPrivate: true },
  { id: OPS, name: 'ops', members: [MARIA, DEV, BOT], isPrivate: true },
];
const DAY_MS = 24 * 3_600_000;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const text = (json: unknown) => JSON.stringify(json);

async function run(command: string, user: string, channel = CHANNEL): Promise<{ response_type?: string; text: string }> {
  const outcome = await h!.slack.interactions.slashCommand({ user, channel, text: command });
  const record = await h!.until(() => h!.slack.responses().find((r) => r.url === outcome.responseUrl && r.responses.length > 0));
  return record.responses[0] as { response_type?: string; text: string };
}

/** A stream alerting in #data-alerts with an open incident's alert posted there. */
async function alertedStream(name: string): Promise<{ stream: SeededStream; incidentId: string; ts: string }> {
  let nowMs = 0;
  h = await startHarness({ now: () => nowMs, slack: { channels: CHANNELS, users: DEFAULT_USERS } });
  const stream = await seedScenario(h.store, 'kafka-uncapped-overload-12pct', { name });
  nowMs = stream.nowMs;
  await h.store.routing.setRoute('query', stream.queryId, CHANNEL);
  const open = stream.incidents.find((record) => record.state === 'open') ?? stream.incidents[0]!;
  const { ts } = await postAlert(h.client, h.deps, open, CHANNEL);
  return { stream, incidentId: open.id, ts };
}

async function click(user: string, ts: string, actionId: string, selected?: string): Promise<void> {
  const outcome = await h!.slack.interactions.messageAction({ user, channel: CHANNEL, messageTs: ts, actionId, ...(selected ? { selected } : {}) });
  expect(outcome.delivery.status).toBe(200);
}

/** The newest ephemeral answer to a click (not a command's echo or reply) that contains `part`. */
function answerTo(user: string, part: string) {
  return h!.until(() => h!.slack.ephemerals(CHANNEL, user).filter((e) => e.source !== 'command_echo' && e.text.includes(part)).at(-1));
}

describe('alert buttons after the stream moved', () => {
  it('to a private channel the clicker is not in: every changing button is refused without naming it; a member may still', async () => {
    const { stream, incidentId, ts } = await alertedStream('payments_ledger');
    const moved = await run(`watch ${stream.name} <#${PAYMENTS}|payments>`, MARIA);
    expect(moved.response_type).toBe('in_channel');
    // The command path already refuses Dev: the stream reads as missing.
    expect((await run(`mute ${stream.name} 24h`, DEV)).text).toContain('No stream called');

    await click(DEV, ts, ACTION_IDS.silence, String(DAY_MS));
    await click(DEV, ts, ACTION_IDS.acknowledge);
    const refusals = await h!.until(() => {
      const found = h!.slack.ephemerals(CHANNEL, DEV).filter((e) => e.text.includes('alerts in another channel now'));
      return found.length === 2 ? found : undefined;
    });
    expect(refusals.map((e) => e.text).sort()).toEqual([
      'This stream alerts in another channel now, one you are not a member of; only its members may acknowledge it from another channel, so nothing changed.',
      'This stream alerts in another channel now, one you are not a member of; only its members may silence it from another channel, so nothing changed.',
    ]);
    for (const refusal of refusals) {
      expect(refusal.source).toBe('response_url'); // ephemeral, never a channel post
      expect(text(refusal)).not.toMatch(/payments/i);
      expect(text(refusal)).not.toContain(PAYMENTS);
    }
    expect(await h!.store.silences.isSilenced(stream.queryId)).toBe(false);
    expect((await h!.store.incidents.get(incidentId))?.acknowledgedBy).toBeNull();

    // Maria is in #payments: the old alert's buttons still work for her.
    await click(MARIA, ts, ACTION_IDS.silence, String(DAY_MS));
    await click(MARIA, ts, ACTION_IDS.acknowledge);
    await h!.until(async () => (await h!.store.silences.isSilenced(stream.queryId)) && (await h!.store.incidents.get(incidentId))?.acknowledgedBy === MARIA);
    // The alert now offers Unsilence and Unacknowledge; Dev may use neither.
    await h!.until(() => {
      const blocks = text(h!.slack.messages(CHANNEL).find((m) => m.ts === ts)?.blocks);
      return blocks.includes(ACTION_IDS.unsilence) && blocks.includes(ACTION_IDS.unacknowledge);
    });
    await click(DEV, ts, ACTION_IDS.unsilence);
    await click(DEV, ts, ACTION_IDS.unacknowledge);
    await answerTo(DEV, 'only its members may unsilence it');
    await answerTo(DEV, 'only its members may unacknowledge it');
    expect(await h!.store.silences.isSilenced(stream.queryId)).toBe(true);
    expect((await h!.store.incidents.get(incidentId))?.acknowledgedBy).toBe(MARIA);
  });

  it('to a public channel the clicker is not in: the refusal names both, as the command does', async () => {
    const { stream, ts } = await alertedStream('orders_enriched');
    await run(`watch ${stream.name} <#${STREAMING}|streaming>`, MARIA);
    await click(DEV, ts, ACTION_IDS.silence, String(2 * 3_600_000));
    const refusal = await answerTo(DEV, 'nothing changed');
    expect(refusal.text).toBe(`\`orders_enriched\` alerts in <#${STREAMING}> now, and only its members may silence it from another channel; nothing changed. Join <#${STREAMING}> or ask someone there.`);
    expect(await h!.store.silences.isSilenced(stream.queryId)).toBe(false);
  });

  it('to a channel the clicker is in: the button still works from the old alert', async () => {
    const { stream, ts } = await alertedStream('orders_enriched');
    await run(`watch ${stream.name} <#${OPS}|ops>`, MARIA);
    await click(DEV, ts, ACTION_IDS.silence, String(2 * 3_600_000));
    await answerTo(DEV, 'Silenced `orders_enriched`');
    expect(await h!.store.silences.isSilenced(stream.queryId)).toBe(true);
  });
});

describe('App Home Unsilence', () => {
  it('is judged at the click: after leaving the private channel, the silence stays and the notice does not name the stream', async () => {
    let nowMs = 0;
    const channels: WorkspaceChannel[] = CHANNELS.map((c) => (c.id === OPS ? { ...c, members: [...(c.members ?? [])] } : c));
    h = await startHarness({ now: () => nowMs, slack: { channels, users: DEFAULT_USERS } });
    const sensor = await seedScenario(h.store, 'kafka-partition-bound');
    nowMs = sensor.nowMs;
    await h.store.routing.setRoute('query', sensor.queryId, OPS);
    await h.store.silences.silence(sensor.queryId, nowMs + 8 * 3_600_000, MARIA, nowMs);
    await h.slack.interactions.openHome({ user: DEV });
    const home = await h.until(() => h!.slack.homeView(DEV));
    expect(text(home.blocks)).toContain('Silenced streams (1)');
    // Dev leaves #ops with the Home still open.
    const ops = h.slack.state.channel(OPS)!;
    ops.members = (ops.members ?? []).filter((member) => member !== DEV);
    await h.slack.interactions.viewAction({ user: DEV, viewId: home.id, actionId: ACTION_IDS.homeUnsilence });
    const after = await h.until(() => {
      const view = h!.slack.homeView(DEV);
      return view && text(view.blocks).includes('alerts in another channel now') ? view : undefined;
    });
    expect((after.blocks[1] as { elements: { text: string }[] }).elements[0]!.text).toBe(
      'This stream alerts in another channel now, one you are not a member of; only its members may unsilence it, so nothing changed.',
    );
    expect(text(after.blocks)).not.toContain(sensor.name);
    expect(await h.store.silences.isSilenced(sensor.queryId)).toBe(true);
  });
});
