/**
 * `streamdoctor worker`: the BullMQ workers (poll, detect, notify, digest). Drains on SIGTERM.
 * Serves /healthz and /metrics on PORT when it is set (a worker dyno has no router otherwise).
 */
import { engineTrackers } from '../../../jobs/engine-trackers.js';
import { WebClientChat } from '../../../jobs/slack-chat.js';
import { pipelineRoutes, startHttpServer } from '../../runtime/http-routes.js';
import { startWorker } from '../../runtime/pipeline-runtime.js';
import { ProcessSetupError, runProcess, setupProcess, type SourceFactory } from '../../runtime/process-setup.js';
import { installShutdown } from '../../runtime/shutdown.js';

/** Set by the composition that knows the watch file (sources are built from it). */
export let sourceFactory: SourceFactory = async () => new Map();
export function setSourceFactory(factory: SourceFactory): void {
  sourceFactory = factory;
}

export async function run(_argv: string[]): Promise<number> {
  return runProcess(async () => {
    const setup = await setupProcess({ name: 'worker' });
    const { env, settings, logger } = setup;
    if (!env.slack.botToken) throw new ProcessSetupError(['the worker posts to Slack: set SLACK_BOT_TOKEN (xoxb-…)']);
    const sources = await sourceFactory(setup);
    if (sources.size === 0) logger.warn('no progress sources configured; polls will find nothing (set STREAMDOCTOR_CONFIG)');
    const worker = await startWorker({
      redisUrl: setup.redis.url,
      prefix: env.prefix,
      logger,
      sources,
      trackers: engineTrackers(),
      chat: new WebClientChat({ token: env.slack.botToken, ...(env.slack.apiUrl ? { slackApiUrl: env.slack.apiUrl } : {}) }),
      routing: { defaultChannel: settings.defaultChannel },
      timeZone: settings.timeZone,
      store: { storm: { windowMs: settings.stormWindowMs, threshold: settings.stormThreshold } },
      ...(settings.workerQueues ? { workers: { queues: settings.workerQueues } } : {}),
    });
    const http = process.env.PORT
      ? await startHttpServer(pipelineRoutes({ redis: worker.redis, queues: worker.queues, metrics: worker.metrics }), env.port, '0.0.0.0')
      : null;
    installShutdown(async () => {
      await http?.close();
      await worker.close();
      await setup.redis.close();
    }, { logger });
    return new Promise<number>(() => undefined); // runs until a signal
  });
}
