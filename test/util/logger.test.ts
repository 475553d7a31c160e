import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, redactSecrets } from '../../src/observability/logger.js';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, destination };
}

describe('logger', () => {
  it('redacts secret keys and token shapes', () => {
    const { lines, destination } = capture();
    const log = createLogger({ name: 'test', destination });
    log.info({ token: 'dapi0123456789abcdef0123', nested: { clientSecret: 's3cr3t' } }, 'called with Bearer abcdefghijkl123');
    log.error({ err: new Error('auth failed for xoxb-1234-5678-abcdef') }, 'slack error');
    const text = lines.join('');
    expect(text).not.toContain('dapi0123456789abcdef0123');
    expect(text).not.toContain('s3cr3t');
    expect(text).not.toContain('abcdefghijkl123');
    expect(text).not.toContain('xoxb-1234');
    expect(text).toContain('[REDACTED]');
    expect(JSON.parse(lines[0]!).level).toBe('info');
  });

  it('redactSecrets leaves ordinary text alone', () => {
    expect(redactSecrets('query orders_5min_agg is 12m behind')).toBe('query orders_5min_agg is 12m behind');
  });
});
