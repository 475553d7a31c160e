/**
 * Slack calls of the app are bounded in time: a Slack that accepts the connection
 * and never answers makes the shared auth.test (every request waits on it) give up in seconds, with
 * the error that tells the person the token check failed; the next request tries again.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { slackClientOptions } from '../../src/runtime/slack-app.js';
import { singleWorkspaceAuthorize, SlackAuthError } from '../../src/slack/authorize.js';

let server: Server | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** Accepts connections, reads the request, never answers. */
async function silentSlack(): Promise<string> {
  server = createServer((socket) => {
    sockets.push(socket);
    socket.on('data', () => undefined);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/api/`;
}

describe('Slack call timeouts', () => {
  it('auth.test against a Slack that never answers fails in seconds, and is retried on the next request', async () => {
    const url = await silentSlack();
    const authorize = singleWorkspaceAuthorize('xoxb-local-streamdoctor', slackClientOptions(url, 300));
    const started = Date.now();
    const first = await (authorize as unknown as () => Promise<unknown>)().catch((err: unknown) => err);
    expect(first).toBeInstanceOf(SlackAuthError);
    expect(Date.now() - started).toBeLessThan(6000);
    const second = await (authorize as unknown as () => Promise<unknown>)().catch((err: unknown) => err);
    expect(second).toBeInstanceOf(SlackAuthError);
  }, 15_000);

  it('every call of the app has a timeout and at most two retries', () => {
    const options = slackClientOptions('http://127.0.0.1:1/api');
    expect(options).toMatchObject({ slackApiUrl: 'http://127.0.0.1:1/api/', timeout: 10_000, retryConfig: { retries: 2 } });
  });
});
