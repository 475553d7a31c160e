import { describe, expect, it } from 'vitest';
import { errorCode, guardListener, isStoreUnreachable, userFacingError } from '../../src/slack/listener-guard.js';
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

describe('a listener acknowledged too late', () => {
  it('goes on and answers through response_url instead of failing on the ack', async () => {
    const warned: string[] = [];
    const logger = { warn: (_o: unknown, msg: string) => warned.push(msg), error: () => undefined } as unknown as Parameters<typeof guardListener>[1];
    const answers: string[] = [];
    const tooLate = Object.assign(new Error('Cannot set headers after they are sent to the client'), { code: 'ERR_HTTP_HEADERS_SENT' });
    const guarded = guardListener('late', logger, async (args) => {
      await args.ack!();
      await args.respond!({ text: 'the real answer' });
    });
    await guarded({ ack: async () => Promise.reject(tooLate), respond: async (m: { text: string }) => void answers.push(m.text) } as never);
    expect(answers).toEqual(['the real answer']);
    expect(warned.join('\n')).toContain("acknowledged after Slack's 3 s");
  });

  it("never shows Node's own error codes to the person", () => {
    const error = Object.assign(new Error('x'), { code: 'ERR_STREAM_DESTROYED' });
    expect(errorCode(error)).toBe('streamdoctor_internal_error');
  });
});
