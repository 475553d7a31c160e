/**
 * When the app cannot authorize a request (the bot token was revoked, or `auth.test` fails), Bolt
 * calls no listener and Slack shows the person nothing. A response_url needs no token, so the
 * person still gets a private line saying what is wrong; the operator gets the log line.
 */
import type { Logger } from '../observability/logger.js';

export interface AuthFailureReplyOptions {
  logger: Logger;
  /** The Web API base in use (a local Slack's response URLs live on its host). */
  slackApiUrl?: string;
  /** @defaultValue global fetch */
  fetch?: typeof fetch;
  /** @defaultValue 3000 */
  timeoutMs?: number;
}

/** The Slack error behind an authorization failure (`invalid_auth`, `account_inactive`, …). */
export function slackAuthErrorOf(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth += 1) {
    const platform = (current as { data?: { error?: unknown } }).data?.error;
    if (typeof platform === 'string' && /^[a-z_]{1,40}$/.test(platform)) return platform;
    current = (current as { cause?: unknown; original?: unknown }).cause ?? (current as { original?: unknown }).original;
  }
  return 'auth_failed';
}

/** True when authorization failed because Slack could not be asked (`SlackAuthError` not `refused`). */
function slackUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth += 1) {
    if ((current as { code?: unknown }).code === 'streamdoctor_slack_unavailable') return true;
    current = (current as { cause?: unknown; original?: unknown }).cause ?? (current as { original?: unknown }).original;
  }
  return false;
}

/** Only Slack's own hosts (or the configured local Slack) are sent anything. */
export function isSlackResponseUrl(url: string, slackApiUrl?: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const host = parsed.hostname.toLowerCase();
  if (parsed.protocol === 'https:' && (host === 'slack.com' || host.endsWith('.slack.com'))) return true;
  if (!slackApiUrl) return false;
  try {
    return new URL(slackApiUrl).host === parsed.host;
  } catch {
    return false;
  }
}

/** What the person is told when Slack could not be asked about the token (not a refusal). */
export const SLACK_UNAVAILABLE_MESSAGE =
  'StreamDoctor could not reach Slack to check its own access just now, so nothing was done. Try again in a minute.';

export function authFailureMessage(slackError: string): string {
  return `StreamDoctor cannot act in Slack right now: its bot token was refused (\`${slackError}\`), so nothing was done. The team running StreamDoctor needs to check SLACK_BOT_TOKEN and that the app is still installed.`;
}

/** Fire-and-forget: never delays Bolt's ack, never throws. */
export function replyToAuthFailure(body: unknown, error: unknown, options: AuthFailureReplyOptions): void {
  const responseUrl = (body as { response_url?: unknown } | null)?.response_url;
  if (typeof responseUrl !== 'string' || !isSlackResponseUrl(responseUrl, options.slackApiUrl)) return;
  const send = options.fetch ?? fetch;
  const text = slackUnavailable(error) ? SLACK_UNAVAILABLE_MESSAGE : authFailureMessage(slackAuthErrorOf(error));
  void send(responseUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ response_type: 'ephemeral', replace_original: false, text }),
    signal: AbortSignal.timeout(options.timeoutMs ?? 3000),
  })
    .then((response) => {
      if (!response.ok) options.logger.warn({ status: response.status }, 'could not tell the user that authorization failed');
    })
    .catch((err: unknown) => options.logger.warn({ err: { message: (err as Error)?.message } }, 'could not tell the user that authorization failed'));
}
