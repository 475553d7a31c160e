/**
 * Finds a Redis for the process so `npm start` works on a laptop with nothing configured:
 * `REDIS_URL` when set; else 127.0.0.1:6379 when something there answers PING; else a private
 * `redis-server` on a free port in a temp dir (no persistence) for the life of the process; else a
 * typed error whose message says how to get Redis.
 */
import { redactRedisUrl } from '../config/redis-url.js';
import { StreamDoctorError } from '../util/errors.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, accessSync, constants as fsConstants } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export type RedisOrigin = 'env' | 'local' | 'private';

export interface DiscoveredRedis {
  /** A redis:// URL ioredis accepts. */
  url: string;
  /** Where it came from: `REDIS_URL`, the default local port, or a private server we started. */
  origin: RedisOrigin;
  /** Stops the private server (and removes its temp dir); a no-op for the other origins. */
  close(): Promise<void>;
}

export interface RedisDiscoveryOptions {
  /** Environment to read `REDIS_URL` and `PATH` from. @defaultValue process.env */
  env?: NodeJS.ProcessEnv;
  /** Host probed when `REDIS_URL` is unset. @defaultValue '127.0.0.1' */
  localHost?: string;
  /** Port probed when `REDIS_URL` is unset. @defaultValue 6379 */
  localPort?: number;
  /**
   * The `redis-server` binary for a private server: a path, or null to never start one.
   * @defaultValue the first `redis-server` on `PATH`
   */
  redisServer?: string | null;
  /** How long a PING may take before the port counts as silent. @defaultValue 500 */
  pingTimeoutMs?: number;
  /** How long a private server may take to answer PING after spawn. @defaultValue 5000 */
  startTimeoutMs?: number;
}

export class RedisUnavailableError extends StreamDoctorError {
  constructor(message: string) {
    super('streamdoctor_redis_unavailable', message);
  }
}

/** The message printed when no Redis can be found or started; says what to do next. */
export function redisHelpText(host: string, port: number): string {
  return [
    `StreamDoctor needs Redis and none was found: REDIS_URL is not set, nothing answers on ${host}:${port},`,
    'and no redis-server is installed to start a private one.',
    'Get Redis in one of these ways, then run the command again:',
    '  - Debian/Ubuntu:  sudo apt-get install -y redis-server',
    '  - macOS:          brew install redis',
    '  - Docker:         docker run -d -p 6379:6379 redis:7',
    '  - or point at an existing one:  REDIS_URL=redis://host:6379 npm start',
  ].join('\n');
}

/**
 * Sends PING over a raw socket and resolves true on any Redis reply (`+PONG`, or an error such as
 * `-NOAUTH`, which still means Redis is there). Anything else, silence or a refused connection is false.
 */
export function pingRedis(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    let settled = false;
    let reply = '';
    const finish = (answer: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.once('error', () => finish(false));
    socket.once('close', () => finish(false));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString('latin1');
      if (!reply.includes('\r\n')) return;
      finish(/^(\+PONG|-NOAUTH|-ERR|-WRONGPASS|-DENIED)/.test(reply));
    });
    socket.connect(port, host, () => socket.write('PING\r\n'));
  });
}

/** First executable `redis-server` on PATH, or null. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, fsConstants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return null;
}

/** A port that was free a moment ago (the OS picks it; we close it again for redis-server to bind). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Starts redis-server on a free loopback port in a temp dir; retries a couple of times on a port race. */
export async function startPrivateRedis(
  binary: string,
  startTimeoutMs = 5_000,
  pingTimeoutMs = 500,
): Promise<DiscoveredRedis> {
  let lastError = '';
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'streamdoctor-redis-'));
    const child = spawn(
      binary,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no', '--loglevel', 'warning'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let exited = false;
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < 4_000) stderr += chunk.toString();
    });
    child.once('exit', () => {
      exited = true;
    });
    child.once('error', (err) => {
      exited = true;
      stderr += err.message;
    });
    const deadline = Date.now() + startTimeoutMs;
    while (!exited && Date.now() < deadline) {
      if (await pingRedis('127.0.0.1', port, pingTimeoutMs)) return privateHandle(child, port, dir);
      await sleep(50);
    }
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    lastError = stderr.trim() || `no answer on port ${port} within ${startTimeoutMs} ms`;
  }
  throw new RedisUnavailableError(`could not start a private redis-server (${binary}): ${lastError}`);
}

function privateHandle(child: ChildProcess, port: number, dir: string): DiscoveredRedis {
  let closed = false;
  // Kill the private server however this process ends (exit handlers must be synchronous).
  const onExit = (): void => {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  return {
    url: `redis://127.0.0.1:${port}`,
    origin: 'private',
    async close() {
      if (closed) return;
      closed = true;
      process.removeListener('exit', onExit);
      if (child.exitCode === null && child.signalCode === null) {
        const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
        await gone;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Finds a Redis as described at the top of this file; throws `RedisUnavailableError` when there is none. */
export async function discoverRedis(options: RedisDiscoveryOptions = {}): Promise<DiscoveredRedis> {
  const env = options.env ?? process.env;
  const noop = async (): Promise<void> => {};
  const fromEnv = env.REDIS_URL?.trim();
  if (fromEnv) return { url: fromEnv, origin: 'env', close: noop };

  const host = options.localHost ?? '127.0.0.1';
  const port = options.localPort ?? 6379;
  const pingTimeoutMs = options.pingTimeoutMs ?? 500;
  if (await pingRedis(host, port, pingTimeoutMs)) {
    return { url: `redis://${host}:${port}`, origin: 'local', close: noop };
  }

  const binary = options.redisServer === undefined ? findOnPath('redis-server', env) : options.redisServer;
  if (!binary) throw new RedisUnavailableError(redisHelpText(host, port));
  return startPrivateRedis(binary, options.startTimeoutMs ?? 5_000, pingTimeoutMs);
}

/**
 * The URL for logs and banners, its credentials masked whole: a password may hold an un-encoded `/`
 * or `:`, so no part of what comes before the last `@` is shown (src/config/redis-url.ts).
 */
export function displayRedisUrl(url: string): string {
  return redactRedisUrl(url, '***');
}

/**
 * Whether the Redis at a `redis://` URL answers PING now. `rediss://` (TLS) cannot be probed over a
 * raw socket and counts as answering; the client reports its own errors for those.
 */
export async function redisUrlAnswers(url: string, timeoutMs = 2_000): Promise<boolean> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === 'rediss:') return true;
  if (parsed.protocol !== 'redis:') return false;
  const host = parsed.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
  return pingRedis(host, Number(parsed.port || 6379), timeoutMs);
}
