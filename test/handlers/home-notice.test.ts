/**
 * The App Home notice (the result of a Home button) is mrkdwn escaped once, where its text is built:
 * a stream called `orders & refunds` reads so, and the policy's user group is a live mention.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import { CHANNEL, DEV, MARIA, startHarness, type Harness } from './helpers/harness.js';
import { seedScenario } from './helpers/seed.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const text = (json: unknown) => JSON.stringify(json);

/** Clicks Unsilence on the person's Home and returns the notice of the Home published after. */
async function unsilenceFromHome(user: string): Promise<string> {
  await h!.slack.interactions.openHome({ user });
  const home = await h!.until(() => h!.slack.homeView(user));
  expect(text(home.blocks)).toContain(ACTION_IDS.homeUnsilence);
  await h!.slack.interactions.viewAction({ user, viewId: home.id, actionId: ACTION_IDS.homeUnsilence });
  const after = await h!.until(() => {
    const view = h!.slack.homeView(user);
    return view && view.hash !== home.hash ? view : undefined;
  });
  return (after.blocks[1] as { elements: { text: string }[] }).elements[0]!.text;
}

describe('App Home notice', () => {
  it('escapes a stream name once and keeps the user-group mention of a refusal live', async () => {
    let nowMs = 0;
    h = await startHarness({ now: () => nowMs, policy: { users: [MARIA], userGroups: ['S0ONCALL1'] } });
    const s = await seedScenario(h.store, 'kafka-partition-bound', { name: 'orders & refunds' });
    nowMs = s.nowMs;
    await h.store.routing.setRoute('query', s.queryId, CHANNEL);
    await h.store.silences.silence(s.queryId, nowMs + 3_600_000, MARIA, nowMs);

    expect(await unsilenceFromHome(DEV)).toBe(`Only <@${MARIA}>, <!subteam^S0ONCALL1> may unmute streams here; ask one of them.`);
    const done = await unsilenceFromHome(MARIA);
    expect(done).toMatch(/^🔔 `orders &amp; refunds` is no longer silenced/);
    expect(done).not.toContain('&amp;amp;');
  });
});
