/**
 * Adversarial QA, environment side: the bot token is refused (`invalid_auth`), Slack answers 429 to
 * everything for a while, Redis goes away while commands arrive (a private redis-server on a free
 * port, never the shared one), and the app is stopped in the middle of a command. Nobody is left
 * without an answer, nothing crashes, and no token or signing secret reaches the logs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import { webApi } from '@slack/bolt';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, type Logger } from '../../src/observability/logger.js';
import { createRedis } from '../../src/runtime/redis-client.js';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import { createSlackApp, type SlackAppHandle } from '../../src/runtime/slack-app.js';
import type { SlackDeps } from '../../src/slack/deps.js';
import { PermissionChecker } from '../../src/slack/permissions.js';
import { DEFAULT_BOT, startLocalSlack, type LocalSlack, type RateLimitOptions } from '../../src/standins/slack/index.js';
import { RedisStore } from '../../src/store/index.js';
import { postAlert, seedScenario } from '../handlers/helpers/seed.js';
import { queueDigestRequester } from '../../jobs/digest-processor.js';
import { queueAlertRefresher } from '../../jobs/notify-processor.js';
import { WebClientChat } from '../../src/slack/gateway/slack-chat.js';
import { startWorker } from '../../src/runtime/pipeline-runtime.js';
import { REDIS_URL, unusedTrackers } from '../pipeline/helpers/harness.js';

const SIGNING_SECRET = 'qa-signing-secret-7f3a9c';
const CHANNEL = 'C0DATAALRT';
const MARIA = 'U0MARIA001';
const DEV = 'U0DEV00002';

interface Rig {
  slack: LocalSlack;
  app: SlackAppHandle;
  store: RedisStore;
  deps: SlackDeps;
  logLines: string[];
  /** A client with the good token, for seeding alerts. */
  seedClient: webApi.WebClient;
}

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

function captureLogger(lines: string[]): Logger {
  return createLogger({
    name: 'qa',
    level: 'debug',
    destination: new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  });
}

async function startRig(options: { botToken?: string; redis?: Redis; rateLimit?: RateLimitOptions | false; pipeline?: boolean } = {}): Promise<Rig> {
  const slack = await startLocalSlack({ rateLimit: options.rateLimit ?? false, signingSecret: SIGNING_SECRET });
  cleanups.push(() => slack.close());
  const redis = options.redis ?? new Redis({ host: '127.0.0.1', port: 6379, maxRetriesPerRequest: 2 });
  const store = new RedisStore({ redis, prefix: `sdtest-qa-${randomUUID()}` });
  if (!options.redis) {
    cleanups.push(async () => {
      await store.deleteEverything();
      redis.disconnect();
    });
  }
  const logLines: string[] = [];
  const logger = captureLogger(logLines);
  const deps: SlackDeps = { store, logger, permissions: new PermissionChecker({}) };
  if (options.pipeline) {
    // The digest worker, as in production: `/stream digest` is a digest job posted by the poster.
    const worker = await startWorker({
      redisUrl: REDIS_URL,
      prefix: store.keys.prefix,
      queuePrefix: `{${store.keys.prefix}}`,
      logger,
      sources: new Map(),
      trackers: unusedTrackers,
      chat: new WebClientChat({ token: DEFAULT_BOT.token, slackApiUrl: slack.apiUrl }),
      workers: { queues: ['notify', 'digest'] },
    });
    cleanups.push(async () => {
      await worker.workers.close(true);
      await worker.queues.obliterate().catch(() => undefined);
      await worker.close();
    });
    deps.alerts = queueAlertRefresher(worker.queues);
    deps.digest = queueDigestRequester(worker.queues);
  }
  const app = createSlackApp({ botToken: options.botToken ?? DEFAULT_BOT.token, signingSecret: SIGNING_SECRET, slackApiUrl: slack.apiUrl, logger, deps });
  const { port } = await app.start(0);
  cleanups.push(() => app.stop());
  slack.setRequestUrl(`http://127.0.0.1:${port}/slack/events`);
  return { slack, app, store, deps, logLines, seedClient: new webApi.WebClient(DEFAULT_BOT.token, { slackApiUrl: slack.apiUrl }) };
}

async function until<T>(check: () => T | Promise<T>, timeoutMs = 8000): Promise<Exclude<T, undefined | null | false>> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; attempt < 1000 && Date.now() < deadline; attempt += 1) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value as Exclude<T, undefined | null | false>;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('condition not met in time');
}

async function command(rig: Rig, text: string, user = MARIA): Promise<{ response_type?: string; text: string }> {
  const outcome = await rig.slack.interactions.slashCommand({ user, channel: CHANNEL, text });
  expect(outcome.delivery.status).toBe(200);
  expect(outcome.delivery.durationMs).toBeLessThan(3000);
  const record = await until(() => rig.slack.responses().find((r) => r.url === outcome.responseUrl && r.responses.length > 0));
  return record.responses[0] as { response_type?: string; text: string };
}

function expectNoSecrets(lines: string[], ...secrets: string[]): void {
  const all = lines.join('');
  for (const secret of [...secrets, SIGNING_SECRET, DEFAULT_BOT.token]) expect(all).not.toContain(secret);
  expect(all).not.toMatch(/xoxb-[A-Za-z0-9-]{6,}/);
  expect(all).not.toMatch(/dapi[0-9a-f]{8,}/);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function startPrivateRedis(port: number): Promise<ChildProcess> {
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined); // refused while the server starts; the loop retries
  try {
    await until(async () => {
      try {
        await probe.connect();
        return (await probe.ping()) === 'PONG';
      } catch {
        probe.disconnect();
        return false;
      }
    }, 5000);
  } finally {
    probe.disconnect();
  }
  return proc;
}

async function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGKILL');
  await exited;
}

describe('a refused bot token', () => {
  it('answers commands and clicks privately through response_url, and logs no token', async () => {
    const badToken = 'xoxb-1111111111-2222222222-qaRevokedTokenValue';
    const rig = await startRig({ botToken: badToken });
    const seeded = await seedScenario(rig.store, 'kafka-partition-bound');
    const { ts } = await postAlert(rig.seedClient, rig.deps, seeded.incidents[0]!, CHANNEL);
    for (const text of ['status', 'ack sensor_ingest', 'digest']) {
      const answer = await command(rig, text);
      expect(answer.response_type).toBe('ephemeral');
      expect(answer.text).toContain('its bot token was refused (`invalid_auth`)');
      expect(answer.text).toContain('SLACK_BOT_TOKEN');
    }
    const click = await rig.slack.interactions.messageAction({ user: DEV, channel: CHANNEL, messageTs: ts, actionId: ACTION_IDS.acknowledge });
    expect(click.delivery.status).toBe(200);
    await until(() => rig.slack.ephemerals(CHANNEL, DEV).find((e) => e.text.includes('`invalid_auth`')));
    expect((await rig.store.incidents.get(seeded.incidents[0]!.id))?.acknowledgedBy).toBeNull();
    expect(rig.slack.messages(CHANNEL)).toHaveLength(1); // only the seeded alert
    expect(rig.logLines.join('')).toContain('auth.test refused SLACK_BOT_TOKEN (invalid_auth)');
    expectNoSecrets(rig.logLines, badToken, 'qaRevokedTokenValue');
  });
});

describe('a bot token revoked after the app started', () => {
  it('a command that needs the Web API explains the refused token instead of blaming the channel', async () => {
    const slack = await startLocalSlack({ rateLimit: false, signingSecret: SIGNING_SECRET });
    cleanups.push(() => slack.close());
    const redis = new Redis({ host: '127.0.0.1', port: 6379, maxRetriesPerRequest: 2 });
    const store = new RedisStore({ redis, prefix: `sdtest-qa-${randomUUID()}` });
    cleanups.push(async () => {
      await store.deleteEverything();
      redis.disconnect();
    });
    const lines: string[] = [];
    const logger = captureLogger(lines);
    const deps: SlackDeps = { store, logger, permissions: new PermissionChecker({}) };
    const revoked = 'xoxb-3333333333-4444444444-qaRevokedLater';
    // auth.test passed at start and is cached; the token was revoked since.
    const app = createSlackApp({ signingSecret: SIGNING_SECRET, slackApiUrl: slack.apiUrl, logger, deps, authorize: async () => ({ botToken: revoked, botUserId: DEFAULT_BOT.userId, teamId: 'T0STREAMDR' }) });
    const { port } = await app.start(0);
    cleanups.push(() => app.stop());
    slack.setRequestUrl(`http://127.0.0.1:${port}/slack/events`);
    const seeded = await seedScenario(store, 'kafka-partition-bound');
    // Alerts go to #streaming: muting it from here needs the caller's channels (users.conversations).
    await store.routing.setRoute('query', seeded.queryId, 'C0STREAMNG');
    const rig: Rig = { slack, app, store, deps, logLines: lines, seedClient: new webApi.WebClient(DEFAULT_BOT.token, { slackApiUrl: slack.apiUrl }) };
    const answer = await command(rig, 'mute sensor_ingest <#C0STREAMNG|streaming> 2h');
    expect(answer.response_type).toBe('ephemeral');
    expect(answer.text).toContain('its bot token was refused (`invalid_auth`)');
    expect(answer.text).not.toContain('invite the app');
    expect(slack.messages(CHANNEL)).toEqual([]);
    expectNoSecrets(lines, revoked, 'qaRevokedLater');
  });
});

describe('a Slack 429 storm', () => {
  it('the digest waits out Retry-After and is posted; the person hears back', async () => {
    const rig = await startRig({ rateLimit: { perSecond: 1, burst: 0 }, pipeline: true });
    const seeded = await seedScenario(rig.store, 'kafka-partition-bound');
    await rig.store.routing.setRoute('query', seeded.queryId, CHANNEL);
    // Someone else floods the channel: every post now gets 429 with Retry-After.
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      const response = await fetch(`${rig.slack.apiUrl}chat.postMessage`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEFAULT_BOT.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ channel: CHANNEL, text: `noise ${i}` }),
      });
      statuses.push(response.status);
    }
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(3);
    const answer = await command(rig, 'digest');
    expect(answer.text).toContain('The digest is on its way');
    // The digest job meets the 429s, waits out Retry-After (a delayed job) and posts once.
    await until(() => rig.slack.messages(CHANNEL).some((m) => m.text.startsWith('Daily stream health')), 15_000);
    expect(rig.slack.messages(CHANNEL).filter((m) => m.text.startsWith('Daily stream health'))).toHaveLength(1);
    expectNoSecrets(rig.logLines);
  }, 20_000);
});

describe('Redis going away while commands arrive', () => {
  it('each command gets a store-unavailable answer, the process keeps serving, and works again once Redis is back', async () => {
    const port = await freePort();
    let server = await startPrivateRedis(port);
    cleanups.push(() => stopProcess(server));
    const lines: string[] = [];
    // The web process's client: fails fast instead of queueing while Redis is away.
    const redis = createRedis(`redis://127.0.0.1:${port}`, 'producer', {}, captureLogger(lines));
    cleanups.push(async () => redis.disconnect());
    await until(() => redis.status === 'ready', 5000);
    const rig = await startRig({ redis });
    const seeded = await seedScenario(rig.store, 'kafka-partition-bound');
    const { ts } = await postAlert(rig.seedClient, rig.deps, seeded.incidents[0]!, CHANNEL);

    await stopProcess(server);
    await until(() => redis.status !== 'ready', 5000);
    for (const text of ['status', 'mute sensor_ingest 2h', 'ack sensor_ingest']) {
      const answer = await command(rig, text);
      expect(answer.response_type, text).toBe('ephemeral');
      expect(answer.text, text).toContain('could not reach its store (`streamdoctor_store_unavailable`)');
    }
    await rig.slack.interactions.messageAction({ user: DEV, channel: CHANNEL, messageTs: ts, actionId: ACTION_IDS.acknowledge });
    await until(() => rig.slack.ephemerals(CHANNEL, DEV).find((e) => e.text.includes('could not reach its store')));
    expect(rig.slack.messages(CHANNEL)).toHaveLength(1);

    server = await startPrivateRedis(port);
    await until(() => redis.status === 'ready', 8000);
    // The private server kept nothing (no persistence): the app answers from the empty store, it does not crash.
    const after = await command(rig, 'status all');
    expect(after.response_type).toBe('ephemeral');
    expect(after.text).toContain('No streams');
    await rig.store.streams.upsert({ queryId: seeded.queryId, name: 'sensor_ingest' });
    const muted = await command(rig, 'mute sensor_ingest 2h');
    expect(muted.response_type).toBe('in_channel');
    expect(await rig.store.silences.isSilenced(seeded.queryId)).toBe(true);
    expect(rig.logLines.join('')).toContain('"code":"streamdoctor_store_unavailable"');
    expectNoSecrets([...rig.logLines, ...lines]);
  }, 30_000);
});

describe('stopping the app in the middle of a command', () => {
  it('stop() waits for the digest request being queued, so the answer lands and the digest is posted', async () => {
    const rig = await startRig({ pipeline: true });
    const seeded = await seedScenario(rig.store, 'kafka-partition-bound');
    await rig.store.routing.setRoute('query', seeded.queryId, CHANNEL);
    const outcome = await rig.slack.interactions.slashCommand({ user: MARIA, channel: CHANNEL, text: 'digest' });
    expect(outcome.delivery.status).toBe(200);
    // SIGTERM arrives right after the ack: the web process stops the app, then closes Redis.
    await rig.app.stop();
    const answer = rig.slack.responses().find((r) => r.url === outcome.responseUrl)?.responses[0] as { text: string } | undefined;
    expect(answer?.text).toContain('The digest is on its way');
    await until(() => rig.slack.messages(CHANNEL).some((m) => m.text.startsWith('Daily stream health')));
    expectNoSecrets(rig.logLines);
  });

  it('a listener that never finishes holds stop() only for the drain timeout', async () => {
    const slack = await startLocalSlack({ rateLimit: false, signingSecret: SIGNING_SECRET });
    cleanups.push(() => slack.close());
    const redis = new Redis({ host: '127.0.0.1', port: 6379, maxRetriesPerRequest: 2 });
    cleanups.push(async () => redis.disconnect());
    const lines: string[] = [];
    const logger = captureLogger(lines);
    const deps: SlackDeps = { store: new RedisStore({ redis, prefix: `sdtest-qa-${randomUUID()}` }), logger, permissions: new PermissionChecker({}) };
    let started = false;
    const app = createSlackApp({
      botToken: DEFAULT_BOT.token,
      signingSecret: SIGNING_SECRET,
      slackApiUrl: slack.apiUrl,
      logger,
      deps,
      drainTimeoutMs: 300,
      register: (bolt) =>
        bolt.command('/stream', async ({ ack }) => {
          await ack();
          started = true;
          await new Promise(() => undefined); // hangs, like a call to a Redis that stopped answering
        }),
    });
    const { port } = await app.start(0);
    slack.setRequestUrl(`http://127.0.0.1:${port}/slack/events`);
    const outcome = await slack.interactions.slashCommand({ user: MARIA, channel: CHANNEL, text: 'status' });
    expect(outcome.delivery.status).toBe(200);
    await until(() => started);
    const before = Date.now();
    await app.stop();
    expect(Date.now() - before).toBeLessThan(2000);
    expect(lines.join('')).toContain('slack app stopped with listeners still running');
  });
});
