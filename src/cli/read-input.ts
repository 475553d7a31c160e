/**
 * The text of `streamdoctor diagnose`'s input, handed on in chunks so inputs larger than memory work.
 * A file is read synchronously into one reused buffer: diagnose does nothing else meanwhile, and a
 * stream's per-chunk buffers, thread-pool round trips and promise turns cost about a sixth of a
 * bare JSON.parse of the same file. Stdin (a pipe or a terminal) is read as a stream. A path need
 * not name a regular file (`/dev/stdin`, `<(…)`, `/dev/fd/N` are pipes): what was read says which
 * it was (`FileRead`), and only a regular file that has not changed since can be read again.
 * Gzip-compressed input (an export saved as `.gz`) is decompressed as it is read: a file named so is
 * read as a stream (`isGzipFile`), and a stream whose first bytes are gzip's is decompressed.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import { StreamDoctorError } from '../util/errors.js';

/** The input could not be read; `reason` is one short line meant for the person who named it. */
export class InputReadError extends StreamDoctorError {
  static readonly CODE = 'streamdoctor_input_unreadable';

  constructor(
    readonly reason: string,
    options: { cause?: unknown } = {},
  ) {
    super(InputReadError.CODE, reason, { fix: 'check the path and its permissions', cause: options.cause });
  }
}

export interface ReadInputOptions {
  /**
   * Bytes read at a time from a file.
   * @defaultValue 65_536
   */
  chunkBytes?: number;
  /**
   * A read of the same path before: read only if it is still that regular file, unchanged (device,
   * inode, size, modification time), and the same number of bytes is read; otherwise throw
   * `InputReadError` (text already passed to `onText` is then not the file's: discard it).
   */
  sameAs?: FileRead;
}

/** What a read of a path found, to tell whether it can be read again. */
export interface FileRead {
  /** A regular file (not a pipe, FIFO, socket or device): it reads the same again, if unchanged. */
  regular: boolean;
  dev: number;
  ino: number;
  /** Size and modification time when the read ended. */
  size: number;
  mtimeMs: number;
  /** Bytes read. */
  bytes: number;
}

/** Whether `read` was of a regular file read whole, which `readFileText(…, { sameAs: read })` can read again. */
export function canReadAgain(read: FileRead): boolean {
  return read.regular && read.bytes === read.size;
}

/**
 * Reads the file at `path`, passing its UTF-8 text to `onText` chunk by chunk; errors of `onText`
 * pass through. Returns what it read (`FileRead`).
 */
export function readFileText(path: string, onText: (text: string) => void, options: ReadInputOptions = {}): FileRead {
  const fd = attempt(() => openSync(path, 'r'));
  try {
    const { sameAs } = options;
    // Before reading (its bytes are compared at the end).
    if (sameAs && !unchanged(sameAs, fileRead(fd, sameAs.bytes))) throw new InputReadError('it changed since it was read');
    let bytesRead = 0;
    const buffer = Buffer.allocUnsafe(options.chunkBytes ?? 65_536);
    // A multi-byte character split across two reads is held back until its end arrives.
    const decoder = new StringDecoder('utf8');
    for (;;) {
      const bytes = attempt(() => readSync(fd, buffer, 0, buffer.length, null));
      if (bytes === 0) break;
      // A pipe named as a path (`cat f.gz | … /dev/stdin`) is not peeked at by isGzipFile; say so
      // rather than read compressed bytes as text.
      if (bytesRead === 0 && isGzip(buffer.subarray(0, bytes))) {
        throw new InputReadError('it looks gzip-compressed; pipe it in with - (… | streamdoctor diagnose -) or decompress it first');
      }
      bytesRead += bytes;
      const text = decoder.write(buffer.subarray(0, bytes));
      if (text.length > 0) onText(text);
    }
    const rest = decoder.end();
    if (rest.length > 0) onText(rest);
    const read = fileRead(fd, bytesRead);
    if (sameAs && !unchanged(sameAs, read)) throw new InputReadError('it changed since it was read');
    return read;
  } finally {
    closeSync(fd);
  }
}

function fileRead(fd: number, bytes: number): FileRead {
  const stats = attempt(() => fstatSync(fd));
  return { regular: stats.isFile(), dev: stats.dev, ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs, bytes };
}

function unchanged(before: FileRead, now: FileRead): boolean {
  return canReadAgain(before) && now.regular && now.dev === before.dev && now.ino === before.ino && now.size === before.size && now.mtimeMs === before.mtimeMs && now.bytes === before.bytes;
}

/**
 * Whether the file at `path` is a regular file starting with gzip's magic bytes (1f 8b). A pipe
 * named as a file is not peeked at (that would consume its bytes): `readFileText` reads it as it is.
 */
export function isGzipFile(path: string): boolean {
  const fd = attempt(() => openSync(path, 'r'));
  try {
    if (!attempt(() => fstatSync(fd)).isFile()) return false;
    const head = Buffer.alloc(2);
    return attempt(() => readSync(fd, head, 0, 2, 0)) === 2 && isGzip(head);
  } finally {
    closeSync(fd);
  }
}

function isGzip(bytes: Buffer): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

export interface ReadStreamOptions {
  /** Told when gzip data ends before its end (a file still being written, a cut download): what it held is read. */
  onWarning?: (warning: string) => void;
}

/**
 * Reads `stream` to its end, passing its text to `onText` chunk by chunk (gunzipped when it starts
 * with gzip's magic bytes); errors of `onText` pass through.
 */
export async function readStreamText(stream: NodeJS.ReadableStream, onText: (text: string) => void, options: ReadStreamOptions = {}): Promise<void> {
  const decoder = new StringDecoder('utf8');
  let iterator: AsyncIterator<string | Buffer> = stream[Symbol.asyncIterator]();
  let done = false;
  let first = true;
  try {
    while (!done) {
      let next: IteratorResult<string | Buffer>;
      try {
        next = await attemptAsync(() => iterator.next());
      } catch (error) {
        if (!(error instanceof GzipCutError)) throw error;
        options.onWarning?.('the gzip data is cut off (a download cut short, or a file still being written); what it held was read');
        break;
      }
      done = next.done === true;
      if (done) break;
      const chunk = next.value;
      if (first && typeof chunk !== 'string' && isGzip(chunk)) {
        // The rest of the input through gunzip, this first chunk included.
        iterator = gunzipped(chunk, iterator)[Symbol.asyncIterator]();
        first = false;
        continue;
      }
      first = false;
      const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
      if (text.length > 0) onText(text);
    }
  } finally {
    // A consumer that failed part way: close the stream now rather than when its writer ends.
    if (!done) await iterator.return?.();
  }
  const rest = decoder.end();
  if (rest.length > 0) onText(rest);
}

/** gzip data that stops before its end: not an unreadable input, a shorter one (caught in readStreamText). */
class GzipCutError extends StreamDoctorError {
  constructor() {
    super('streamdoctor_input_gzip_cut', 'the gzip data is cut off before its end');
  }
}

/** `head` and what `rest` yields after it, gunzipped. */
function gunzipped(head: Buffer, rest: AsyncIterator<string | Buffer>): AsyncIterable<Buffer> {
  const compressed = Readable.from(
    (async function* () {
      yield head;
      for (let next = await rest.next(); next.done !== true; next = await rest.next()) yield next.value;
    })(),
  );
  const gunzip = createGunzip();
  compressed.on('error', (error) => gunzip.destroy(error));
  compressed.pipe(gunzip);
  return (async function* () {
    try {
      for await (const chunk of gunzip) yield chunk as Buffer;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'Z_BUF_ERROR') throw new GzipCutError();
      throw error;
    }
  })();
}

function attempt<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw readError(error);
  }
}

async function attemptAsync<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw readError(error);
  }
}

function readError(error: unknown): Error {
  if (error instanceof GzipCutError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code === 'string' && code.startsWith('Z_')) return new InputReadError(`not valid gzip data (${(error as Error).message})`, { cause: error });
  const reason =
    code === 'ENOENT'
      ? 'no such file'
      : code === 'EISDIR'
        ? 'is a directory'
        : code === 'EACCES'
          ? 'permission denied'
          : (error instanceof Error ? error.message : String(error)).split('\n', 1)[0]!;
  return new InputReadError(reason, { cause: error });
}
