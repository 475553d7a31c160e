/**
 * The app asks Slack who it is (auth.test) when it starts, not at the first request: a Slack slow to
 * answer then does not cost the first commands their 3 s. A Slack that fails auth.test with 5xx is
 * not told to the person as a refused token.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { createSlackApp, type SlackAppHandle } from '../../src/runtime/slack-app.js';
import type { SlackDeps } from '../../src/slack/deps.js';
import { PermissionChecker } from '../../src/slack/permissions.js';
import { DEFAULT_BOT, startLocalSlack, type LocalSlack } from '../../src/standins/slack/index.js';

const SIGNING_SECRET = 'local-signing-secret';
let slack: LocalSlack | undefined;
let handle: SlackAppHandle | undefined;

afterEach(async () => {
  await handle?.stop();
  await slack?.close();
  handle = undefined;
  slack = undefined;
});

/** The app on the local Slack, with `fault` on auth.test from before it starts. */
async function start(fault: { kind: 'slow' | 'server_error'; delayMs?: number; times: number }) {
  slack = await startLocalSlack({ port: 0, rateLimit: false, signingSecret: SIGNING_SECRET });
  slack.faults.inject({ method: 'auth.test', ...fault });
  const logger = createLogger({ name: 'auth-at-start', level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) });
  // `help` reads nothing from the store.
  const deps = { store: {} as SlackDeps['store'], permissions: new PermissionChecker(), logger } satisfies SlackDeps;
  handle = createSlackApp({ botToken: DEFAULT_BOT.token, signingSecret: SIGNING_SECRET, slackApiUrl: slack.apiUrl, logger, deps });
  const { port } = await handle.start(0, '127.0.0.1');
  slack.setRequestUrl(`http://127.0.0.1:${port}/slack/events`);
  return slack;
}

async function answerTo(local: LocalSlack, responseUrl: string): Promise<string> {
  for (let waited = 0; waited < 8_000; waited += 100) {
    const record = local.responses().find((r) => r.url === responseUrl && r.responses.length > 0);
    if (record) return (record.responses[0] as { text: string }).text;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('no answer through response_url');
}

describe('auth.test at start', () => {
  it('a Slack slow to answer auth.test at start does not hold the first command past 3 s', async () => {
    const local = await start({ kind: 'slow', delayMs: 3_500, times: 1 });
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const outcome = await local.interactions.slashCommand({ user: 'U0MARIA001', channel: 'C0DATAALRT', text: 'help' });
    expect(outcome.delivery.status).toBe(200);
    expect(outcome.delivery.durationMs).toBeLessThan(1_000);
  }, 20_000);

  it('auth.test failing with 5xx is told as Slack being unreachable, not as a refused token', async () => {
    // Three attempts at start, three for the command: all fail.
    const local = await start({ kind: 'server_error', times: 6 });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const outcome = await local.interactions.slashCommand({ user: 'U0MARIA001', channel: 'C0DATAALRT', text: 'help' });
    const text = await answerTo(local, outcome.responseUrl);
    expect(text).toContain('could not reach Slack');
    expect(text).not.toContain('refused');
  }, 20_000);
});
