/**
 * `streamdoctor clock`: upserts the schedules (polls per source, the sweep, the daily digest) as
 * BullMQ job schedulers and keeps them fresh. Running two by mistake still gives one job per tick.
 * Serves /livez and /readyz on PORT when it is set. Composed by src/runtime/compose.ts.
 */
import { composeProcess } from '../../runtime/compose.js';
import { runProcess } from '../../runtime/process-setup.js';
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
    const clock = await composeProcess('clock');
    installShutdown(() => clock.close(), { logger: clock.logger, stillActive: 'schedules still being written (the next clock writes them again)' });
    return new Promise<number>(() => undefined); // runs until a signal
  });
}
