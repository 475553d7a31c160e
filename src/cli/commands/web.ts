/**
 * `streamdoctor web`: the Slack app (HTTP receiver at POST /slack/events, or Socket Mode) with
 * GET /healthz and GET /metrics on the same port. Without Slack credentials it serves only the two
 * endpoints, and says so.
 */
import { queueDigestRequester } from '../../../jobs/digest-processor.js';
import { queueAlertRefresher } from '../../../jobs/notify-processor.js';
import { createSlackApp } from '../../runtime/slack-app.js';
import { PermissionChecker } from '../../slack/permissions.js';
import { startWebEndpoints } from '../../runtime/pipeline-runtime.js';
import { loadWatchSetup, runProcess, setupProcess } from '../../runtime/process-setup.js';
import { installShutdown } from '../../runtime/shutdown.js';
import { createMetrics, databricksRequestObserver } from '../../observability/metrics.js';
import { HELP_OPTION, readCommandArgs } from '../command-args.js';

export const USAGE = `usage: streamdoctor web

The Slack app (POST /slack/events over HTTP, or Socket Mode with SLACK_APP_TOKEN) with GET /livez,
GET /readyz (/healthz) and GET /metrics on PORT (default 3000). Configured by the environment and the
watch file (STREAMDOCTOR_CONFIG); see docs/production.md. Without Slack credentials it serves the
HTTP endpoints only. Stops on SIGTERM / SIGINT.

options:
  -h, --help   this help
`;

export async function run(argv: string[]): Promise<number> {
  const args = readCommandArgs('web', USAGE, argv, HELP_OPTION);
  if (typeof args === 'number') return args;
  return runProcess(async () => {
    const setup = await setupProcess({ name: 'web' });
    const { env, logger } = setup;
    // The web process reads job settings from Databricks for /stream tune (the capacity advisor).
    const metrics = createMetrics();
    const watch = await loadWatchSetup(setup, process.env, { onDatabricksEvent: databricksRequestObserver(metrics) });
    const slackConfigured = Boolean(env.slack.botToken && (env.slack.signingSecret || env.slack.appToken));
    if (!slackConfigured) logger.warn('Slack is not configured (SLACK_BOT_TOKEN + SLACK_SIGNING_SECRET or SLACK_APP_TOKEN); serving /healthz and /metrics only');
    const web = await startWebEndpoints({
      metrics,
      redisUrl: setup.redis.url,
      prefix: env.prefix,
      logger,
      port: env.port,
      host: '0.0.0.0',
      ...(slackConfigured
        ? {
            startWeb: async (routes, store, queues) => {
              const handle = createSlackApp({
                ...(env.slack.signingSecret ? { signingSecret: env.slack.signingSecret } : {}),
                botToken: env.slack.botToken!,
                ...(env.slack.appToken ? { appToken: env.slack.appToken } : {}),
                ...(env.slack.apiUrl ? { slackApiUrl: env.slack.apiUrl } : {}),
                customRoutes: routes,
                port: env.port,
                logger,
                deps: {
                  store,
                  permissions: new PermissionChecker({ policy: env.admins }),
                  logger,
                  routingDefaults: watch.routing,
                  alerts: queueAlertRefresher(queues),
                  digest: queueDigestRequester(queues, { timeZone: watch.timeZone }),
                  ...(watch.capacityAdvisor ? { advisor: watch.capacityAdvisor } : {}),
                },
              });
              const { port } = await handle.start(env.port);
              return { url: port ? `http://0.0.0.0:${port}` : undefined, close: () => handle.stop() };
            },
          }
        : {}),
    });
    logger.info({ url: web.url }, 'web process ready');
    installShutdown(async () => {
      await web.close();
      await setup.redis.close();
    }, { logger });
    return new Promise<number>(() => undefined);
  });
}
