/** Starts and stops pipeline child processes (node bin/run-ts.mjs …). */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../../..');

export interface Child {
  proc: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr: () => string;
}

export async function startChild(config: Record<string, unknown>, timeoutMs = 20_000): Promise<Child> {
  return spawnReady('test/pipeline/helpers/worker-child.ts', { SD_CHILD_CONFIG: JSON.stringify(config), LOG_LEVEL: 'warn' }, timeoutMs);
}

/** Runs `script` (TypeScript, through bin/run-ts.mjs) with `env` added and waits for it to print "ready". */
export async function spawnReady(script: string, env: Record<string, string>, timeoutMs: number): Promise<Child> {
  const proc = spawn(process.execPath, ['bin/run-ts.mjs', script], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The tail is enough to say why a child failed; a chatty child must not grow the test's memory.
  let err = '';
  proc.stderr!.on('data', (d) => (err = (err + String(d)).slice(-20_000)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => proc.once('exit', (code, signal) => res({ code, signal })));
  await new Promise<void>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`child did not start within ${timeoutMs} ms: ${err}`)), timeoutMs);
    let out = '';
    proc.stdout!.on('data', (d) => {
      out += String(d);
      if (out.includes('ready')) {
        clearTimeout(timer);
        res();
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      rej(new Error(`child exited (${code ?? signal}) before ready: ${err}`));
    });
  });
  return { proc, exited, stderr: () => err };
}

/** SIGTERM, then SIGKILL if still alive after `graceMs`. Resolves with how long the exit took. */
export async function stopChild(child: Child, graceMs = 12_000): Promise<number> {
  const started = Date.now();
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return 0;
  child.proc.kill('SIGTERM');
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), graceMs);
  await child.exited;
  clearTimeout(timer);
  return Date.now() - started;
}
