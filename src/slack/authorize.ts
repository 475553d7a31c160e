/**
 * The `authorize` seam. Today: one workspace, one bot token; `auth.test` runs once to learn the bot's
 * user id so Bolt can ignore the bot's own events: the app starts it when it starts listening
 * (`warm`), so the first requests do not wait on it past Slack's 3 s. Multi-workspace OAuth can
 * replace this function without touching any handler.
 */
import { StreamDoctorError } from '../util/errors.js';
import { webApi, type Authorize, type AuthorizeResult } from '@slack/bolt';

type WebClientOptions = webApi.WebClientOptions;

/** Slack's answers to auth.test that say nothing about the token: ask again later. */
const TRANSIENT_ERRORS: ReadonlySet<string> = new Set(['ratelimited', 'fatal_error', 'internal_error', 'request_timeout', 'service_unavailable']);

/**
 * `auth.test` failed. `refused`: Slack answered that the token is no good; otherwise Slack could not
 * be asked (a timeout, a 5xx, the network) and the token may well be fine.
 */
export class SlackAuthError extends StreamDoctorError {
  readonly refused: boolean;
  constructor(message: string, refused: boolean, options?: { cause?: unknown }) {
    super(refused ? 'streamdoctor_slack_auth_failed' : 'streamdoctor_slack_unavailable', message, options);
    this.refused = refused;
  }
}

/** A single-workspace `authorize`, with `warm()` to start its one `auth.test` ahead of the first request. */
export type WarmAuthorize = Authorize<boolean> & { warm(): Promise<void> };

export function singleWorkspaceAuthorize(botToken: string, clientOptions: WebClientOptions = {}): WarmAuthorize {
  let pending: Promise<AuthorizeResult> | null = null;
  const lookup = async (): Promise<AuthorizeResult> => {
    // Bounded by the app's client options (timeout, two quick retries): every request waits on this.
    const client = new webApi.WebClient(botToken, { retryConfig: { retries: 2, maxTimeout: 1000 }, ...clientOptions });
    try {
      const result = await client.auth.test();
      return { botToken, botId: result.bot_id as string | undefined, botUserId: result.user_id as string | undefined, teamId: result.team_id as string | undefined };
    } catch (error) {
      const platform = (error as { data?: { error?: unknown } }).data?.error;
      if ((error as { code?: unknown }).code === 'slack_webapi_platform_error' && typeof platform === 'string' && !TRANSIENT_ERRORS.has(platform)) {
        throw new SlackAuthError(`auth.test refused SLACK_BOT_TOKEN (${platform}); check the token and that the app is installed`, true, { cause: error });
      }
      throw new SlackAuthError(
        `auth.test could not be completed (${typeof platform === 'string' ? platform : (error as Error).message}); Slack may be unavailable, it is asked again at the next request`,
        false,
        { cause: error },
      );
    }
  };
  const authorize = async () => {
    pending ??= lookup().catch((error: unknown) => {
      pending = null; // retry on the next request instead of failing forever
      throw error;
    });
    return pending;
  };
  return Object.assign(authorize, { warm: async () => void (await authorize()) });
}
