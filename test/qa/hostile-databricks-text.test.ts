/**
 * Adversarial QA, Databricks side: the local Databricks reports a query whose name is full of Slack
 * markup, and its job then fails with a state message full of markup too. The whole bot runs as
 * `streamdoctor start` runs it (watch file, HTTP sources, pipeline, notify, Slack app) against the
 * stand-ins; the alerts it posts must render that text literally: no broadcast, no mention, no link.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_STREAMS, type DemoStream } from '../../src/demo/demo-streams.js';
import { runDemo, type RunningDemo } from '../../src/demo/run-demo.js';
import { createLogger } from '../../src/observability/logger.js';
import { startBot } from '../../src/runtime/start-bot.js';
import { DEMO_DATABRICKS_TOKEN, DEMO_SIGNING_SECRET } from '../../src/demo/demo-environment.js';
import { DEFAULT_BOT } from '../../src/standins/slack/index.js';

const HOSTILE_NAME = 'orders <!channel> <@U0DEV00002> <http://evil|click> *bold* `tick` & > end';
const HOSTILE_FAILURE = 'Job failed: <!here> <@U0DEV00002> <http://evil|click> & > `x` *y*';
const lagStream = DEMO_STREAMS.find((s) => s.story === 'lag')!;
const hostileStream: DemoStream = { ...lagStream, name: HOSTILE_NAME, spec: (startMs) => ({ ...lagStream.spec(startMs), name: HOSTILE_NAME }) };

let demo: RunningDemo | undefined;
const logs: string[] = [];

/** Mentions, broadcasts and links that would be live in mrkdwn (plain_text is never parsed). */
function liveMarkup(message: unknown): string[] {
  const json = JSON.stringify(message).replace(/"type":"plain_text","text":"(?:[^"\\]|\\.)*"/g, '');
  return json.match(/<!channel>|<!here>|<@U0DEV00002>|<http:\/\/evil\|click>/g) ?? [];
}

async function until<T>(check: () => T | undefined | null | false, what: string, timeoutMs = 40_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; attempt < 2000 && Date.now() < deadline; attempt += 1) {
    const value = check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeAll(async () => {
  // The bot's own logger, at debug, captured for the secrets check.
  const logger = createLogger({
    name: 'streamdoctor',
    level: 'debug',
    destination: new Writable({
      write(chunk, _encoding, done) {
        logs.push(String(chunk));
        done();
      },
    }),
  });
  demo = await runDemo({
    startBot: (env, overrides) => startBot(env, { ...overrides, logger }),
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'debug' },
    out: new Writable({ write: (_chunk, _encoding, done) => done() }),
    prefix: `sdtest-qa-dbx-${process.pid}-${Date.now().toString(36)}`,
    environment: { chatPort: 0, streams: [hostileStream], slackRateLimit: false, speed: 90 },
  });
}, 60_000);

afterAll(async () => {
  await demo?.close();
}, 30_000);

describe('query names and failure messages from Databricks', () => {
  it('the lag alert shows the hostile query name literally', async () => {
    const slack = demo!.environment.slack;
    const alert = await until(() => slack.messages().find((m) => m.blocks && m.text.includes('Falling behind')), 'the lag alert');
    expect(alert.text).toContain('orders &lt;!channel&gt; &lt;@U0DEV00002&gt; &lt;http://evil|click&gt;');
    expect(liveMarkup({ text: alert.text, blocks: alert.blocks })).toEqual([]);
  }, 60_000);

  it('the failed-run alert shows the hostile state message literally', async () => {
    const slack = demo!.environment.slack;
    demo!.environment.databricks.stopStream(hostileStream.key, HOSTILE_FAILURE);
    const failed = await until(() => slack.messages().find((m) => m.blocks && /Run failed|FAILED/.test(m.text)), 'the failed-run alert');
    expect(failed.text).toContain('Job failed: &lt;!here&gt; &lt;@U0DEV00002&gt; &lt;http://evil|click&gt; &amp; &gt;');
    expect(liveMarkup({ text: failed.text, blocks: failed.blocks })).toEqual([]);
    for (const message of slack.messages()) {
      expect(liveMarkup({ text: message.text, blocks: message.blocks })).toEqual([]);
      for (const reply of slack.thread(message.channel, message.ts)) expect(liveMarkup({ text: reply.text, blocks: reply.blocks })).toEqual([]);
    }
  }, 60_000);

  it('no token or signing secret reached the logs', () => {
    const all = logs.join('');
    expect(all).toContain('slack app listening'); // the capture saw the bot's own lines
    for (const secret of [DEFAULT_BOT.token, DEMO_SIGNING_SECRET, DEMO_DATABRICKS_TOKEN]) expect(all).not.toContain(secret);
  });
});
