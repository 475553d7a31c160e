import { describe, expect, it } from 'vitest';
import { errorFromResponse, parseRetryAfter } from '../../src/databricks/error-body.js';
import { DatabricksApiError, NotFoundError, RateLimitedError, DatabricksUnavailableError } from '../../src/databricks/errors.js';

describe('errorFromResponse', () => {
  it('reads the standard body with RequestInfo and RetryInfo details', () => {
    const body = JSON.stringify({
      error_code: 'RESOURCE_EXHAUSTED',
      message: 'Too many requests for this workspace',
      details: [
        { '@type': 'type.googleapis.com/google.rpc.RequestInfo', request_id: 'req-8f2c', serving_data: '' },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retry_delay: '42.000000001s' },
      ],
    });
    const error = errorFromResponse({ status: 429, headers: {}, body, endpoint: 'GET /api/2.2/jobs/runs/list' });
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ errorCode: 'RESOURCE_EXHAUSTED', requestId: 'req-8f2c', retryAfterMs: 42_000, httpStatus: 429 });
  });

  it('prefers the Retry-After header and accepts an HTTP date', () => {
    expect(parseRetryAfter('7', 0)).toBe(7_000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
  });

  it('reads no date into a Retry-After that is none (Date.parse takes -5 or "5, 7" for dates long past: no wait at all)', () => {
    for (const value of ['-5', '5, 7', '-0.5', '1e3', 'Sept']) expect(parseRetryAfter(value, Date.UTC(2026, 8, 14)), value).toBeUndefined();
    expect(parseRetryAfter('Mon, 14 Sep 2026 00:00:09 GMT', Date.UTC(2026, 8, 14))).toBe(9_000);
  });

  it('handles legacy, HTML and ERROR_CODE: text bodies', () => {
    expect(errorFromResponse({ status: 400, headers: {}, body: '{"error":"Invalid job id"}', endpoint: 'GET /x' }).message).toContain('Invalid job id');
    const html = errorFromResponse({ status: 502, headers: {}, body: '<html><body><pre>Bad gateway from upstream</pre></body></html>', endpoint: 'GET /x' });
    expect(html).toBeInstanceOf(DatabricksUnavailableError);
    expect(html.message).toContain('Bad gateway from upstream');
    const coded = errorFromResponse({ status: 404, headers: {}, body: 'RESOURCE_DOES_NOT_EXIST: Run 7 does not exist', endpoint: 'GET /x' });
    expect(coded).toBeInstanceOf(NotFoundError);
    expect(coded.errorCode).toBe('RESOURCE_DOES_NOT_EXIST');
  });

  it('never repeats a credential that the server echoed back', () => {
    const error = errorFromResponse({
      status: 400,
      headers: {},
      body: JSON.stringify({ error_code: 'BAD_REQUEST', message: 'header Authorization: Bearer dapi0123456789abcdef0123 is malformed' }),
      endpoint: 'POST /api/2.0/sql/statements',
    });
    expect(error).toBeInstanceOf(DatabricksApiError);
    expect(error.message).not.toContain('dapi0123456789abcdef0123');
  });
});
