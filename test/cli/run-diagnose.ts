import { Readable } from 'node:stream';
import { run } from '../../src/cli/commands/diagnose.js';

/** Runs `streamdoctor diagnose` in process with `stdin` as its input and its streams captured. */
export async function diagnose(argv: string[], stdin = ''): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await run(argv, {
    stdin: Readable.from([stdin]),
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
  });
  return { code, out, err };
}
