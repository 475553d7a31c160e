/**
 * `streamdoctor clock`: upserts the schedules (polls per source, the sweep, the daily digest) as
 * BullMQ job schedulers and keeps them fresh. Running two by mistake still gives one job per tick.
 */
import { startClock } from '../../runtime/pipeline-runtime.js';
import { runProcess, setupProcess } from '../../runtime/process-setup.js';
import { installShutdown } from '../../runtime/shutdown.js';
import { sourceFactory } from './worker.js';

export async function run(_argv: string[]): Promise<number> {
  return runProcess(async () => {
    const setup = await setupProcess({ name: 'clock' });
    const { env, settings, logger } = setup;
    const sources = await sourceFactory(setup);
    const clock = await startClock({
      redisUrl: setup.redis.url,
      prefix: env.prefix,
      logger,
      schedule: { sourceIds: [...sources.keys()], pollEveryMs: settings.pollEveryMs, digestAt: settings.digestAt, timeZone: settings.timeZone },
    });
    installShutdown(async () => {
      await clock.close();
      await setup.redis.close();
    }, { logger });
    return new Promise<number>(() => undefined);
  });
}
