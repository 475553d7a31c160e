/**
 * The real `bin/streamdoctor.mjs` (the compiled dist/, built by the global setup) in child
 * processes with real pipes: --version, --help on every command without side effects, usage errors,
 * diagnose on a terminal, --fail-on, a closed stdout (EPIPE) and unexpected errors (one line on
 * stderr, no stack trace unless STREAMDOCTOR_DEBUG=1).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/main.js';
import { DEFAULT_START_MS, StreamSimulator, steppedRate } from '../../src/simulator/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/streamdoctor.mjs');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const dir = mkdtempSync(join(tmpdir(), 'streamdoctor-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Result {
  code: number | null;
  out: string;
  err: string;
}

/** Runs the bin with stdin closed (or `stdin` written), real pipes; never a shell. */
function cli(args: string[], options: { env?: NodeJS.ProcessEnv; stdin?: string; timeoutMs?: number } = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...options.env }, timeout: options.timeoutMs ?? 20_000 }, (error, out, err) => {
      if (error && typeof error.code !== 'number' && error.code !== undefined) reject(error);
      else resolve({ code: error ? (error.code as number) : 0, out, err });
    });
    child.stdin!.end(options.stdin ?? '');
  });
}

/** A command line run by bash (for real shell pipelines); resolves to stdout, stderr and the exit code. */
function bash(script: string, env: NodeJS.ProcessEnv = {}): Promise<Result> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', script], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 30_000 }, (error, out, err) =>
      resolve({ code: error ? ((error.code as number) ?? null) : 0, out, err }),
    );
  });
}

const STACK_LINE = /\n\s+at /;

/**
 * Runs `run` over `items`, `width` at a time (a node start-up per item adds up on a loaded machine);
 * after a failure no lane starts another item, and the first failure is thrown once all have stopped.
 */
async function inPool<T>(items: readonly T[], width: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const lane = async (): Promise<void> => {
    while (!failed && next < items.length) {
      try {
        await run(items[next++]!);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const outcomes = await Promise.allSettled(Array.from({ length: Math.min(width, items.length) }, lane));
  const rejected = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (rejected) throw rejected.reason;
}

/** `count` healthy queries, one progress report each: a report large enough to fill any pipe. */
function manyQueries(count: number): string {
  const template = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/real-progress/07-kafka-console-first-and-later-batch-series.jsonl'), 'utf8').split('\n')[1]!) as Record<string, unknown>;
  const lines: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const hex = i.toString(16).padStart(12, '0');
    lines.push(JSON.stringify({ ...template, id: `00000000-0000-4000-8000-${hex}`, runId: `11111111-0000-4000-8000-${hex}`, name: `query_${i}` }));
  }
  return `${lines.join('\n')}\n`;
}

/** A 12 % overload after 20 minutes, as Spark prints it: a lag incident open at the end. */
function overloadJsonl(batches: number): string {
  const sim = new StreamSimulator(
    {
      id: '5e0c7a1e-1d2f-4b4e-9a51-0c6f3f2a7b10',
      name: 'clicks',
      arrival: steppedRate(15_000, [{ atMs: DEFAULT_START_MS + 20 * 60_000, rowsPerSec: 22_400 }]),
      processing: { rowsPerSecPerCore: 2_500, cores: 8, overheadMs: 1_200 },
      triggerMs: 10_000,
      source: { kind: 'kafka', partitions: 16 },
    },
    { seed: 3 },
  );
  return sim.take(batches).map((batch) => batch.json).join('\n');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('streamdoctor (the real bin)', () => {
  it('--version prints package.json version and nothing else', async () => {
    const result = await cli(['--version']);
    expect(result).toEqual({ code: 0, out: `streamdoctor ${VERSION}\n`, err: '' });
  });

  it('--help lists every command; no command is a usage error', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    for (const name of Object.keys(COMMANDS)) expect(help.out).toContain(`  ${name}`);
    const none = await cli([]);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/^usage: streamdoctor <command>/);
    const unknown = await cli(['diagnoze']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/unknown command "diagnoze"/);
  });

  it('--help on every command prints its usage and has no side effects (no server, no Redis, no demo)', async () => {
    const port = await freePort();
    // Were a command to start anyway, it would bind this port, talk to a Redis that is not there and not exit.
    const env = { PORT: String(port), REDIS_URL: 'redis://127.0.0.1:1', SLACK_BOT_TOKEN: '', DATABRICKS_HOST: '' };
    const runs = Object.keys(COMMANDS).flatMap((name) => ['--help', '-h'].map((flag) => ({ name, flag })));
    await inPool(runs, 4, async ({ name, flag }) => {
      const result = await cli([name, flag], { env, timeoutMs: 15_000 });
      expect({ name, flag, code: result.code, err: result.err }).toEqual({ name, flag, code: 0, err: '' });
      expect(result.out).toMatch(new RegExp(`^usage: streamdoctor ${name}\\b`));
      expect(result.out).toMatch(/-h, --help/);
    });
  }, 90_000);

  it('an unknown option on any command is exit 2 with the usage on stderr, before anything starts', async () => {
    await inPool(Object.keys(COMMANDS), 4, async (name) => {
      const result = await cli([name, '--colour'], { env: { REDIS_URL: 'redis://127.0.0.1:1' } });
      expect({ name, code: result.code, out: result.out }).toEqual({ name, code: 2, out: '' });
      expect(result.err).toMatch(new RegExp(`^streamdoctor ${name}: unknown option "--colour"`));
      expect(result.err).toMatch(/usage: streamdoctor/);
    });
  }, 90_000);

  it('options take their values either way, and a missing value says so', async () => {
    const file = join(dir, 'one.jsonl');
    writeFileSync(file, manyQueries(1));
    const spaced = await cli(['diagnose', file, '--format', 'json']);
    const joined = await cli(['diagnose', `--format=json`, file]);
    expect(spaced.code).toBe(0);
    expect(joined.out).toBe(spaced.out);
    const missing = await cli(['diagnose', file, '--cores']);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^streamdoctor diagnose: --cores needs a value/);
  });
});

describe('streamdoctor diagnose in a terminal', () => {
  it('with no file and a terminal on stdin, prints a hint and its usage and exits 2 (does not wait)', async () => {
    // `script` gives the child a real pseudo-terminal on stdin; -e returns the child's exit code.
    const result = await bash(`script -qec "${process.execPath} ${BIN} diagnose" /dev/null < /dev/null`);
    expect(result.out).toMatch(/give a file, or pipe progress JSON in/);
    expect(result.out).toMatch(/usage: streamdoctor diagnose/);
    expect(result.code).toBe(2);
  });

  it('still reads a pipe, and "-" reads stdin explicitly', async () => {
    const piped = await cli(['diagnose', '--format', 'json'], { stdin: manyQueries(2) });
    expect(piped.code).toBe(0);
    expect(JSON.parse(piped.out).queries).toHaveLength(2);
    const dash = await cli(['diagnose', '-', '--format', 'json'], { stdin: manyQueries(3) });
    expect(JSON.parse(dash.out).queries).toHaveLength(3);
  });
});

describe('streamdoctor diagnose --fail-on', () => {
  const lagging = join(dir, 'lagging.jsonl');
  const early = join(dir, 'early.jsonl');
  writeFileSync(lagging, overloadJsonl(160));
  writeFileSync(early, overloadJsonl(60));

  it('exit 1 when an incident of that severity or worse is open at the end, 0 otherwise', async () => {
    const report = await cli(['diagnose', lagging, '--format', 'json']);
    expect(report.code).toBe(0); // without --fail-on, findings are not failures
    const incidents = JSON.parse(report.out).queries[0].incidents as Array<{ kind: string; severity: string; resolvedAt: string | null }>;
    const open = incidents.filter((incident) => incident.resolvedAt === null);
    expect(open.map((incident) => incident.kind)).toContain('lag');
    const worst = open.some((incident) => incident.severity === 'critical') ? 'critical' : 'warning';

    expect((await cli(['diagnose', lagging, '--fail-on', 'warning'])).code).toBe(1);
    expect((await cli(['diagnose', lagging, '--fail-on=critical'])).code).toBe(worst === 'critical' ? 1 : 0);
    const healthy = await cli(['diagnose', early, '--fail-on', 'warning']);
    expect(healthy.code).toBe(0);
    expect(healthy.out).toMatch(/^1 query: 0 critical, 0 warning, 1 ok/);
  });

  it('counts a stall judged at --now as critical', async () => {
    const stalled = await cli(['diagnose', early, '--now', '2026-09-14T14:00:00Z', '--fail-on', 'critical', '--format', 'json']);
    expect(JSON.parse(stalled.out).queries[0].incidents[0]).toMatchObject({ kind: 'stalled', severity: 'critical' });
    expect(stalled.code).toBe(1);
  });

  it('refuses another severity with the usage', async () => {
    const result = await cli(['diagnose', early, '--fail-on', 'error']);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/--fail-on must be warning or critical, not "error"/);
  });
});

describe('streamdoctor ends cleanly when things go wrong', () => {
  const big = join(dir, 'big.jsonl');
  writeFileSync(big, manyQueries(3_000));

  it('diagnose big.jsonl | head -1: one line on stderr, a non-zero exit, no stack trace', async () => {
    const result = await bash(`"${process.execPath}" "${BIN}" diagnose "${big}" --format json 2>"${dir}/epipe.err" | head -1; echo "status=\${PIPESTATUS[0]}"`);
    const err = readFileSync(join(dir, 'epipe.err'), 'utf8');
    expect(result.out).toMatch(/^\{\nstatus=1\n$/);
    expect(err).toBe('streamdoctor: output closed before the end (EPIPE); stopping\n');
  });

  it('a reader that is gone before the first write: the same one line', async () => {
    const result = await bash(`"${process.execPath}" "${BIN}" diagnose "${big}" 2>"${dir}/closed.err" | true; echo "status=\${PIPESTATUS[0]}"`);
    expect(result.out).toBe('status=1\n');
    expect(readFileSync(join(dir, 'closed.err'), 'utf8')).toBe('streamdoctor: output closed before the end (EPIPE); stopping\n');
  });

  // A preloaded module that breaks what diagnose calls: an error no command handles (a failing
  // read is one diagnose handles: "cannot read FILE").
  const breakWrites = `data:text/javascript,${encodeURIComponent(
    "process.stdout.write = () => { throw Object.assign(new Error('the terminal is on fire\\nsecond line of detail'), { code: 'EFIRE' }); };",
  )}`;

  it('an unexpected error: one line with its message and code, exit 1, no stack trace', async () => {
    const file = join(dir, 'one.jsonl');
    writeFileSync(file, manyQueries(1));
    const result = await cli(['diagnose', file], { env: { NODE_OPTIONS: `--import=${breakWrites}` } });
    expect(result.code).toBe(1);
    expect(result.out).toBe('');
    expect(result.err).toBe('streamdoctor: unexpected error: the terminal is on fire (EFIRE); set STREAMDOCTOR_DEBUG=1 for the stack\n');
  });

  it('with STREAMDOCTOR_DEBUG=1 the stack, mapped to the TypeScript sources', async () => {
    const file = join(dir, 'one.jsonl');
    const result = await cli(['diagnose', file], { env: { NODE_OPTIONS: `--import=${breakWrites}`, STREAMDOCTOR_DEBUG: '1' } });
    expect(result.code).toBe(1);
    expect(result.err).toMatch(STACK_LINE);
    expect(result.err).toMatch(/src\/cli\/commands\/diagnose\.ts:\d+/);
  });

  it('gzip piped to /dev/stdin: says it looks gzip-compressed and how to give it, exit 2', async () => {
    const file = join(dir, 'piped.jsonl');
    writeFileSync(file, manyQueries(1));
    const result = await bash(`gzip -c "${file}" | "${process.execPath}" "${BIN}" diagnose /dev/stdin`);
    expect(result.code).toBe(2);
    expect(result.err).toBe('streamdoctor diagnose: cannot read /dev/stdin: it looks gzip-compressed; pipe it in with - (… | streamdoctor diagnose -) or decompress it first\n');
  });

  it('a server command that cannot start exits with its code, even with a connection still open', async () => {
    // The interval stands for a Redis connection opened before the failure: it kept the process alive.
    const open = `data:text/javascript,${encodeURIComponent('setInterval(() => {}, 1000);')}`;
    for (const command of ['start', 'web', 'worker', 'clock']) {
      const result = await cli([command, '--bogus'], { env: { NODE_OPTIONS: `--import=${open}` }, timeoutMs: 10_000 });
      expect(result.code, command).toBe(2);
      expect(result.err, command).toMatch(/^streamdoctor \w+: unknown option "--bogus"/);
    }
    const help = await cli(['clock', '--help'], { env: { NODE_OPTIONS: `--import=${open}` }, timeoutMs: 10_000 });
    expect(help).toMatchObject({ code: 0, err: '' });
    expect(help.out).toMatch(/^usage: streamdoctor clock/);
  });

  it('clock with a poll interval that rounds to 0 ms: one line naming the variable, exit 2, no hang', async () => {
    const result = await cli(['clock'], { env: { STREAMDOCTOR_POLL_SECONDS: '0.0001', REDIS_URL: 'redis://127.0.0.1:6379' }, timeoutMs: 15_000 });
    expect(result.code).toBe(2);
    expect(result.err).toContain('STREAMDOCTOR_POLL_SECONDS must be a number of seconds from 0.001');
    expect(result.err).not.toContain('unexpected error');
  });

  it('an uncaught exception while a command runs: one line, exit 1', async () => {
    const late = `data:text/javascript,${encodeURIComponent("setTimeout(() => { throw new TypeError('late failure'); }, 300);")}`;
    // diagnose waits on stdin, which stays open: only the late exception can end it.
    const child = spawn(process.execPath, [BIN, 'diagnose', '-'], { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: `--import=${late}` }, stdio: ['pipe', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.stdin.destroy();
    expect(code).toBe(1);
    expect(err).toBe('streamdoctor: unexpected error: late failure; set STREAMDOCTOR_DEBUG=1 for the stack\n');
  });
});
