/**
 * The chat view in Chromium against a real Bolt app: the alert renders from Block Kit, Acknowledge
 * updates it in place, `/stream` answers ephemerally, threads open, a modal submits, the Home tab
 * shows the published view, and hostile text stays text.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, LogLevel } from '@slack/bolt';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalSlack, startLocalSlack } from '../../src/standins/slack/index.js';
import { chromiumMissingReason, launchChromium, type LaunchedBrowser } from '../demo/chromium.js';
import { ALERTS, LAG_ALERT, TOKEN } from './helpers.js';

// Never skipped: without Chromium every test here fails and says what to install.
const missing = chromiumMissingReason();
const SECRET = 'browser-test-secret';

describe('chat view in a browser', () => {
  let slack: LocalSlack;
  let app: App;
  let browser: LaunchedBrowser;
  let page: Page;
  const pageErrors: string[] = [];
  const submitted: string[] = [];
  const sharedFiles: string[] = [];

  beforeAll(async () => {
    if (missing) throw new Error(missing);
    slack = await startLocalSlack({ signingSecret: SECRET, rateLimit: false });
    app = new App({ token: TOKEN, signingSecret: SECRET, logLevel: LogLevel.ERROR, clientOptions: { slackApiUrl: slack.apiUrl } });
    app.command('/stream', async ({ command, ack, respond, client }) => {
      await ack();
      if (command.text === 'tune') {
        await client.views.open({
          trigger_id: command.trigger_id,
          view: {
            type: 'modal',
            callback_id: 'mute',
            title: { type: 'plain_text', text: 'Mute orders-enrich' },
            submit: { type: 'plain_text', text: 'Mute' },
            blocks: [{ type: 'input', block_id: 'duration', label: { type: 'plain_text', text: 'Duration' }, element: { type: 'plain_text_input', action_id: 'value' } }],
          },
        });
      } else {
        await respond({ text: '*Streams in #data-alerts*\n• `orders-enrich` 14m 20s behind\n• `payments-dedupe` healthy' });
      }
    });
    app.view('mute', async ({ ack, view }) => {
      submitted.push(view.state.values.duration?.value?.value ?? '');
      await ack();
    });
    app.action('incident_acknowledge', async ({ ack, respond }) => {
      await ack();
      await respond({ replace_original: true, ...LAG_ALERT.acknowledged });
    });
    app.event('file_shared', async ({ event }) => {
      sharedFiles.push(event.file_id);
    });
    app.event('message', async () => undefined);
    app.event('app_home_opened', async ({ event, client }) => {
      await client.views.publish({ user_id: event.user, view: { type: 'home', blocks: [{ type: 'header', text: { type: 'plain_text', text: 'Open incidents for you' } }] } });
    });
    const server = (await app.start(0)) as Server;
    slack.setRequestUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`);
    const post = (body: Record<string, unknown>) =>
      fetch(`${slack.apiUrl}chat.postMessage`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<{ ts: string }>);
    const alert = await post({ channel: ALERTS, ...LAG_ALERT.open });
    await post({ channel: ALERTS, thread_ts: alert.ts, text: 'Time behind now *15m 02s*' });
    await post({ channel: ALERTS, text: 'query <img src=x onerror="window.__pwned=1"> named `<script>`' });
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.on('pageerror', (err) => pageErrors.push(String(err)));
    await page.goto(`${slack.url}/`);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    await slack?.close();
  });

  function postText(channel: string, text: string): Promise<unknown> {
    return fetch(`${slack.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel, text }),
    }).then((r) => r.json());
  }

  /** Starts counting the nodes taken out of the message list (a moved node counts: it was detached). */
  async function watchRemovals(): Promise<void> {
    // A script string: the test's TypeScript has no DOM types.
    await page.evaluate(`(() => {
      window.observer?.disconnect();
      window.removals = 0;
      window.observer = new MutationObserver((records) => {
        for (const r of records) window.removals += r.removedNodes.length;
      });
      window.observer.observe(document.getElementById('messages'), { childList: true });
    })()`);
  }

  function removals(): Promise<number> {
    return page.evaluate('window.removals') as Promise<number>;
  }

  it('renders the alert, and Acknowledge updates it in place', async () => {
    const alert = page.getByTestId('message').filter({ hasText: 'Falling behind · orders-enrich' });
    await alert.waitFor();
    await expect.poll(() => alert.getByTestId('button-incident_acknowledge').count()).toBe(1);
    await alert.getByTestId('button-incident_acknowledge').click();
    await page.getByText('Acknowledged by').waitFor({ timeout: 5000 });
    expect(await page.getByTestId('message').filter({ hasText: 'Falling behind' }).count()).toBe(1);
    expect(await page.getByTestId('button-incident_unacknowledge').count()).toBe(1);
  });

  it('answers /stream status typed in the command box, visible only to the person', async () => {
    await page.getByTestId('command-box').fill('/stream status');
    await page.getByTestId('command-box').press('Enter');
    const answer = page.getByTestId('message').filter({ hasText: 'Streams in #data-alerts' });
    await answer.waitFor({ timeout: 5000 });
    expect(await answer.textContent()).toContain('Only visible to you');
  });

  it('keeps the nodes of unchanged messages when a new message arrives', async () => {
    // A refresh runs on every event; a message someone is reading or clicking must stay attached.
    const answer = await page.getByTestId('message').filter({ hasText: 'Streams in #data-alerts' }).elementHandle();
    const before = await page.getByTestId('message').count();
    await watchRemovals();
    await postText(ALERTS, 'a later message');
    await page.getByTestId('message').filter({ hasText: 'a later message' }).waitFor({ timeout: 5000 });
    expect(await page.getByTestId('message').count()).toBe(before + 1);
    expect(await answer!.evaluate((el) => el.isConnected)).toBe(true);
    expect(await removals()).toBe(0);
  });

  it('opens the thread panel', async () => {
    await page.getByTestId('thread-link').first().click();
    await page.getByTestId('thread-panel').getByText('Time behind now').waitFor();
  });

  it('shares a file from the composer: it shows in the channel and the app gets file_shared', async () => {
    const progress = '{"id":"a1b2","runId":"r1","batchId":18423,"numInputRows":1970000}\n';
    await page.getByTestId('file-input').setInputFiles({ name: 'progress.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(progress) });
    await page.getByTestId('file-card').filter({ hasText: 'progress.jsonl' }).waitFor({ timeout: 5000 });
    await expect.poll(() => sharedFiles.length).toBe(1);
    expect(slack.files().find((f) => f.id === sharedFiles[0])?.bytes.toString('utf8')).toBe(progress);
  });

  it('opens a modal from a command and submits it', async () => {
    await page.getByTestId('command-box').fill('/stream tune');
    await page.getByTestId('command-box').press('Enter');
    const modal = page.getByTestId('modal');
    await modal.waitFor({ timeout: 5000 });
    await modal.locator('input').fill('2h');
    await page.getByTestId('modal-submit').click();
    await modal.waitFor({ state: 'detached', timeout: 5000 });
    expect(submitted).toEqual(['2h']);
  });

  it('shows the published App Home', async () => {
    await page.getByTestId('home-tab').click();
    await page.getByTestId('home-view').getByText('Open incidents for you').waitFor({ timeout: 5000 });
  });

  it('in a channel past the view\'s 200 messages, a new one replaces only the oldest and the notice', async () => {
    const GENERAL = 'C0GENERAL1';
    for (let i = 0; i < 205; i += 1) await postText(GENERAL, `filler ${i}`);
    await page.getByTestId('channel-general').click();
    await page.getByText('older messages not shown').waitFor({ timeout: 10_000 });
    await page.getByTestId('message').filter({ hasText: 'filler 204' }).waitFor({ timeout: 10_000 });
    await watchRemovals();
    await postText(GENERAL, 'the newest filler');
    await page.getByTestId('message').filter({ hasText: 'the newest filler' }).waitFor({ timeout: 5000 });
    // The oldest message shown and the "N older messages" notice whose count changed: nothing else moves.
    expect(await removals()).toBeLessThanOrEqual(2);
  });

  it('kept hostile text as text, and the page raised no errors', async () => {
    await page.getByTestId('channel-data-alerts').click();
    await page.getByText('named <script>').waitFor();
    expect(await page.evaluate('typeof window.__pwned')).toBe('undefined');
    expect(await page.locator('#messages img[src="x"]').count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await page.screenshot({ path: 'test/artifacts/local-slack-chat-view.png' }).catch(() => undefined);
  });
});
