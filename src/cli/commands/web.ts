/**
 * `streamdoctor web`: the Slack app (HTTP receiver at POST /slack/events, or Socket Mode) with
 * GET /healthz and GET /metrics on the same port. Without Slack credentials it serves only the two
 * endpoints, and says so. Composed by src/runtime/compose.ts.
 */
import { composeProcess } from '../../runtime/compose.js';
import { runProcess } from '../../runtime/process-setup.js';
import { installShutdown } from '../../runtime/shutdown.js';
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
    const web = await composeProcess('web');
    installShutdown(() => web.close(), { logger: web.logger, stillActive: 'Slack requests or their listeners still running (Slack retries an unanswered request)' });
    return new Promise<number>(() => undefined); // runs until a signal
  });
}
