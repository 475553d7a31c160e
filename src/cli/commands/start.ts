/**
 * `streamdoctor start`: web + worker + clock in one process (`startAll`), for a laptop or a single
 * small machine. Finds or starts a Redis. The no-credentials demo is composed around `startAll`
 * (src/demo/); with credentials this runs the real thing.
 */
import { engineTrackers } from '../../../jobs/engine-trackers.js';
import { WebClientChat } from '../../../jobs/slack-chat.js';
import { startAll } from '../../runtime/pipeline-runtime.js';
import { ProcessSetupError, runProcess, setupProcess } from '../../runtime/process-setup.js';
import { installShutdown } from '../../runtime/shutdown.js';
import { sourceFactory } from './worker.js';

export async function run(_argv: string[]): Promise<number> {
  return runProcess(async () => {
    const setup = await setupProcess({ name: 'start', allowPrivateRedis: true });
    const { env, settings, logger } = setup;
    if (!env.slack.botToken) {
      throw new ProcessSetupError(['`start` needs SLACK_BOT_TOKEN to post (the no-credentials demo runs when neither Slack nor Databricks credentials are set)']);
    }
    const sources = await sourceFactory(setup);
    const all = await startAll({
      redisUrl: setup.redis.url,
      prefix: env.prefix,
      logger,
      sources,
      trackers: engineTrackers(),
      chat: new WebClientChat({ token: env.slack.botToken, ...(env.slack.apiUrl ? { slackApiUrl: env.slack.apiUrl } : {}) }),
      routing: { defaultChannel: settings.defaultChannel },
      timeZone: settings.timeZone,
      port: env.port,
      schedule: { sourceIds: [...sources.keys()], pollEveryMs: settings.pollEveryMs, digestAt: settings.digestAt, timeZone: settings.timeZone },
    });
    logger.info({ url: all.web.url, sources: sources.size }, 'streamdoctor running (web + worker + clock)');
    installShutdown(async () => {
      await all.close();
      await setup.redis.close();
    }, { logger });
    return new Promise<number>(() => undefined);
  });
}
