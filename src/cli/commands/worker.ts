/**
 * `streamdoctor worker`: the BullMQ workers (poll, detect, notify, digest) over the sources of the
 * watch file. Drains on SIGTERM. Serves /livez, /readyz (/healthz) and /metrics on PORT when it is set.
 */
import { engineTrackers } from '../../../jobs/engine-trackers.js';
import { WebClientChat } from '../../slack/gateway/slack-chat.js';
import { pipelineRoutes, startHttpServer } from '../../runtime/http-routes.js';
import { startWorker } from '../../runtime/pipeline-runtime.js';
import { loadWatchSetup, ProcessSetupError, runProcess, setupProcess } from '../../runtime/process-setup.js';
import { installShutdown } from '../../runtime/shutdown.js';
import { createMetrics, databricksRequestObserver } from '../../observability/metrics.js';
import { HELP_OPTION, readCommandArgs } from '../command-args.js';

export const USAGE = `usage: streamdoctor worker

The BullMQ workers (poll, detect, notify, digest) over the sources of the watch file
(STREAMDOCTOR_CONFIG); posts to Slack with SLACK_BOT_TOKEN. Serves /livez, /readyz and /metrics on
PORT when it is set. Finishes the jobs in hand on SIGTERM. See docs/production.md.

options:
  -h, --help   this help
`;

export async function run(argv: string[]): Promise<number> {
  const args = readCommandArgs('worker', USAGE, argv, HELP_OPTION);
  if (typeof args === 'number') return args;
  return runProcess(async () => {
    const setup = await setupProcess({ name: 'worker' });
    const { env, settings, logger } = setup;
    if (!env.slack.botToken) throw new ProcessSetupError(['the worker posts to Slack: set SLACK_BOT_TOKEN (xoxb-…)']);
    const metrics = createMetrics();
    const watch = await loadWatchSetup(setup, process.env, { onDatabricksEvent: databricksRequestObserver(metrics) });
    const worker = await startWorker({
      metrics,
      redisUrl: setup.redis.url,
      prefix: env.prefix,
      logger,
      sources: watch.sources,
      trackers: engineTrackers(watch.engineOptionsFor),
      chat: new WebClientChat({ token: env.slack.botToken, ...(env.slack.apiUrl ? { slackApiUrl: env.slack.apiUrl } : {}) }),
      routing: watch.routing,
      timeZone: watch.timeZone,
      store: { storm: { windowMs: settings.stormWindowMs, threshold: settings.stormThreshold } },
      sourceFailingAfterMs: settings.sourceFailingAfterMs,
      ...(watch.capacityAdvisor ? { capacityAdvisor: watch.capacityAdvisor } : {}),
      ...(settings.workerQueues ? { workers: { queues: settings.workerQueues } } : {}),
    });
    logger.info({ sources: [...watch.sources.keys()] }, 'worker ready');
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
