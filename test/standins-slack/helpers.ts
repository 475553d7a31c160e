/** Shared pieces for the local Slack tests: realistic alert blocks and a manual clock. */
import { readFileSync } from 'node:fs';
import type { Json } from '../../src/standins/slack/types.js';

/** An incident alert as the app renders it (generated from src/slack/render/incident-message.ts). */
export const LAG_ALERT = JSON.parse(readFileSync(new URL('./fixtures/lag-alert.json', import.meta.url), 'utf8')) as {
  open: { text: string; blocks: Json[] };
  acknowledged: { text: string; blocks: Json[] };
};

export const TOKEN = 'xoxb-local-streamdoctor';
export const ALERTS = 'C0DATAALRT';
export const MARIA = 'U0MARIA001';

/** A clock tests move by hand (trigger_id and response_url expiry, rate limits). */
export class ManualClock {
  constructor(public ms = Date.parse('2026-11-29T09:00:00Z')) {}
  now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** POSTs to the Web API the way curl would, returning status, headers and JSON. */
export async function callApi(
  apiUrl: string,
  method: string,
  body: Record<string, unknown> | string,
  options: { token?: string | null; contentType?: string } = {},
): Promise<{ status: number; headers: Headers; json: Record<string, any> }> {
  const headers: Record<string, string> = {};
  const token = options.token === undefined ? TOKEN : options.token;
  if (token) headers.authorization = `Bearer ${token}`;
  let payload: string;
  if (typeof body === 'string') {
    payload = body;
    headers['content-type'] = options.contentType ?? 'application/x-www-form-urlencoded';
  } else {
    payload = JSON.stringify(body);
    headers['content-type'] = options.contentType ?? 'application/json; charset=utf-8';
  }
  const response = await fetch(`${apiUrl}${method}`, { method: 'POST', headers, body: payload });
  return { status: response.status, headers: response.headers, json: (await response.json()) as Record<string, any> };
}
