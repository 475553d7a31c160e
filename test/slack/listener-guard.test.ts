import { describe, expect, it } from 'vitest';
import { errorCode, isStoreUnreachable, userFacingError } from '../../src/slack/listener-guard.js';
import { redisOptionsFor } from '../../src/runtime/redis-client.js';

describe('store outages are named as such', () => {
  it.each([
    ['Command timed out'],
    ['Connection is closed.'],
    ["Stream isn't writeable and enableOfflineQueue options is false"],
    ['Reached the max retries per request limit (which is 1). Refer to "maxRetriesPerRequest" option for details.'],
  ])('%s → streamdoctor_store_unavailable', (message) => {
    const error = new Error(message);
    expect(isStoreUnreachable(error)).toBe(true);
    expect(errorCode(error)).toBe('streamdoctor_store_unavailable');
    expect(userFacingError(error)).toContain('could not reach its store');
  });

  it('leaves other failures as internal errors', () => {
    const error = new Error('Cannot read properties of undefined');
    expect(isStoreUnreachable(error)).toBe(false);
    expect(userFacingError(error)).toContain('streamdoctor_internal_error');
  });

  it('the web process gives up on a hung Redis instead of holding a Slack request', () => {
    const producer = redisOptionsFor('producer');
    expect(producer.commandTimeout).toBeGreaterThan(0);
    expect(producer.commandTimeout).toBeLessThanOrEqual(5000);
    // Workers wait through restarts: BullMQ needs blocking commands without a timeout.
    expect(redisOptionsFor('worker').commandTimeout).toBeUndefined();
  });
});
