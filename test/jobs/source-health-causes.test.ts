/**
 * Source health names the cause from what Databricks answered, as the client turns it into an error:
 * a 403 "Invalid access token." is the credentials (re-issue the token), not a permission to grant; a
 * 404 on the statement submit is a missing warehouse, while a 404 reading a statement or a result
 * chunk afterwards is a statement or result that is gone (expired), which the next poll runs again.
 */
import { describe, expect, it } from 'vitest';
import { classifyReadFailure } from '../../jobs/source-health.js';
import { errorFromResponse } from '../../src/databricks/error-body.js';

const STATEMENT = '01ef2a3b-1c2d-1e3f-9a8b-0c1d2e3f4a5b';
const answer = (status: number, body: Record<string, unknown>, endpoint: string) => errorFromResponse({ status, headers: {}, body: JSON.stringify(body), endpoint });

describe('source health: refused credentials', () => {
  it('reads a 403, 400 or 401 that says the token is invalid or expired as refused credentials', () => {
    for (const error of [
      answer(403, { error_code: 403, message: 'Invalid access token.' }, 'POST /api/2.0/sql/statements'),
      answer(403, { error_code: 403, message: 'Token is expiring within 30 seconds. (token expired)' }, 'GET /api/2.2/jobs/runs/list'),
      answer(400, { error_code: 'BAD_REQUEST', message: 'ExpiredJwtException: JWT expired at 2026-11-29T08:00:00Z' }, 'GET /api/2.0/pipelines/p/events'),
      answer(401, { error_code: 401, message: 'Token is expired.' }, 'GET /api/2.0/pipelines/p/events'),
    ]) {
      const failure = classifyReadFailure(error);
      expect(failure.code, error.message).toBe('auth_refused');
      expect(failure.reason).toMatch(/^Databricks refused the credentials/);
      expect(failure.action).toMatch(/re-issue the token/);
    }
  });

  it('keeps a 403 for a missing permission a permission refusal', () => {
    const failure = classifyReadFailure(answer(403, { error_code: 'PERMISSION_DENIED', message: 'User does not have CAN USE on warehouse 0c7d5e2f9a1b3c46.' }, 'POST /api/2.0/sql/statements'));
    expect(failure.code).toBe('permission_denied');
    expect(failure.action).toMatch(/CAN USE on the SQL warehouse/);
  });
});

describe('source health: 404 on SQL statements', () => {
  it('names a missing warehouse only for the submit', () => {
    const failure = classifyReadFailure(answer(404, { error_code: 'RESOURCE_DOES_NOT_EXIST', message: 'SQL warehouse 0c7d5e2f9a1b3c46 does not exist.' }, 'POST /api/2.0/sql/statements'));
    expect(failure.code).toBe('warehouse_gone');
  });

  it('reads a 404 on a statement or a result chunk as a statement or result that is gone, retried next poll', () => {
    for (const endpoint of [`GET /api/2.0/sql/statements/${STATEMENT}`, `GET /api/2.0/sql/statements/${STATEMENT}/result/chunks/3`]) {
      const failure = classifyReadFailure(answer(404, { error_code: 'NOT_FOUND', message: `Statement ${STATEMENT} not found.` }, endpoint));
      expect(failure.code, endpoint).toBe('result_expired');
      expect(failure.reason).not.toMatch(/warehouse/i);
      expect(failure.reason).toMatch(/statement or its result was not found/);
      expect(failure.action).toMatch(/next poll/);
      expect(failure.severity).toBe('warning');
    }
  });
});
