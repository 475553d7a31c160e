/**
 * A running StreamDoctor Slack app wired to a real local Slack and a real Redis store with a unique
 * prefix; requests reach the app as Slack sends them: signed HTTP on loopback.
 */
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { webApi } from '@slack/bolt';
import { Redis } from 'ioredis';
import { createLogger } from '../../../src/observability/logger.js';
import { createSlackApp, type SlackAppHandle } from '../../../src/runtime/slack-app.js';
import type { SlackDeps } from '../../../src/slack/deps.js';
import { PermissionChecker, type PermissionPolicy } from '../../../src/slack/permissions.js';
import { startLocalSlack, type LocalSlack, type LocalSlackOptions } from '../../../src/standins/slack/index.js';
import { RedisStore } from '../../../src/store/index.js';
import { queueDigestRequester } from '../../../jobs/digest-processor.js';
import { queueAlertRefresher } from '../../../jobs/notify-processor.js';
import { WebClientChat } from '../../../src/slack/gateway/slack-chat.js';
import { startWorker } from '../../../src/runtime/pipeline-runtime.js';
import { REDIS_URL, unusedTrackers } from '../../pipeline/helpers/harness.js';

export interface Harness {
  slack: LocalSlack;
  store: RedisStore;
  redis: Redis;
  app: SlackAppHandle;
  deps: SlackDeps;
  client: webApi.WebClient;
  logLines: string[];
  eventsUrl: string;
  /** Waits until `check` passes (bounded), for work the app does after acking. */
  until<T>(check: () => T | Promise<T>, timeoutMs?: number): Promise<Exclude<T, undefined | null | false>>;
  close(): Promise<void>;
}

export const BOT_TOKEN = 'xoxb-local-streamdoctor';
export const SIGNING_SECRET = 'local-signing-secret';
export const CHANNEL = 'C0DATAALRT';
export const MARIA = 'U0MARIA001';
export const DEV = 'U0DEV00002';

export async function startHarness(options: { policy?: PermissionPolicy; now?: () => number; slack?: Omit<LocalSlackOptions, 'rateLimit'> } = {}): Promise<Harness> {
  const slack = await startLocalSlack({ ...options.slack, rateLimit: false });
  const redis = new Redis({ host: '127.0.0.1', port: 6379, lazyConnect: true, maxRetriesPerRequest: 2 });
  await redis.connect();
  const store = new RedisStore({ redis, prefix: `sdtest-slack-${randomUUID()}` });
  const logLines: string[] = [];
  const logger = createLogger({
    name: 'slack-test',
    level: 'info',
    destination: new Writable({
      write(chunk, _enc, done) {
        logLines.push(String(chunk));
        done();
      },
    }),
  });
  // The notify and digest workers, as in production: the app asks them to refresh alerts and to post
  // digests; they are the one writer of alert messages (lock, exactly-once claim, one renderer).
  const worker = await startWorker({
    redisUrl: REDIS_URL,
    prefix: store.keys.prefix,
    queuePrefix: `{${store.keys.prefix}}`,
    logger,
    sources: new Map(),
    trackers: unusedTrackers,
    chat: new WebClientChat({ token: BOT_TOKEN, slackApiUrl: slack.apiUrl }),
    channelIntervalMs: 0,
    workers: { queues: ['notify', 'digest'] },
    ...(options.now ? { now: options.now } : {}),
  });
  const deps: SlackDeps = {
    store,
    logger,
    permissions: new PermissionChecker({ policy: options.policy }),
    alerts: queueAlertRefresher(worker.queues, options.now),
    digest: queueDigestRequester(worker.queues, options.now ? { now: options.now } : {}),
    ...(options.now ? { now: options.now } : {}),
  };
  const app = createSlackApp({ botToken: BOT_TOKEN, signingSecret: SIGNING_SECRET, slackApiUrl: slack.apiUrl, logger, deps });
  const { port } = await app.start(0);
  const eventsUrl = `http://127.0.0.1:${port}/slack/events`;
  slack.setRequestUrl(eventsUrl);
  const client = new webApi.WebClient(BOT_TOKEN, { slackApiUrl: slack.apiUrl });
  return {
    slack,
    store,
    redis,
    app,
    deps,
    client,
    logLines,
    eventsUrl,
    async until(check, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      let lastError: unknown;
      for (let attempt = 0; attempt < 500 && Date.now() < deadline; attempt += 1) {
        try {
          const value = await check();
          if (value !== undefined && value !== null && value !== false) return value as Exclude<typeof value, undefined | null | false>;
        } catch (error) {
          lastError = error;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw lastError instanceof Error ? lastError : new Error('condition not met in time');
    },
    async close() {
      await app.stop();
      await worker.workers.close(true);
      await worker.queues.obliterate().catch(() => undefined);
      await worker.close();
      await slack.close();
      await store.deleteEverything();
      redis.disconnect();
    },
  };
}
