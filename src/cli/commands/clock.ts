/**
 * `streamdoctor clock`: upserts the schedules (polls per source, the sweep, the daily digest) as
 * BullMQ job schedulers and keeps them fresh. Running two by mistake still gives one job per tick.
 * Serves /livez and /readyz on PORT when it is set.
 */
import { healthRoutes, startHttpServer } from '../../runtime/http-routes.js';
import { startClock } from '../../runtime/pipeline-runtime.js';
import { loadWatchSetup, runProcess, setupProcess } from '../../runtime/process-setup.js';
import { installShutdown } from '../../runtime/shutdown.js';
import { HELP_OPTION, readCommandArgs } from '../command-args.js';

export const USAGE = `usage: streamdoctor clock

Keeps the schedules (a poll per source, the stall sweep, the daily digest) as BullMQ job schedulers
in Redis: they survive restarts, and a second clock changes nothing. Serves /livez and /readyz on
PORT when it is set. See docs/production.md.

options:
  -h, --help   this help
`;

export async function run(argv: string[]): Promise<number> {
  const args = readCommandArgs('clock', USAGE, argv, HELP_OPTION);
  if (typeof args === 'number') return args;
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
    // /livez and /readyz on PORT when it is set, like the worker (probes for every process type).
    const http = process.env.PORT ? await startHttpServer(healthRoutes({ redis: clock.redis, queues: clock.queues }), env.port, '0.0.0.0') : null;
    installShutdown(async () => {
      await http?.close();
      await clock.close();
      await setup.redis.close();
    }, { logger });
    return new Promise<number>(() => undefined);
  });
}
