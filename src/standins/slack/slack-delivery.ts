/**
 * Sends requests into the app exactly as Slack does: signed POSTs to the app's request URL, form
 * bodies for commands and interactivity, JSON for events, with the retry headers when asked.
 * Signing can be overridden per request so tests can send forged signatures and stale timestamps.
 */
import { signSlackRequest } from './signing.js';
import type { Json } from './types.js';
import { interactionBody, type PayloadTeam } from './payloads.js';

export interface SlackDeliveryOptions {
  /** The app's request URL, e.g. http://127.0.0.1:3000/slack/events. */
  requestUrl?: string;
  signingSecret: string;
  /** Clock in ms. @defaultValue Date.now */
  now?: () => number;
  /** How long to wait for the app's answer; Slack gives up after 3 s. @defaultValue 3000 */
  timeoutMs?: number;
  /** fetch implementation. @defaultValue globalThis.fetch */
  fetch?: typeof fetch;
}

export interface SendOptions {
  /** Sign with this timestamp (seconds) instead of now: a stale one must be rejected. */
  timestampSec?: number;
  /** Sign with this secret instead of the configured one: a forged signature. */
  signingSecret?: string;
  /** Send this signature header verbatim. */
  signature?: string;
  /** Extra headers (e.g. retries). */
  headers?: Record<string, string>;
}

export interface DeliveryResult {
  /** HTTP status, or 0 when the app could not be reached or timed out. */
  status: number;
  /** Raw response body. */
  body: string;
  /** The body parsed as JSON, when it is JSON. */
  json?: unknown;
  /** Why the request failed, when status is 0: `timeout`, `unreachable`, `no_request_url`. */
  failure?: 'timeout' | 'unreachable' | 'no_request_url';
  durationMs: number;
}

export class SlackDelivery {
  private requestUrl: string | undefined;
  private readonly signingSecret: string;
  private readonly now: () => number;
  private readonly timeoutMs: number;
  private readonly fetchFn: typeof fetch;

  constructor(options: SlackDeliveryOptions) {
    this.requestUrl = options.requestUrl;
    this.signingSecret = options.signingSecret;
    this.now = options.now ?? Date.now;
    this.timeoutMs = options.timeoutMs ?? 3000;
    this.fetchFn = options.fetch ?? globalThis.fetch;
  }

  setRequestUrl(url: string | undefined): void {
    this.requestUrl = url;
  }

  getRequestUrl(): string | undefined {
    return this.requestUrl;
  }

  /** POSTs a raw body, signed. */
  async send(rawBody: string, contentType: string, options: SendOptions = {}): Promise<DeliveryResult> {
    const started = Date.now();
    if (!this.requestUrl) return { status: 0, body: '', failure: 'no_request_url', durationMs: 0 };
    const signed = signSlackRequest({
      signingSecret: options.signingSecret ?? this.signingSecret,
      rawBody,
      timestampSec: options.timestampSec ?? Math.floor(this.now() / 1000),
    });
    const headers: Record<string, string> = {
      'content-type': contentType,
      'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
      ...signed,
      ...(options.signature !== undefined ? { 'x-slack-signature': options.signature } : {}),
      ...(options.headers ?? {}),
    };
    try {
      const response = await this.fetchFn(this.requestUrl, {
        method: 'POST',
        headers,
        body: rawBody,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const body = await response.text();
      let json: unknown;
      if (body.trim().startsWith('{') || body.trim().startsWith('[')) {
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
      }
      return { status: response.status, body, ...(json !== undefined ? { json } : {}), durationMs: Date.now() - started };
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      return { status: 0, body: '', failure: timedOut ? 'timeout' : 'unreachable', durationMs: Date.now() - started };
    }
  }

  /** A slash command (form body from `slashCommandBody`). */
  sendSlashCommand(formBody: string, options?: SendOptions): Promise<DeliveryResult> {
    return this.send(formBody, 'application/x-www-form-urlencoded', options);
  }

  /** block_actions, view_submission, view_closed: `payload=<json>`. */
  sendInteraction(payload: Json, options?: SendOptions): Promise<DeliveryResult> {
    return this.send(interactionBody(payload), 'application/x-www-form-urlencoded', options);
  }

  /** An Events API envelope. `retryNum` adds X-Slack-Retry-Num / X-Slack-Retry-Reason as Slack's redeliveries do. */
  sendEvent(envelope: Json, options: SendOptions & { retryNum?: number; retryReason?: string } = {}): Promise<DeliveryResult> {
    const headers = { ...(options.headers ?? {}) };
    if (options.retryNum !== undefined) {
      headers['x-slack-retry-num'] = String(options.retryNum);
      headers['x-slack-retry-reason'] = options.retryReason ?? 'http_timeout';
    }
    return this.send(JSON.stringify(envelope), 'application/json', { ...options, headers });
  }

  /** The url_verification handshake; resolves true when the app echoes the challenge. */
  async verifyUrl(team: PayloadTeam, challenge = 'challenge-' + Math.random().toString(36).slice(2)): Promise<boolean> {
    const result = await this.send(
      JSON.stringify({ token: team.verificationToken, challenge, type: 'url_verification' }),
      'application/json',
    );
    const answer = result.json as { challenge?: string } | undefined;
    return result.status === 200 && (answer?.challenge === challenge || result.body === challenge);
  }
}
