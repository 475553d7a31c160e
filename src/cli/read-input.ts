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
import { StringDecoder } from 'node:string_decoder';
import { crc32, createInflateRaw } from 'node:zlib';
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
  /**
   * Told when gzip data ends before its end (a file still being written, a cut download) or turns
   * corrupt after some of it was decompressed (a bad checksum, trailing garbage): what it held up to
   * there is read.
   */
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
        if (error instanceof GzipCorruptError) {
          options.onWarning?.(`the gzip data is corrupt after what was read (${error.detail}); what it held up to there was read`);
          break;
        }
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

/**
 * gzip data that turns invalid after some of it was decompressed (a bad checksum, garbage after its
 * end): like a cut, what came out before is read (caught in readStreamText). Invalid from its start,
 * it is not gzip at all: an `InputReadError`.
 */
class GzipCorruptError extends StreamDoctorError {
  constructor(readonly detail: string) {
    super('streamdoctor_input_gzip_corrupt', `the gzip data is corrupt (${detail})`);
  }
}

/**
 * `head` and what `rest` yields after it, gunzipped: member by member (`cat a.gz b.gz` is gzip too),
 * each member's deflate data through a raw inflater and its trailer (CRC-32, length) checked here,
 * so everything a member decompresses to is handed on before a bad trailer or garbage after the
 * data is found (zlib's gunzip drops the output of the write that fails).
 */
function gunzipped(head: Buffer, rest: AsyncIterator<string | Buffer>): AsyncIterable<Buffer> {
  return (async function* () {
    /** Compressed bytes not yet handed to an inflater, in order. */
    let input: Buffer = head;
    let inputEnded = false;
    const more = async (): Promise<boolean> => {
      if (inputEnded) return false;
      const next = await rest.next();
      if (next.done === true) {
        inputEnded = true;
        return false;
      }
      const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
      input = input.length === 0 ? chunk : Buffer.concat([input, chunk]);
      return true;
    };
    let out = 0;
    for (let member = 0; ; member += 1) {
      if (input.length === 0 && !(await more())) return;
      // gzip itself ignores zeros after a member (tape padding), and so did zlib's gunzip.
      if (member > 0 && input[0] === 0) {
        while (await more()) input = Buffer.alloc(0);
        return;
      }
      let size = gzipHeaderSize(input);
      while (size === -1) {
        if (!(await more())) throw new GzipCutError();
        size = gzipHeaderSize(input);
      }
      if (size === -2) {
        if (out === 0) throw zlibError('incorrect header check');
        throw new GzipCorruptError(member > 0 ? 'not gzip data after its end' : 'incorrect header check');
      }
      input = input.subarray(size);
      let crc = 0;
      let length = 0;
      const inflater = createInflateRaw();
      // Chunks written to the inflater and not known to be consumed, and the bytes before them.
      let sent: Buffer[] = [];
      let sentBefore = 0;
      let finished = false;
      inflater.once('end', () => (finished = true));
      const feeder = (async () => {
        try {
          for (;;) {
            if (input.length === 0 && !(await more())) break;
            if (finished) return;
            const chunk = input;
            input = Buffer.alloc(0);
            // Chunks consumed before this write are not needed to find what follows the data.
            while (sent.length > 0 && sentBefore + sent[0]!.length <= inflater.bytesWritten) sentBefore += sent.shift()!.length;
            sent.push(chunk);
            await new Promise<void>((resolve, reject) => inflater.write(chunk, (error) => (error ? reject(error) : resolve())));
            if (finished) return;
          }
          inflater.end();
        } catch (error) {
          inflater.destroy(error as Error);
        }
      })();
      try {
        for await (const chunk of inflater) {
          const bytes = chunk as Buffer;
          crc = crc32(bytes, crc);
          length += bytes.length;
          out += bytes.length;
          yield bytes;
        }
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'Z_BUF_ERROR') throw new GzipCutError();
        if (out > 0 && typeof code === 'string' && code.startsWith('Z_')) throw new GzipCorruptError((error as Error).message);
        throw error;
      } finally {
        inflater.destroy();
      }
      await feeder;
      // What the inflater was given past the member's deflate data comes before what it was not.
      const unused = Buffer.concat(sent).subarray(inflater.bytesWritten - sentBefore);
      sent = [];
      input = input.length === 0 ? unused : Buffer.concat([unused, input]);
      while (input.length < 8) if (!(await more())) throw new GzipCutError();
      if (input.readUInt32LE(0) !== crc >>> 0) throw new GzipCorruptError('incorrect data check');
      if (input.readUInt32LE(4) !== length % 2 ** 32) throw new GzipCorruptError('incorrect length check');
      input = input.subarray(8);
    }
  })();
}

/** Length of the gzip member header `bytes` starts with; -1 when more bytes are needed, -2 when it is none. */
function gzipHeaderSize(bytes: Buffer): number {
  if (bytes.length < 10) return bytes.length >= 1 && bytes[0] !== 0x1f ? -2 : bytes.length >= 2 && bytes[1] !== 0x8b ? -2 : -1;
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b || bytes[2] !== 8 || (bytes[3]! & 0xe0) !== 0) return -2;
  const flags = bytes[3]!;
  let at = 10;
  if (flags & 4) {
    if (bytes.length < at + 2) return -1;
    at += 2 + bytes.readUInt16LE(at);
  }
  for (const flag of [8, 16]) {
    if (flags & flag) {
      const zero = bytes.indexOf(0, at);
      if (zero === -1) return -1;
      at = zero + 1;
    }
  }
  if (flags & 2) at += 2;
  return bytes.length < at ? -1 : at;
}

/** An error as zlib gives it, for data that is not gzip from its start (readError makes it an InputReadError). */
function zlibError(message: string): Error {
  return Object.assign(new Error(message), { code: 'Z_DATA_ERROR' });
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
  if (error instanceof GzipCutError || error instanceof GzipCorruptError) return error;
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
