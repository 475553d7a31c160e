/**
 * The bot binds the interface it is given: the demo runs with a published signing
 * secret and asks for 127.0.0.1, but Bolt bound every interface, so anyone on the network could send
 * it signed requests. startBot with host 127.0.0.1 must not answer on the machine's other addresses.
 * Real startBot (web + worker + clock), the local Slack, real Redis.
 */
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { startBot, type RunningBot } from '../../src/runtime/start-bot.js';
import { startLocalSlack, type LocalSlack } from '../../src/standins/slack/index.js';
import { deletePrefix, REDIS_URL, silentLogger, uniquePrefix } from '../pipeline/helpers/harness.js';

let bot: RunningBot | undefined;
let slack: LocalSlack | undefined;
let prefix: string | undefined;
afterEach(async () => {
  await bot?.close();
  await slack?.close();
  if (prefix) await deletePrefix(REDIS_URL, prefix);
  bot = slack = prefix = undefined;
});

const lanAddress = Object.values(networkInterfaces()).flat().find((i) => i && !i.internal && i.family === 'IPv4')?.address;

describe('binding', () => {
  it.skipIf(!lanAddress)('startBot with host 127.0.0.1 answers on loopback only', async () => {
    prefix = uniquePrefix('bind').prefix;
    slack = await startLocalSlack({ rateLimit: false });
    bot = await startBot(
      { SLACK_BOT_TOKEN: 'xoxb-local-streamdoctor', SLACK_SIGNING_SECRET: 'local-signing-secret', SLACK_API_URL: slack.apiUrl, STREAMDOCTOR_PREFIX: prefix },
      { host: '127.0.0.1', port: 0, redis: { url: REDIS_URL, origin: 'env', close: async () => undefined }, logger: silentLogger },
    );
    const port = new URL(bot.url).port;
    expect((await fetch(`http://127.0.0.1:${port}/livez`)).status).toBe(200);
    const outside = await fetch(`http://${lanAddress}:${port}/livez`, { signal: AbortSignal.timeout(2000) }).then(
      (res) => res.status,
      () => 'refused',
    );
    expect(outside).toBe('refused');
  });
});
