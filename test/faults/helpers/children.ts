/** Starts fault-suite child processes (test/faults/helpers/fault-worker.ts) and waits for "ready". */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { Child } from '../../pipeline/helpers/children.js';
import type { FaultChildConfig } from './fault-worker.js';

const ROOT = resolve(import.meta.dirname, '../../..');

export async function startFaultChild(config: FaultChildConfig, timeoutMs = 30_000): Promise<Child> {
  const proc = spawn(process.execPath, ['bin/run-ts.mjs', 'test/faults/helpers/fault-worker.ts'], {
    cwd: ROOT,
    env: { ...process.env, SD_FAULT_CHILD: JSON.stringify(config), LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
