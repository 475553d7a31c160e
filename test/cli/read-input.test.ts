import { appendFileSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { canReadAgain, InputReadError, readFileText, readStreamText } from '../../src/cli/read-input.js';

const dir = mkdtempSync(join(tmpdir(), 'sd-read-input-'));
// Two-, three- and four-byte characters, so small reads split some of them.
const TEXT = '{"name":"zürich_ÿ_東京_🚀"}\n'.repeat(40);

function captureText(read: (onText: (text: string) => void) => void): string {
  let text = '';
  read((chunk) => (text += chunk));
  return text;
}

describe('readFileText', () => {
  it('hands on the whole text, characters split across reads intact', () => {
    const file = join(dir, 'multibyte.jsonl');
    writeFileSync(file, TEXT);
    for (const chunkBytes of [1, 3, 7, 64, 1 << 16]) {
      expect(captureText((onText) => readFileText(file, onText, { chunkBytes }))).toBe(TEXT);
    }
  });

  it('says what is wrong with a path it cannot read', () => {
    expect(() => readFileText(join(dir, 'missing.jsonl'), () => {})).toThrow(new InputReadError('no such file'));
    expect(() => readFileText(dir, () => {})).toThrow(new InputReadError('is a directory'));
  });

  it('says what it read: a regular file read whole can be read again while it is unchanged', () => {
    const file = join(dir, 'again.jsonl');
    writeFileSync(file, TEXT);
    const read = readFileText(file, () => {});
    expect(read).toMatchObject({ regular: true, bytes: Buffer.byteLength(TEXT), size: Buffer.byteLength(TEXT) });
    expect(canReadAgain(read)).toBe(true);
    expect(captureText((onText) => readFileText(file, onText, { sameAs: read }))).toBe(TEXT);
    // Appended to, or rewritten to the same size at another time: refused.
    appendFileSync(file, '{}\n');
    expect(() => readFileText(file, () => {}, { sameAs: read })).toThrow(new InputReadError('it changed since it was read'));
    writeFileSync(file, TEXT.replace('zürich', 'zurich').replace('ÿ', 'yy'));
    utimesSync(file, new Date(), new Date(Date.now() + 60_000));
    expect(() => readFileText(file, () => {}, { sameAs: read })).toThrow(new InputReadError('it changed since it was read'));
    // Not a regular file: never read again.
    expect(canReadAgain({ ...read, regular: false })).toBe(false);
  });

  it('lets an error of the consumer through as it is, not as a read error', () => {
    const file = join(dir, 'consumer.jsonl');
    writeFileSync(file, TEXT);
    const failure = new TypeError('engine fault');
    let thrown: unknown;
    try {
      readFileText(file, () => {
        throw failure;
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBe(failure);
  });
});

describe('readStreamText', () => {
  it('decodes Buffer chunks that split a character', async () => {
    const bytes = Buffer.from(TEXT);
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += 5) chunks.push(bytes.subarray(i, i + 5));
    let text = '';
    await readStreamText(Readable.from(chunks), (chunk) => (text += chunk));
    expect(text).toBe(TEXT);
  });

  it('closes the stream when the consumer fails part way, without waiting for its end', async () => {
    const stream = new Readable({ read() {} }); // a writer that never ends, as a pipe left open
    stream.push('{"id":"a"}\n');
    const failure = new TypeError('engine fault');
    const thrown = await readStreamText(stream, () => {
      throw failure;
    }).catch((e: unknown) => e);
    expect(thrown).toBe(failure);
    expect(stream.destroyed).toBe(true);
  });

  it('reports a failing stream as a read error of one line, with a stable code', async () => {
    const stream = new Readable({
      read() {
        this.destroy(Object.assign(new Error('EIO: i/o error, read\nat the second line'), { code: 'EIO' }));
      },
    });
    const error = await readStreamText(stream, () => {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputReadError);
    expect((error as InputReadError).reason).toBe('EIO: i/o error, read');
    expect((error as InputReadError).code).toBe('streamdoctor_input_unreadable');
  });
});
