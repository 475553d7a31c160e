import { Writable } from 'node:stream';
import { createLogger } from '../../src/observability/logger.js';

/** A real logger whose JSON lines are kept in `lines`, parsed, for a test to read. */
export function capturedLogger() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger({ name: 'test', destination }) };
}
