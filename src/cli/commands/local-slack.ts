/**
 * `streamdoctor local-slack [--port N] [--host H] [--request-url URL] [--no-rate-limit]`
 *
 * Runs the local Slack stand-in on its own and prints the chat view URL. Point the app at it with
 * SLACK_API_URL=<printed Web API URL> and its signing secret / bot token; give the stand-in the app's
 * request URL so commands, clicks and events reach it. Stops on SIGINT / SIGTERM.
 */
import { startLocalSlack } from '../../standins/slack/index.js';
import { DEFAULT_BOT, type LocalSlackOptions } from '../../standins/slack/options.js';
import { HELP_OPTION, parseCommandArgs, UsageError, wantsHelp } from '../command-args.js';
import { waitForStopSignal } from '../wait-for-stop-signal.js';

export const USAGE = `usage: streamdoctor local-slack [options]

Runs a local Slack: the Web API at <url>/api/, and a chat view at <url>/ that shows the bot's
messages, threads and App Home, with a /stream command box and working buttons.

options:
  --port N              port to listen on (default 3100; 0 picks a free one)
  --host H              interface (default 127.0.0.1)
  --request-url URL     the app's request URL (default $SLACK_REQUEST_URL, else
                        http://127.0.0.1:3000/slack/events)
  --no-rate-limit       accept any number of chat.postMessage calls per channel
  -h, --help            this help
environment:
  SLACK_SIGNING_SECRET  secret used to sign requests into the app (default local-signing-secret)
  SLACK_BOT_TOKEN       bot token the Web API accepts (default xoxb-local-streamdoctor)
`;

export interface LocalSlackFlags {
  port: number;
  host: string;
  requestUrl: string;
  rateLimit: boolean;
}

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'request-url': { type: 'string' },
  'no-rate-limit': { type: 'boolean' },
  ...HELP_OPTION,
} as const;

export function parseLocalSlackFlags(argv: string[], env: NodeJS.ProcessEnv): LocalSlackFlags | 'help' | { error: string } {
  if (wantsHelp(argv)) return 'help';
  let values;
  try {
    ({ values } = parseCommandArgs(argv, OPTIONS));
  } catch (error) {
    if (error instanceof UsageError) return { error: error.message };
    throw error;
  }
  const flags: LocalSlackFlags = {
    port: 3100,
    host: '127.0.0.1',
    requestUrl: env.SLACK_REQUEST_URL || 'http://127.0.0.1:3000/slack/events',
    rateLimit: !values['no-rate-limit'],
  };
  if (values.port !== undefined) {
    const port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65535) return { error: `--port needs a number from 0 to 65535, got "${values.port}"` };
    flags.port = port;
  }
  if (values.host !== undefined) {
    if (!values.host) return { error: '--host needs an interface, e.g. 127.0.0.1' };
    flags.host = values.host;
  }
  if (values['request-url'] !== undefined) {
    const url = values['request-url'];
    if (!/^https?:\/\//.test(url)) return { error: `--request-url needs an http(s) URL, got "${url}"` };
    flags.requestUrl = url;
  }
  return flags;
}

export async function run(argv: string[]): Promise<number> {
  const flags = parseLocalSlackFlags(argv, process.env);
  if (flags === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if ('error' in flags) {
    process.stderr.write(`streamdoctor local-slack: ${flags.error}\n\n${USAGE}`);
    return 2;
  }
  const options: LocalSlackOptions = {
    port: flags.port,
    host: flags.host,
    requestUrl: flags.requestUrl,
    ...(flags.rateLimit ? {} : { rateLimit: false }),
    ...(process.env.SLACK_SIGNING_SECRET ? { signingSecret: process.env.SLACK_SIGNING_SECRET } : {}),
  };
  const token = process.env.SLACK_BOT_TOKEN;
  if (token) {
    if (!token.startsWith('xoxb-')) {
      process.stderr.write('streamdoctor local-slack: SLACK_BOT_TOKEN must be a bot token (xoxb-…)\n');
      return 2;
    }
    options.bots = [{ ...DEFAULT_BOT, token }];
  }
  let slack;
  try {
    slack = await startLocalSlack(options);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`streamdoctor local-slack: could not start: ${message}\n`);
    return 1;
  }
  process.stdout.write(
    `Local Slack is running.\n` +
      `  chat view:    ${slack.url}/\n` +
      `  Web API:      ${slack.apiUrl}   (set SLACK_API_URL to this)\n` +
      `  requests to:  ${flags.requestUrl}\n` +
      `Press Ctrl+C to stop.\n`,
  );
  if (!['127.0.0.1', '::1', 'localhost'].includes(flags.host)) {
    // The admin API acts as any user without a password: fine on loopback, not on a shared network.
    process.stderr.write(`warning: listening on ${flags.host}; anyone who can reach it can act as any user of this stand-in\n`);
  }
  await waitForStopSignal();
  await slack.close();
  return 0;
}
