/**
 * Wraps every listener: acknowledges if the listener failed before it could, logs one clear line
 * (never a token: the logger redacts), and tells the person with an ephemeral message, never a
 * stack trace and never a channel post.
 */
import type { AllMiddlewareArgs, AnyMiddlewareArgs, RespondFn } from '@slack/bolt';
import { redactSecrets, type Logger } from '../observability/logger.js';
import { authFailureMessage } from './auth-failure-reply.js';

/** Web API errors that mean the bot token itself is no good (revoked, uninstalled, expired). */
const TOKEN_ERRORS = new Set(['invalid_auth', 'not_authed', 'token_revoked', 'token_expired', 'account_inactive']);

type GuardedArgs = AnyMiddlewareArgs & AllMiddlewareArgs & { ack?: (response?: never) => Promise<void>; respond?: RespondFn };

/**
 * ioredis reports a lost connection without a code ("Connection is closed.", "Stream isn't
 * writeable…" when the offline queue is off, MaxRetriesPerRequestError); these mean the store is
 * unreachable, not that the request was wrong.
 */
const REDIS_CONNECTION_MESSAGE = /Connection is closed|Stream isn't writeable|enableOfflineQueue|Reached the max retries per request|connect ETIMEDOUT|Command timed out/i;
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND']);

/** True when the error says Redis could not be reached (so nothing was changed by the failed call). */
export function isStoreUnreachable(error: unknown): boolean {
  const e = error as { name?: unknown; message?: unknown; code?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  if (e.name === 'MaxRetriesPerRequestError') return true;
  if (typeof e.code === 'string' && (CONNECTION_CODES.has(e.code) || e.code === 'streamdoctor_redis_unavailable')) return true;
  return typeof e.message === 'string' && REDIS_CONNECTION_MESSAGE.test(e.message);
}

/** A stable code for the log line and the user's message. */
export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  // Node's own codes (ERR_HTTP_HEADERS_SENT, …) say nothing to the person: an internal error.
  if (typeof code === 'string' && /^[a-z0-9_]{3,60}$/i.test(code) && !code.startsWith('ERR_')) return code;
  if (isStoreUnreachable(error)) return 'streamdoctor_store_unavailable';
  return 'streamdoctor_internal_error';
}

export function userFacingError(error: unknown): string {
  const code = errorCode(error);
  if (code === 'slack_webapi_platform_error') {
    const platform = (error as { data?: { error?: string } }).data?.error ?? 'unknown';
    if (TOKEN_ERRORS.has(platform)) return authFailureMessage(platform);
    return `Slack refused the request (\`${platform}\`). If it says \`not_in_channel\` or \`channel_not_found\`, invite the app to the channel and try again.`;
  }
  if (code.startsWith('streamdoctor_store') || code === 'streamdoctor_redis_unavailable' || CONNECTION_CODES.has(code)) {
    // The connection can drop between two writes, so "nothing was changed" would not always be true.
    return `StreamDoctor could not reach its store (\`${code}\`). Try again in a minute; a status check shows what took effect.`;
  }
  return `Sorry, that did not work (\`${code}\`). It is logged for the team running StreamDoctor; try again in a minute.`;
}

export function guardListener<A extends GuardedArgs>(name: string, logger: Logger, listener: (args: A) => Promise<void>): (args: A) => Promise<void> {
  return async (args: A) => {
    let acked = false;
    const originalAck = args.ack;
    if (originalAck) {
      (args as { ack: unknown }).ack = async (response?: never) => {
        acked = true;
        try {
          return await originalAck(response);
        } catch (error) {
          // Too late: the receiver already answered Slack (its no-ack timeout). The listener goes on
          // and answers through response_url, which stays valid for 30 minutes.
          if ((error as { code?: unknown }).code !== 'ERR_HTTP_HEADERS_SENT') throw error;
          logger.warn({ listener: name }, `slack listener ${name} acknowledged after Slack's 3 s; answering through response_url`);
        }
      };
    }
    try {
      await listener(args);
    } catch (error) {
      const code = errorCode(error);
      logger.error(
        { listener: name, code, err: error, user: (args.body as { user_id?: string; user?: { id?: string } })?.user_id ?? (args.body as { user?: { id?: string } })?.user?.id },
        `slack listener ${name} failed: ${redactSecrets((error as Error)?.message ?? String(error))}`,
      );
      try {
        if (originalAck && !acked) await originalAck();
        if (args.respond) await args.respond({ response_type: 'ephemeral', replace_original: false, text: userFacingError(error) });
      } catch (replyError) {
        logger.warn({ listener: name, err: replyError }, 'could not tell the user about the failure');
      }
    }
  };
}
