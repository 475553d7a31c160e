/**
 * gzip that turns corrupt after some of it was decompressed (a bad CRC-32 or length in its trailer,
 * garbage after its end) is read as a cut-off one is: every report it held is read, with one warning
 * that it is corrupt after that point. Data that is not gzip from its start is still refused.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/commands/diagnose.js';
import { readStreamText } from '../../src/cli/read-input.js';
import { diagnose } from './run-diagnose.js';

const dir = mkdtempSync(join(tmpdir(), 'sd-gzip-corrupt-'));
const TRACE = readFileSync(new URL('../fixtures/real-spark/capacity-dip.jsonl', import.meta.url), 'utf8');
const GZ = gzipSync(TRACE);

function withByte(bytes: Buffer, at: number, xor: number): Buffer {
  const copy = Buffer.from(bytes);
  copy[at]! ^= xor;
  return copy;
}

async function diagnoseBytes(argv: string[], stdin: Buffer): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await run(argv, { stdin: Readable.from([stdin]), stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) } });
  return { code, out, err };
}

async function text(bytes: Buffer, chunk = 1000): Promise<{ text: string; warnings: string[] }> {
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunk) parts.push(bytes.subarray(i, i + chunk));
  let read = '';
  const warnings: string[] = [];
  await readStreamText(Readable.from(parts), (t) => (read += t), { onWarning: (w) => warnings.push(w) });
  return { text: read, warnings };
}

const CASES: [string, Buffer, string][] = [
  ['a bad CRC', withByte(GZ, GZ.length - 8, 0xff), 'incorrect data check'],
  ['a bad length', withByte(GZ, GZ.length - 2, 0x01), 'incorrect length check'],
  ['text after its end', Buffer.concat([GZ, Buffer.from('trailing garbage\n')]), 'not gzip data after its end'],
  ['a broken second member after its end', Buffer.concat([GZ, Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff])]), ''],
];

describe('corrupt gzip', () => {
  for (const [what, bytes, detail] of CASES) {
    it(`reads every report before ${what}, and warns it is corrupt after that point`, async () => {
      const plain = await diagnose(['--format', 'json'], TRACE);
      const file = join(dir, `${what.replaceAll(' ', '-')}.jsonl.gz`);
      writeFileSync(file, bytes);
      const result = await diagnose([file, '--format', 'json']);
      expect(result.code).toBe(0);
      expect(result.out).toBe(plain.out);
      expect(result.err).toMatch(new RegExp(`^streamdoctor diagnose: [^\\n]+: the gzip data is corrupt after what was read \\(${detail}[^\\n]*\\); what it held up to there was read\\n$`));
      const piped = await diagnoseBytes(['--format', 'json'], bytes);
      expect(piped.out).toBe(plain.out);
      for (const size of [7, 1000, 65_536]) {
        const read = await text(bytes, size);
        expect(read.text).toBe(TRACE);
        expect(read.warnings).toHaveLength(1);
      }
    });
  }

  it('still reads concatenated members and ignores zeros after the last, with no warning', async () => {
    const half = TRACE.indexOf('\n', TRACE.length >> 1) + 1;
    const bytes = Buffer.concat([gzipSync(TRACE.slice(0, half)), gzipSync(TRACE.slice(half)), Buffer.alloc(100)]);
    for (const size of [5, 1000, 65_536]) expect(await text(bytes, size)).toEqual({ text: TRACE, warnings: [] });
  });

  it('still refuses gzip corrupt before anything was decompressed, and reads a cut one', async () => {
    const broken = withByte(GZ, 12, 0xff);
    const error = await text(broken).catch((e: unknown) => e);
    expect(String((error as Error).message)).toMatch(/gzip/);
    const cut = await text(GZ.subarray(0, GZ.length - 4));
    expect(cut.text).toBe(TRACE);
    expect(cut.warnings).toEqual(['the gzip data is cut off (a download cut short, or a file still being written); what it held was read']);
  });
});
