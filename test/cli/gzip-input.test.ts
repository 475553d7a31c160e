/**
 * `streamdoctor diagnose` on gzip-compressed input (an export saved as .gz), as a file or on stdin:
 * decompressed as it is read; gzip cut off reads what it held, with a warning; data that only starts
 * like gzip is a read error of one line.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { InputReadError, isGzipFile, readFileText, readStreamText } from '../../src/cli/read-input.js';
import { run } from '../../src/cli/commands/diagnose.js';
import { diagnose } from './run-diagnose.js';

const dir = mkdtempSync(join(tmpdir(), 'sd-gzip-'));
const TRACE = readFileSync(new URL('../fixtures/real-spark/capacity-dip.jsonl', import.meta.url), 'utf8');
const GZ = gzipSync(TRACE);

/** diagnose with `stdin` given as bytes. */
async function diagnoseBytes(argv: string[], stdin: Buffer): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await run(argv, { stdin: Readable.from([stdin]), stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) } });
  return { code, out, err };
}

describe('gzip input', () => {
  it('reads a .gz file as the text it holds, the same report as the plain file', async () => {
    const plain = join(dir, 'trace.jsonl');
    const packed = join(dir, 'trace.jsonl.gz');
    writeFileSync(plain, TRACE);
    writeFileSync(packed, GZ);
    expect(isGzipFile(packed)).toBe(true);
    expect(isGzipFile(plain)).toBe(false);
    const a = await diagnose([plain, '--format', 'json']);
    const b = await diagnose([packed, '--format', 'json']);
    expect(b).toEqual({ code: 0, out: a.out, err: '' });
    expect(JSON.parse(b.out).queries).toHaveLength(1);
  });

  it('reads gzip on stdin', async () => {
    const plain = await diagnose(['--format', 'json'], TRACE);
    expect(await diagnoseBytes(['--format', 'json'], GZ)).toEqual({ code: 0, out: plain.out, err: '' });
  });

  it('reads what gzip cut off held, and says it was cut', async () => {
    const cut = join(dir, 'cut.jsonl.gz');
    writeFileSync(cut, GZ.subarray(0, Math.floor(GZ.length * 0.7)));
    const result = await diagnose([cut]);
    expect(result.code).toBe(0);
    expect(result.err).toContain(`streamdoctor diagnose: ${cut}: the gzip data is cut off`);
    expect(result.out).toMatch(/^1 query:/);
  });

  it('refuses data that only starts like gzip, in one line', async () => {
    const bad = join(dir, 'bad.gz');
    writeFileSync(bad, Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.from('not really gzip')]));
    const result = await diagnose([bad]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^streamdoctor diagnose: cannot read .*bad\.gz: not valid gzip data \([^\n]+\)\n$/);
    const error = await readStreamText(Readable.from([readFileSync(bad)]), () => {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputReadError);
  });

  it('says gzip read from a path that is not peeked at (a pipe such as /dev/stdin) looks gzip-compressed', async () => {
    // Read as text it was "not JSON (starts with "\u001f…")".
    const file = join(dir, 'as-pipe.gz');
    writeFileSync(file, GZ);
    expect(() => readFileText(file, () => {})).toThrow(InputReadError);
    expect(() => readFileText(file, () => {})).toThrow('it looks gzip-compressed; pipe it in with - (… | streamdoctor diagnose -) or decompress it first');
  });
});
