/**
 * Typed errors for Databricks calls. Each carries a stable `code` (`streamdoctor_*`) that callers and
 * metrics switch on, and never the token: messages are built from the response body and the
 * request path only.
 */

import { StreamDoctorError } from '../util/errors.js';

export interface DatabricksErrorInit {
  /** Databricks `error_code`, e.g. `RESOURCE_DOES_NOT_EXIST`; `UNKNOWN` when the body had none. */
  errorCode: string;
  /** HTTP status; 0 when no response arrived. */
  httpStatus: number;
  /** `x-request-id` header or `RequestInfo.request_id` detail, for support tickets. */
  requestId?: string;
  /** How long the server asked us to wait (Retry-After header or RetryInfo detail), ms. */
  retryAfterMs?: number;
  /** Request method and path (no query string, no credentials). */
  endpoint?: string;
  details?: unknown[];
}

/** Any error returned by a Databricks REST endpoint. */
export class DatabricksApiError extends StreamDoctorError {
  readonly errorCode: string;
  readonly httpStatus: number;
  readonly requestId: string | undefined;
  readonly retryAfterMs: number | undefined;
  readonly endpoint: string | undefined;
  readonly details: unknown[];

  constructor(message: string, init: DatabricksErrorInit, code = 'streamdoctor_databricks_api_error') {
    super(code, message);
    this.errorCode = init.errorCode;
    this.httpStatus = init.httpStatus;
    this.requestId = init.requestId;
    this.retryAfterMs = init.retryAfterMs;
    this.endpoint = init.endpoint;
    this.details = init.details ?? [];
  }
}

/** 429 REQUEST_LIMIT_EXCEEDED / RESOURCE_EXHAUSTED that outlived the retry budget. */
export class RateLimitedError extends DatabricksApiError {
  constructor(message: string, init: DatabricksErrorInit) {
    super(message, init, 'streamdoctor_databricks_rate_limited');
  }
}

/**
 * Databricks' words for a token it will not take: invalid, revoked, expired or about to expire. It
 * says so with 403 (and has with 400 for an expired OAuth token), not only 401.
 */
export const REJECTED_TOKEN = /invalid access token|token (is )?expir(ed|ing)|ExpiredJwt/i;

/**
 * Credentials refused (401, or a 403 / 400 whose message says the token is invalid or expired), or a
 * 403 for a permission the principal lacks.
 */
export class UnauthenticatedError extends DatabricksApiError {
  /** The token itself was refused (re-issue or refresh it), not one permission. */
  readonly credentialsRejected: boolean;

  /** @param credentialsRejected @defaultValue true unless the status is 403 */
  constructor(message: string, init: DatabricksErrorInit, credentialsRejected = init.httpStatus !== 403) {
    super(message, init, credentialsRejected ? 'streamdoctor_databricks_unauthenticated' : 'streamdoctor_databricks_permission_denied');
    this.credentialsRejected = credentialsRejected;
  }
}

/** 404 RESOURCE_DOES_NOT_EXIST / NOT_FOUND: a job, pipeline, statement or warehouse id that is wrong. */
export class NotFoundError extends DatabricksApiError {
  constructor(message: string, init: DatabricksErrorInit) {
    super(message, init, 'streamdoctor_databricks_not_found');
  }
}

/** 5xx, timeouts, resets and malformed bodies that outlived the retry budget. */
export class DatabricksUnavailableError extends DatabricksApiError {
  constructor(message: string, init: DatabricksErrorInit) {
    super(message, init, 'streamdoctor_databricks_unavailable');
  }
}

/**
 * A SQL statement that ran and failed (HTTP 200 with `status.state = FAILED`), or was canceled/closed.
 * `sqlState` is the ANSI SQLSTATE, e.g. `42P01` for a missing table.
 */
export class StatementFailedError extends DatabricksApiError {
  readonly sqlState: string | undefined;
  readonly statementId: string;
  readonly state: string;

  constructor(message: string, init: DatabricksErrorInit & { sqlState?: string; statementId: string; state: string }) {
    super(message, init, 'streamdoctor_databricks_statement_failed');
    this.sqlState = init.sqlState;
    this.statementId = init.statementId;
    this.state = init.state;
  }
}

/** Kinds used by counters and log lines. */
export type DatabricksErrorKind =
  | 'rate_limited'
  | 'unauthenticated'
  | 'not_found'
  | 'unavailable'
  | 'statement_failed'
  | 'api_error';

export function errorKind(error: unknown): DatabricksErrorKind {
  if (error instanceof RateLimitedError) return 'rate_limited';
  if (error instanceof UnauthenticatedError) return 'unauthenticated';
  if (error instanceof NotFoundError) return 'not_found';
  if (error instanceof DatabricksUnavailableError) return 'unavailable';
  if (error instanceof StatementFailedError) return 'statement_failed';
  return 'api_error';
}
