/**
 * Turns a Databricks error response into a typed error. Bodies come in several shapes
 * (reference §2h): the standard `{error_code, message, details}`, legacy `{error}`, SCIM
 * `{detail, status}`, HTML from gateways, or `ERROR_CODE: message` text. All are handled; none throws.
 */
import { redactSecrets } from '../observability/logger.js';
import {
  DatabricksApiError,
  DatabricksUnavailableError,
  NotFoundError,
  RateLimitedError,
  REJECTED_TOKEN,
  UnauthenticatedError,
  type DatabricksErrorInit,
} from './errors.js';

export interface ErrorResponse {
  status: number;
  headers: Record<string, unknown>;
  body: string;
  endpoint: string;
}

interface ParsedBody {
  errorCode?: string;
  message?: string;
  details: unknown[];
}

const MAX_MESSAGE = 500;

function parseBody(body: string): ParsedBody {
  const text = body.trim();
  if (text.startsWith('{')) {
    try {
      const json = JSON.parse(text) as Record<string, unknown>;
      const details = Array.isArray(json.details) ? json.details : [];
      const errorCode = typeof json.error_code === 'string' ? json.error_code : undefined;
      const message =
        typeof json.message === 'string'
          ? json.message
          : typeof json.error === 'string'
            ? json.error
            : typeof json.detail === 'string'
              ? json.detail
              : undefined;
      return { errorCode, message, details };
    } catch {
      // fall through to text handling
    }
  }
  const pre = /<pre>([\s\S]*?)<\/pre>/i.exec(text);
  const plain = (pre ? pre[1]! : text.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ').trim();
  const coded = /^([A-Z][A-Z_]{2,}):\s*(.*)$/.exec(plain);
  if (coded) return { errorCode: coded[1], message: coded[2], details: [] };
  return { message: plain || undefined, details: [] };
}

/**
 * Parses `Retry-After` (seconds, or an HTTP date such as `Wed, 21 Oct 2026 07:28:00 GMT`) to ms;
 * undefined for anything else, so the caller's own backoff applies. `Date.parse` alone takes `-5`
 * or `5, 7` for dates long past: no wait at all.
 */
export function parseRetryAfter(value: unknown, nowMs: number): number | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const text = String(value).trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1_000);
  // HTTP dates name the month (IMF-fixdate, RFC 850, asctime all do) and end in the time of day.
  if (!/[A-Za-z]{3}/.test(text) || !/\d{2}:\d{2}:\d{2}/.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isFinite(date)) return Math.max(0, date - nowMs);
  return undefined;
}

/** `RetryInfo.retry_delay` such as `"42.000000001s"` → ms. */
function retryInfoDelay(details: unknown[]): number | undefined {
  for (const detail of details) {
    if (!detail || typeof detail !== 'object') continue;
    const record = detail as Record<string, unknown>;
    if (String(record['@type'] ?? '').endsWith('google.rpc.RetryInfo') && typeof record.retry_delay === 'string') {
      const match = /^(\d+(?:\.\d+)?)s$/.exec(record.retry_delay);
      if (match) return Math.round(Number(match[1]) * 1_000);
    }
  }
  return undefined;
}

function requestIdFrom(headers: Record<string, unknown>, details: unknown[]): string | undefined {
  const header = headers['x-request-id'] ?? headers['x-databricks-request-id'];
  if (typeof header === 'string' && header) return header;
  for (const detail of details) {
    const record = detail as Record<string, unknown> | null;
    if (record && String(record['@type'] ?? '').endsWith('google.rpc.RequestInfo') && typeof record.request_id === 'string') {
      return record.request_id;
    }
  }
  return undefined;
}

function defaultCode(status: number): string {
  if (status === 400) return 'BAD_REQUEST';
  if (status === 401) return 'UNAUTHENTICATED';
  if (status === 403) return 'PERMISSION_DENIED';
  if (status === 404) return 'NOT_FOUND';
  if (status === 429) return 'REQUEST_LIMIT_EXCEEDED';
  if (status === 503) return 'TEMPORARILY_UNAVAILABLE';
  return 'UNKNOWN';
}

/** The typed error for an HTTP error response. */
export function errorFromResponse(response: ErrorResponse, nowMs: number = Date.now()): DatabricksApiError {
  const parsed = parseBody(response.body);
  // A bad, revoked or expired token is often a 403 (`{"error_code": 403, "message": "Invalid access
  // token."}`, a number, not a code), and an expired OAuth token has been a 400: the words tell.
  const words = parsed.message ?? String(response.headers['x-databricks-reason-phrase'] ?? '');
  const tokenRejected = response.status === 401 || ((response.status === 403 || response.status === 400) && REJECTED_TOKEN.test(words));
  const errorCode = parsed.errorCode ?? (tokenRejected ? 'UNAUTHENTICATED' : defaultCode(response.status));
  const retryAfterMs = parseRetryAfter(response.headers['retry-after'], nowMs) ?? retryInfoDelay(parsed.details);
  const init: DatabricksErrorInit = {
    errorCode,
    httpStatus: response.status,
    requestId: requestIdFrom(response.headers, parsed.details),
    retryAfterMs,
    endpoint: response.endpoint,
    details: parsed.details,
  };
  const said = parsed.message ? redactSecrets(parsed.message).slice(0, MAX_MESSAGE) : 'no message';
  const message = `Databricks ${response.endpoint} answered ${response.status} ${errorCode}: ${said}`;
  if (response.status === 429 || errorCode === 'REQUEST_LIMIT_EXCEEDED') return new RateLimitedError(message, init);
  if (tokenRejected || response.status === 403) return new UnauthenticatedError(message, init, tokenRejected);
  if (response.status === 404) return new NotFoundError(message, init);
  if (response.status >= 500) return new DatabricksUnavailableError(message, init);
  return new DatabricksApiError(message, init);
}
