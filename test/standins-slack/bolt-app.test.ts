/**
 * The stand-in against a real @slack/bolt App (HTTP receiver on port 0, WebClient pointed at the
 * stand-in, token verification on): signed slash commands, button clicks, modals, App Home events,
 * and rejected forgeries.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, LogLevel } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalSlack, startLocalSlack } from '../../src/standins/slack/index.js';
import { ALERTS, LAG_ALERT, MARIA, TOKEN } from './helpers.js';

const SECRET = 'bolt-test-signing-secret';

let slack: LocalSlack;
let app: App;
let server: Server;
const seen: string[] = [];

beforeEach(async () => {
  seen.length = 0;
  slack = await startLocalSlack({ signingSecret: SECRET, rateLimit: false });
  app = new App({
    token: TOKEN,
    signingSecret: SECRET,
    tokenVerificationEnabled: true,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } },
  });
  app.command('/stream', async ({ command, ack, respond, client }) => {
    seen.push(`command:${command.text}`);
    if (command.text === 'status') {
      await ack();
      await respond({ response_type: 'ephemeral', text: 'All 3 streams healthy' });
    } else if (command.text === 'alert') {
      await ack();
      await client.chat.postMessage({ channel: command.channel_id, ...LAG_ALERT.open });
    } else if (command.text === 'tune') {
      await ack();
      await client.views.open({
        trigger_id: command.trigger_id,
        view: {
          type: 'modal',
          callback_id: 'mute_modal',
          title: { type: 'plain_text', text: 'Mute a stream' },
          submit: { type: 'plain_text', text: 'Mute' },
          blocks: [
            {
              type: 'input',
              block_id: 'duration',
              label: { type: 'plain_text', text: 'For how long?' },
              element: { type: 'plain_text_input', action_id: 'value' },
            },
          ],
        },
      });
    } else {
      await ack(`Unknown: ${command.text}`);
    }
  });
  app.action('incident_acknowledge', async ({ ack, body, respond, action }) => {
    await ack();
    seen.push(`ack:${(action as { value?: string }).value}:${body.user.id}`);
    await respond({ replace_original: true, ...LAG_ALERT.acknowledged });
  });
  app.view('mute_modal', async ({ ack, view }) => {
    const value = view.state.values.duration?.value?.value ?? '';
    if (!/^\d+[mh]$/.test(value)) {
      await ack({ response_action: 'errors', errors: { duration: 'Write a duration such as 30m or 2h' } });
      return;
    }
    seen.push(`muted:${value}`);
    await ack();
  });
  app.event('app_home_opened', async ({ event, client }) => {
    seen.push(`home:${event.user}`);
    await client.views.publish({
      user_id: event.user,
      view: { type: 'home', blocks: [{ type: 'header', text: { type: 'plain_text', text: 'Open incidents' } }] },
    });
  });
  server = (await app.start(0)) as Server;
  slack.setRequestUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`);
});

afterEach(async () => {
  await app.stop();
  await slack.close();
});

describe('a real Bolt app behind the HTTP receiver', () => {
  it('runs a signed slash command and records the reply sent to response_url', async () => {
    const outcome = await slack.interactions.slashCommand({ user: MARIA, channel: ALERTS, text: 'status' });
    expect(outcome.delivery.status).toBe(200);
    expect(seen).toContain('command:status');
    // respond() resolves before the test continues because the listener awaited it before returning.
    await expect.poll(() => slack.ephemerals(ALERTS, MARIA).map((e) => e.text)).toContain('All 3 streams healthy');
    const record = slack.responses().find((r) => r.url === outcome.responseUrl);
    expect(record?.uses).toBe(1);
    expect(record?.responses[0]).toMatchObject({ response_type: 'ephemeral', text: 'All 3 streams healthy' });
    // Bolt verified the token at start-up, as a real app does.
    expect(slack.calls('auth.test').length).toBeGreaterThan(0);
  });

  it('shows an ack text as the ephemeral answer', async () => {
    await slack.interactions.slashCommand({ user: MARIA, channel: ALERTS, text: 'frobnicate' });
    expect(slack.ephemerals(ALERTS, MARIA).map((e) => e.text)).toContain('Unknown: frobnicate');
  });

  it('rejects a forged signature and a six-minute-old timestamp with 401, and the listener never runs', async () => {
    const forged = await slack.interactions.slashCommand({
      user: MARIA,
      channel: ALERTS,
      text: 'status',
      sign: { signingSecret: 'not-the-secret' },
    });
    expect(forged.delivery.status).toBe(401);
    expect(forged.error).toBe('http_service_error');
    const stale = await slack.interactions.slashCommand({
      user: MARIA,
      channel: ALERTS,
      text: 'status',
      sign: { timestampSec: Math.floor(Date.now() / 1000) - 6 * 60 },
    });
    expect(stale.delivery.status).toBe(401);
    expect(seen).toEqual([]);
    // The person sees what Slack shows when an app fails.
    expect(slack.ephemerals(ALERTS, MARIA).at(-1)?.text).toBe('/stream failed with the error "http_service_error"');
  });

  it('posts an alert through the WebClient, then a button click replaces it through response_url', async () => {
    await slack.interactions.slashCommand({ user: MARIA, channel: ALERTS, text: 'alert' });
    // The app acks first and posts afterwards, as a real one does.
    const alert = await slack.waitForMessage((m) => m.channel === ALERTS && m.text.includes('orders-enrich'));
    expect(alert.blocks?.[0]).toMatchObject({ type: 'header' });
    const click = await slack.interactions.messageAction({
      user: MARIA,
      channel: ALERTS,
      messageTs: alert.ts,
      actionId: 'incident_acknowledge',
    });
    expect(click.delivery.status).toBe(200);
    expect(seen).toContain('ack:a1b2c3d4-orders.lag.1795940000000:U0MARIA001');
    await expect.poll(() => JSON.stringify(slack.messages(ALERTS)[0]?.blocks)).toContain('Acknowledged by <@U0MARIA001>');
    // Replaced in place: still one message, same ts, marked edited.
    expect(slack.messages(ALERTS)).toHaveLength(1);
    expect(slack.messages(ALERTS)[0]?.ts).toBe(alert.ts);
    expect(slack.messages(ALERTS)[0]?.edited).toBeDefined();
  });

  it('opens a modal with the trigger_id, shows validation errors, then closes on a good submission', async () => {
    await slack.interactions.slashCommand({ user: MARIA, channel: ALERTS, text: 'tune' });
    await expect.poll(() => slack.modals(MARIA).length).toBe(1);
    const [modal] = slack.modals(MARIA);
    expect(modal?.title).toMatchObject({ text: 'Mute a stream' });
    const bad = await slack.interactions.submitView({ user: MARIA, viewId: modal!.id, values: { duration: { value: 'soon' } } });
    expect(bad.responseAction).toBe('errors');
    expect(slack.modals(MARIA)[0]?.errors).toEqual({ duration: 'Write a duration such as 30m or 2h' });
    const good = await slack.interactions.submitView({ user: MARIA, viewId: modal!.id, values: { duration: { value: '2h' } } });
    expect(good.delivery.status).toBe(200);
    expect(seen).toContain('muted:2h');
    expect(slack.modals(MARIA)).toHaveLength(0);
  });

  it('delivers app_home_opened and keeps the published Home view', async () => {
    const opened = await slack.interactions.openHome({ user: MARIA });
    expect(opened.delivery.status).toBe(200);
    await expect.poll(() => slack.homeView(MARIA)?.blocks[0]).toMatchObject({ text: { text: 'Open incidents' } });
    expect(seen).toContain(`home:${MARIA}`);
  });

  it('answers the url_verification handshake', async () => {
    const ok = await slack.delivery.verifyUrl({ teamId: 'T0STREAMDR', teamDomain: 'x', appId: 'A0SDAPP001', verificationToken: 'v' });
    expect(ok).toBe(true);
  });
});
