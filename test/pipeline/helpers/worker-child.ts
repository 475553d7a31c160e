/**
 * A pipeline worker (or clock) as a child process, configured by one JSON env var, for the
 * multi-process tests. With `crashAfterPost`, the first time this process has posted a message and
 * before it records the ts, it SIGKILLs itself: the worst moment for exactly-once.
 */
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { engineTrackers } from '../../../jobs/engine-trackers.js';
import { WebClientChat } from '../../../src/slack/gateway/slack-chat.js';
import { createLogger } from '../../../src/observability/logger.js';
import { startClock, startWorker } from '../../../src/runtime/pipeline-runtime.js';
import { installShutdown } from '../../../src/runtime/shutdown.js';
import { SimulatedSource, type SimSourceSettings } from './sim-source.js';

interface ChildConfig {
  role: 'worker' | 'clock';
  redisUrl: string;
  prefix: string;
  queuePrefix: string;
  slackApiUrl?: string;
  sim?: SimSourceSettings;
  /** File: created when this process crashes itself, so only one process crashes. */
  crashMarker?: string;
  /** File the process appends `posted <key> <ts>` lines to. */
  postLog?: string;
  pollEveryMs?: number;
  /** Makes every poll take this long (a slow Databricks), to catch a job in flight. */
  pollDelayMs?: number;
  /** Alert-storm grouping. @defaultValue the store's defaults */
  storm?: { windowMs?: number; threshold?: number };
}

const config = JSON.parse(process.env.SD_CHILD_CONFIG ?? '{}') as ChildConfig;
const logger = createLogger({ name: `child-${config.role}-${process.pid}`, level: process.env.LOG_LEVEL ?? 'warn' });

if (config.role === 'clock') {
  const clock = await startClock({
    redisUrl: config.redisUrl,
    prefix: config.prefix,
    queuePrefix: config.queuePrefix,
    logger,
    schedule: { sourceIds: ['sim'], pollEveryMs: config.pollEveryMs ?? 1000, sweepEveryMs: 60_000, digest: false },
  });
  installShutdown(() => clock.close(), { logger });
  process.stdout.write('ready\n');
} else {
  const sim = new SimulatedSource(config.sim!);
  const source = {
    name: sim.name,
    liveness: () => sim.liveness(),
    poll: async (cursor: unknown) => {
      if (config.pollDelayMs) await new Promise((r) => setTimeout(r, config.pollDelayMs));
      return sim.poll(cursor);
    },
  };
  const worker = await startWorker({
    redisUrl: config.redisUrl,
    prefix: config.prefix,
    queuePrefix: config.queuePrefix,
    logger,
    sources: new Map([['sim', { id: 'sim', source }]]),
    trackers: engineTrackers(),
    chat: new WebClientChat({ token: 'xoxb-local-streamdoctor', slackApiUrl: config.slackApiUrl! }),
    routing: { defaultChannel: 'C0DATAALRT' },
    workers: { lockDurationMs: 2000, stalledIntervalMs: 1000 },
    ...(config.storm ? { store: { storm: config.storm } } : {}),
    afterPost: (key, ts) => {
      if (config.postLog) appendFileSync(config.postLog, `posted ${key} ${ts} ${process.pid}\n`);
      if (config.crashMarker && !existsSync(config.crashMarker)) {
        writeFileSync(config.crashMarker, String(process.pid));
        process.kill(process.pid, 'SIGKILL');
      }
    },
  });
  installShutdown(() => worker.close(), { logger });
  process.stdout.write('ready\n');
}
