/**
 * `streamdoctor clock`: upserts the schedules (polls per source, the sweep, the daily digest) as
 * BullMQ job schedulers and keeps them fresh. Running two by mistake still gives one job per tick.
 */
import { startClock } from '../../runtime/pipeline-runtime.js';
import { loadWatchSetup, runProcess, setupProcess } from '../../runtime/process-setup.js';
import { installShutdown } from '../../runtime/shutdown.js';

export async function run(_argv: string[]): Promise<number> {
  return runProcess(async () => {
    const setup = await setupProcess({ name: 'clock' });
    const { env, logger } = setup;
    const watch = await loadWatchSetup(setup);
    const clock = await startClock({
      redisUrl: setup.redis.url,
      prefix: env.prefix,
      logger,
      schedule: { sourceIds: [...watch.sources.keys()], pollEveryMs: watch.pollEveryMs, digestAt: watch.digestAt, timeZone: watch.timeZone },
    });
    installShutdown(async () => {
      await clock.close();
      await setup.redis.close();
    }, { logger });
    return new Promise<number>(() => undefined);
  });
}
