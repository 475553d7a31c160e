/**
 * The `authorize` seam. Today: one workspace, one bot token; `auth.test` runs once (lazily, at the
 * first request) to learn the bot's user id so Bolt can ignore the bot's own events. Multi-workspace
 * OAuth can replace this function without touching any handler.
 */
import { StreamDoctorError } from '../util/errors.js';
import { webApi, type Authorize, type AuthorizeResult } from '@slack/bolt';

type WebClientOptions = webApi.WebClientOptions;

export class SlackAuthError extends StreamDoctorError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('streamdoctor_slack_auth_failed', message, options);
  }
}

export function singleWorkspaceAuthorize(botToken: string, clientOptions: WebClientOptions = {}): Authorize<boolean> {
  let pending: Promise<AuthorizeResult> | null = null;
  const lookup = async (): Promise<AuthorizeResult> => {
    // Bounded by the app's client options (timeout, two quick retries): every request waits on this.
    const client = new webApi.WebClient(botToken, { retryConfig: { retries: 2, maxTimeout: 1000 }, ...clientOptions });
    try {
      const result = await client.auth.test();
      return { botToken, botId: result.bot_id as string | undefined, botUserId: result.user_id as string | undefined, teamId: result.team_id as string | undefined };
    } catch (error) {
      throw new SlackAuthError(
        `auth.test failed with SLACK_BOT_TOKEN (${(error as { data?: { error?: string } }).data?.error ?? (error as Error).message}); check the token and that the app is installed`,
        { cause: error },
      );
    }
  };
  return async () => {
    pending ??= lookup().catch((error: unknown) => {
      pending = null; // retry on the next request instead of failing forever
      throw error;
    });
    return pending;
  };
}
