/**
 * Slack request signing: `X-Slack-Signature: v0=<hex HMAC-SHA256(secret, "v0:{ts}:{raw body}")>` and
 * `X-Slack-Request-Timestamp: {ts}` (seconds). Exported on its own so tests can forge signatures and
 * stale timestamps on purpose.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** `v0=…` for a raw body signed at `timestampSec`. */
export function computeSlackSignature(signingSecret: string, timestampSec: number, rawBody: string | Buffer): string {
  const hmac = createHmac('sha256', signingSecret);
  hmac.update(`v0:${timestampSec}:`);
  hmac.update(rawBody);
  return `v0=${hmac.digest('hex')}`;
}

export interface SignOptions {
  signingSecret: string;
  rawBody: string | Buffer;
  /** Seconds since the epoch. @defaultValue now */
  timestampSec?: number;
}

/** The two headers Slack sends with every request to an app. */
export function signSlackRequest(options: SignOptions): {
  'x-slack-signature': string;
  'x-slack-request-timestamp': string;
} {
  const ts = options.timestampSec ?? Math.floor(Date.now() / 1000);
  return {
    'x-slack-signature': computeSlackSignature(options.signingSecret, ts, options.rawBody),
    'x-slack-request-timestamp': String(ts),
  };
}

/** Checks a signature as an app must: constant-time compare, at most `maxAgeSec` old. */
export function verifySlackSignature(options: {
  signingSecret: string;
  rawBody: string | Buffer;
  signature: string | undefined;
  timestampSec: string | undefined;
  nowMs?: number;
  /** @defaultValue 300 */
  maxAgeSec?: number;
}): boolean {
  const ts = Number(options.timestampSec);
  if (!options.signature || !Number.isInteger(ts)) return false;
  const now = Math.floor((options.nowMs ?? Date.now()) / 1000);
  if (Math.abs(now - ts) > (options.maxAgeSec ?? 300)) return false;
  const expected = Buffer.from(computeSlackSignature(options.signingSecret, ts, options.rawBody));
  const given = Buffer.from(options.signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
