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
  const proc = spawn(process.execPath, ['bin/run-ts.mjs', 'test/pipeline/helpers/worker-child.ts'], {
    cwd: ROOT,
    env: { ...process.env, SD_CHILD_CONFIG: JSON.stringify(config), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  proc.stderr!.on('data', (d) => (err += String(d)));
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
