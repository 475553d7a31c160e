/** Requests into the app must carry Slack's signature: forged or stale ones are rejected unprocessed. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL, MARIA, startHarness, type Harness } from './helpers/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
});

describe('request verification', () => {
  it('answers a correctly signed command', async () => {
    const outcome = await h.slack.interactions.slashCommand({ user: MARIA, channel: CHANNEL, text: 'help' });
    expect(outcome.delivery.status).toBe(200);
    await h.until(() => h.slack.responses().find((r) => r.url === outcome.responseUrl && r.responses.length > 0));
  });

  it('rejects a forged signature and does nothing', async () => {
    const responsesBefore = h.slack.responses().filter((r) => r.responses.length > 0).length;
    const forged = await h.slack.interactions.slashCommand({ user: MARIA, channel: CHANNEL, text: 'help', sign: { signingSecret: 'not-the-secret' } });
    expect(forged.delivery.status).toBe(401);
    const garbage = await h.slack.interactions.slashCommand({ user: MARIA, channel: CHANNEL, text: 'help', sign: { signature: 'v0=deadbeef' } });
    expect(garbage.delivery.status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.slack.responses().filter((r) => r.responses.length > 0).length).toBe(responsesBefore);
  });

  it('rejects a timestamp older than 5 minutes even with a valid signature', async () => {
    const stale = await h.slack.interactions.slashCommand({ user: MARIA, channel: CHANNEL, text: 'help', sign: { timestampSec: Math.floor(Date.now() / 1000) - 6 * 60 } });
    expect(stale.delivery.status).toBe(401);
    const event = await h.slack.interactions.event({ type: 'app_home_opened', user: MARIA, tab: 'home', channel: 'D0MARIA001', event_ts: '1.000001' }, { timestampSec: Math.floor(Date.now() / 1000) - 301 - 60 });
    expect(event.delivery.status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.slack.homeView(MARIA)).toBeUndefined();
  });

  it('never logs the bot token or the signing secret', () => {
    const all = h.logLines.join('\n');
    expect(all).not.toContain('xoxb-local-streamdoctor');
    expect(all).not.toContain('local-signing-secret');
  });
});
