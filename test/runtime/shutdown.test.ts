/**
 * An unhandled rejection is not only logged: the process shuts down gracefully
 * (closers run: workers hand their jobs over) and exits with code 1, so the platform restarts it.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { createShutdown, uncaughtExceptionHandler, unhandledRejectionHandler } from '../../src/runtime/shutdown.js';

describe('shutdown', () => {
  it('an unhandled rejection logs, runs the closers once and exits 1', async () => {
    const lines: string[] = [];
    const logger = createLogger({ name: 'test', level: 'info', destination: new Writable({ write(chunk, _e, done) { lines.push(String(chunk)); done(); } }) });
    let closed = 0;
    const exits: number[] = [];
    const shutdown = createShutdown(async () => { closed += 1; }, { logger, exit: (code) => exits.push(code) });
    const handler = unhandledRejectionHandler(logger, shutdown);
    handler(new Error('socket hang up in a forgotten promise'));
    handler(new Error('a second one'));
    await shutdown('again');
    expect(closed).toBe(1);
    expect(exits).toEqual([1]);
    expect(lines.join('')).toContain('unhandled rejection; shutting down');
  });

  it('an uncaught exception in a server is logged with its stack, then the same graceful exit 1', async () => {
    const lines: string[] = [];
    const logger = createLogger({ name: 'test', level: 'info', destination: new Writable({ write(chunk, _e, done) { lines.push(String(chunk)); done(); } }) });
    const exits: number[] = [];
    const shutdown = createShutdown(async () => undefined, { logger, exit: (code) => exits.push(code) });
    uncaughtExceptionHandler(logger, shutdown)(new Error('thrown in a timer callback'));
    await shutdown('again');
    expect(exits).toEqual([1]);
    const logged = JSON.parse(lines.find((l) => l.includes('uncaught exception'))!) as { err: { stack: string } };
    expect(logged.err.stack).toMatch(/thrown in a timer callback\n\s+at /);
  });

  it('past the deadline, says what was still active for the role', async () => {
    const lines: string[] = [];
    const logger = createLogger({ name: 'test', level: 'info', destination: new Writable({ write(chunk, _e, done) { lines.push(String(chunk)); done(); } }) });
    const exits: number[] = [];
    void createShutdown(() => new Promise<void>(() => undefined), { logger, exit: (code) => exits.push(code), timeoutMs: 20, stillActive: 'Slack requests still running' })('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(exits).toEqual([1]);
    expect(lines.join('')).toContain('shutdown deadline passed; exiting with Slack requests still running');
    expect(lines.join('')).not.toContain('jobs');
  });

  it('a signal shuts down cleanly with exit 0', async () => {
    const logger = createLogger({ name: 'test', level: 'silent' });
    const exits: number[] = [];
    await createShutdown(async () => undefined, { logger, exit: (code) => exits.push(code) })('SIGTERM');
    expect(exits).toEqual([0]);
  });
});
