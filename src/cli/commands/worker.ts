/**
 * `streamdoctor worker`: the BullMQ workers (poll, detect, notify, digest) over the sources of the
 * watch file. Drains on SIGTERM. Serves /livez, /readyz (/healthz) and /metrics on PORT when it is
 * set. Composed by src/runtime/compose.ts.
 */
import { composeProcess } from '../../runtime/compose.js';
import { runProcess } from '../../runtime/process-setup.js';
import { installShutdown } from '../../runtime/shutdown.js';
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
    const worker = await composeProcess('worker');
    installShutdown(() => worker.close(), { logger: worker.logger });
    return new Promise<number>(() => undefined); // runs until a signal
  });
}
