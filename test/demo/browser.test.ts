/**
 * The demo, tested as a person would use it: Chromium opens the chat view, waits for the lag alert,
 * clicks Acknowledge, sees the alert change, asks `/stream status` and reads the answer. Everything
 * behind the page is the real bot (signed requests in, Web API and REST calls out) against the
 * stand-ins. A screenshot of each step goes to test/artifacts/ (not committed).
 */
import { mkdirSync } from 'node:fs';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startBot } from '../../src/runtime/start-bot.js';
import { runDemo, type RunningDemo } from '../../src/demo/run-demo.js';
import { chromiumMissingReason, launchChromium, type LaunchedBrowser } from './chromium.js';

const ARTIFACTS = new URL('../artifacts/', import.meta.url).pathname;
// Never skipped: without Chromium every test here fails and says what to install.
const missing = chromiumMissingReason();

/** The environment a fresh laptop has: no Slack or Databricks credentials, the test Redis. */
function cleanEnv(): NodeJS.ProcessEnv {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'];
  const env: NodeJS.ProcessEnv = { REDIS_URL: 'redis://127.0.0.1:6379', LOG_LEVEL: 'error' };
  for (const name of keep) if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}

describe('the demo in a browser', () => {
  let demo: RunningDemo | undefined;
  let browser: LaunchedBrowser | undefined;
  let banner = '';

  beforeAll(async () => {
    if (missing) throw new Error(missing);
    mkdirSync(ARTIFACTS, { recursive: true });
    const out = new Writable({
      write(chunk, _encoding, done) {
        banner += String(chunk);
        done();
      },
    });
    demo = await runDemo({
      startBot,
      env: cleanEnv(),
      out,
      prefix: `sd-test-demo-${process.pid}-${Date.now().toString(36)}`,
      environment: { chatPort: 0 },
    });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await demo?.close();
  }, 30_000);

  async function shot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: false });
  }

  it('prints the chat view URL in the banner', () => {
    expect(banner).toContain(`Open the chat view:  ${demo!.environment.chatUrl}`);
    expect(banner).toContain('orders_enrichment');
  });

  it('shows a lag alert, takes an Acknowledge, and answers /stream status', async () => {
    const page = await browser!.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    try {
      await walkThrough(page, errors);
    } catch (err) {
      // Leave evidence: what the page showed when the step failed.
      await shot(page, 'demo-failure').catch(() => undefined);
      const shown = await page.getByTestId('messages').innerText().catch(() => '(no page text)');
      throw new Error(`${(err as Error).message}\n--- chat view showed:\n${shown.slice(0, 3_000)}\n--- page errors: ${JSON.stringify(errors)}`);
    }
  }, 90_000);

  async function walkThrough(page: Page, errors: string[]): Promise<void> {
    await page.goto(demo!.environment.chatUrl, { waitUntil: 'domcontentloaded', timeout: 15_000 });
    await expect.poll(() => page.getByTestId('connection').textContent(), { timeout: 10_000 }).not.toContain('connecting');

    // The overloaded orders stream routes to #stream-orders.
    await page.getByTestId('channel-stream-orders').click();
    await expect.poll(() => page.getByTestId('title').textContent()).toContain('stream-orders');
    const alert = page
      .getByTestId('message')
      .filter({ hasText: 'orders_enrichment' })
      .filter({ has: page.getByTestId('button-incident_acknowledge') })
      .first();
    await alert.waitFor({ state: 'visible', timeout: 60_000 });
    await expect.poll(async () => (await alert.textContent()) ?? '').toMatch(/behind/i);
    await shot(page, 'demo-1-lag-alert');

    await alert.getByTestId('button-incident_acknowledge').click();
    const acknowledged = page.getByTestId('message').filter({ hasText: 'orders_enrichment' }).filter({ hasText: /Acknowledged by/ }).first();
    await acknowledged.waitFor({ state: 'visible', timeout: 15_000 });
    // Acknowledged alerts offer to undo it instead.
    await expect.poll(() => acknowledged.getByTestId('button-incident_unacknowledge').count(), { timeout: 5_000 }).toBe(1);
    await shot(page, 'demo-2-acknowledged');

    await page.getByTestId('command-box').fill('/stream status');
    await page.getByTestId('command-box').press('Enter');
    const answer = page.locator('[data-testid="message"][data-ephemeral="true"]').filter({ hasText: 'orders_enrichment' }).last();
    await answer.waitFor({ state: 'visible', timeout: 15_000 });
    const text = (await answer.textContent()) ?? '';
    // In a channel, status covers the streams routed there: here, the one falling behind.
    expect(text).toMatch(/orders_enrichment[^]*behind/);
    expect(text).toMatch(/Only visible to you/);
    await answer.scrollIntoViewIfNeeded();
    await shot(page, 'demo-3-stream-status');

    // The other stories land in #data-alerts; by now at least the state growth has been reported.
    await page.getByTestId('channel-data-alerts').click();
    await page.getByTestId('message').filter({ hasText: 'sessions_dedup' }).first().waitFor({ state: 'visible', timeout: 15_000 });
    await shot(page, 'demo-4-data-alerts');
    expect(errors).toEqual([]);
  }
});
