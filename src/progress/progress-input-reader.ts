/**
 * Reads progress reports out of text as people have it: JSON Lines, one JSON array
 * (`json.dumps(query.recentProgress)`), pretty-printed objects one after another, or a mix. Text is
 * pushed in chunks so the CLI can stream inputs far larger than memory.
 *
 * A line holding a whole JSON value takes the fast path (one `JSON.parse`); anything else opens a
 * block that runs until its braces balance. A malformed value becomes a warning naming its line and
 * reading carries on with the next value, so one bad line never loses the rest of the input.
 *
 * The lines of a pushed chunk are parsed first and handed on after, in their order with the warnings
 * among them: JSON.parse run back to back rather than between the engine's work on each report
 * keeps its code and data in the CPU's caches, about 4 % of `streamdoctor diagnose`'s time in
 * `npm run bench:engine`.
 */
import { parseProgress } from './parse-progress.js';
import type { Progress } from './types.js';

export interface ProgressRecord {
  progress: Progress;
  /** 1-based line where the value holding this report starts. */
  line: number;
}

export interface ProgressInputReaderOptions {
  /**
   * Largest multi-line value kept while waiting for its closing brace, in characters; a value
   * beyond it is dropped with a warning so a missing brace cannot swallow the whole input.
   * @defaultValue 8_000_000
   */
  maxBlockChars?: number;
}

/** A value read and the line it starts on, or a warning, in input order. */
type Queued = { value: unknown; line: number } | string;

/** Most values parsed before they are handed on (bounds what a large pushed chunk holds). */
const QUEUE_MAX = 64;

const EXPECTED =
  'expected JSON: progress objects one per line (JSON Lines), a JSON array of them, or pretty-printed objects';

export class ProgressInputReader {
  private readonly maxBlockChars: number;
  private pending = '';
  private lineNo = 0;
  private block: string[] | null = null;
  private blockChars = 0;
  private blockStart = 0;
  private depth = 0;
  private junkStart = 0;
  private junkEnd = 0;
  private junkSample = '';
  private queue: Queued[] = [];
  /** Number of reports emitted so far. */
  records = 0;

  constructor(
    private readonly onRecord: (record: ProgressRecord) => void,
    private readonly onWarning: (warning: string) => void,
    options: ProgressInputReaderOptions = {},
  ) {
    this.maxBlockChars = options.maxBlockChars ?? 8_000_000;
  }

  push(chunk: string): void {
    // A byte-order mark (files saved by some Windows editors) is not JSON.
    if (this.lineNo === 0 && this.pending === '' && chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    let text = this.pending + chunk;
    let start = 0;
    for (let nl = text.indexOf('\n', start); nl !== -1; nl = text.indexOf('\n', start)) {
      this.line(text.slice(start, nl));
      start = nl + 1;
      if (this.queue.length >= QUEUE_MAX) this.flush();
    }
    this.pending = start === 0 ? text : text.slice(start);
    text = '';
    this.flush();
  }

  end(): void {
    if (this.pending.length > 0) {
      const last = this.pending;
      this.pending = '';
      this.line(last);
    }
    this.flushJunk();
    if (this.block) {
      this.warn(
        `line ${this.blockStart}: incomplete JSON value, the input ends before its closing ${this.closer()}; skipped`,
      );
      this.resetBlock();
    }
    this.flush();
  }

  private line(rawLine: string): void {
    this.lineNo += 1;
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    if (this.block) {
      // A whole report on its own line while a block is open means the block was cut short
      // (a truncated pretty-printed object followed by JSON Lines): report it, keep the line.
      if (looksLikeWholeValue(line) && this.tryWholeLine(line, true)) return;
      this.block.push(line);
      this.blockChars += line.length + 1;
      this.depth += braceDelta(line);
      if (this.depth <= 0) this.closeBlock();
      else if (this.blockChars > this.maxBlockChars) {
        this.warn(
          `line ${this.blockStart}: JSON value longer than ${this.maxBlockChars} characters without its closing ${this.closer()}; skipped`,
        );
        this.resetBlock();
      }
      return;
    }
    // Index scans instead of trim(): no copy of a long line on the hot path.
    const begin = firstNonSpace(line);
    if (begin === -1) return;
    const first = line.charCodeAt(begin);
    if (first !== 123 /* { */ && first !== 91 /* [ */) {
      const trimmed = line.trim();
      // One warning per run of such lines (the tail of a broken object, a log excerpt).
      if (this.junkStart === 0) {
        this.junkStart = this.lineNo;
        this.junkSample = trimmed.slice(0, 20);
      }
      this.junkEnd = this.lineNo;
      return;
    }
    this.flushJunk();
    if (looksLikeWholeValue(line) && this.tryWholeLine(line, false)) return;
    this.block = [line];
    this.blockChars = line.length + 1;
    this.blockStart = this.lineNo;
    this.depth = braceDelta(line);
    if (this.depth <= 0) this.closeBlock();
  }

  /** Parses a line holding one whole value; false when it is not one (then it opens a block). */
  private tryWholeLine(line: string, insideBlock: boolean): boolean {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      if (insideBlock) return false;
      // Balanced braces on one line yet invalid JSON: a malformed JSON Lines record.
      if (braceDelta(line) === 0) {
        this.warn(`line ${this.lineNo}: malformed JSON (${jsonError(error)}); skipped`);
        return true;
      }
      return false;
    }
    if (insideBlock) {
      if (!isReportLike(value)) return false;
      this.warn(
        `line ${this.blockStart}: incomplete JSON value, cut off before its closing ${this.closer()} (line ${this.lineNo} starts a new report); skipped`,
      );
      this.resetBlock();
    }
    this.queue.push({ value, line: this.lineNo });
    return true;
  }

  private closeBlock(): void {
    const block = this.block!;
    const start = this.blockStart;
    this.resetBlock();
    const text = block.join('\n');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      const where = errorLine(error, text, start);
      this.warn(
        `line ${start}: malformed JSON${where === start ? '' : ` (error at line ${where})`}: ${jsonError(error)}; skipped`,
      );
      return;
    }
    this.queue.push({ value, line: start });
  }

  private warn(warning: string): void {
    this.queue.push(warning);
  }

  /** Hands on what was read, in input order. */
  private flush(): void {
    const queue = this.queue;
    if (queue.length === 0) return;
    this.queue = [];
    for (let i = 0; i < queue.length; i += 1) {
      const item = queue[i]!;
      if (typeof item === 'string') this.onWarning(item);
      else this.emit(item.value, item.line);
    }
  }

  private emit(value: unknown, line: number): void {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i += 1) this.emitOne(value[i], line, ` (array element ${i})`);
      return;
    }
    this.emitOne(value, line, '');
  }

  private emitOne(value: unknown, line: number, where: string): void {
    const result = parseProgress(value);
    if (!result.ok) {
      this.onWarning(`line ${line}${where}: ${result.error}; skipped`);
      return;
    }
    for (const warning of result.warnings) this.onWarning(`line ${line}${where}: ${warning}`);
    this.records += 1;
    this.onRecord({ progress: result.progress, line });
  }

  private flushJunk(): void {
    if (this.junkStart === 0) return;
    const lines =
      this.junkEnd === this.junkStart ? `line ${this.junkStart}` : `lines ${this.junkStart}-${this.junkEnd}`;
    this.warn(
      `${lines}: not JSON (starts with ${JSON.stringify(this.junkSample)}); ${EXPECTED}; skipped`,
    );
    this.junkStart = 0;
  }

  private closer(): string {
    return this.block && this.block[0]!.trim().startsWith('[') ? 'bracket' : 'brace';
  }

  private resetBlock(): void {
    this.block = null;
    this.blockChars = 0;
    this.depth = 0;
  }
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 10 || c === 0xfeff;
}

function firstNonSpace(text: string): number {
  for (let i = 0; i < text.length; i += 1) if (!isSpace(text.charCodeAt(i))) return i;
  return -1;
}

function looksLikeWholeValue(text: string): boolean {
  const begin = firstNonSpace(text);
  if (begin === -1) return false;
  let end = text.length - 1;
  while (end > begin && isSpace(text.charCodeAt(end))) end -= 1;
  if (end - begin < 1) return false;
  const first = text.charCodeAt(begin);
  const last = text.charCodeAt(end);
  return (first === 123 && last === 125) || (first === 91 && last === 93);
}

function isReportLike(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0 && isReportLike(value[0]);
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return 'runId' in record || 'progress' in record || 'event_type' in record;
}

/**
 * Net `{`/`[` minus `}`/`]` outside strings. String state resets at the end of the line (JSON
 * strings cannot span lines), so one broken quote cannot hide the rest of the input.
 */
function braceDelta(line: string): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < line.length; i += 1) {
    const c = line.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i += 1;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) depth += 1;
    else if (c === 125 || c === 93) depth -= 1;
  }
  return depth;
}

function jsonError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 160 ? `${message.slice(0, 157)}...` : message;
}

/** Line of a JSON.parse error inside a block, from the "at position N" V8 puts in its message. */
function errorLine(error: unknown, text: string, startLine: number): number {
  const match = error instanceof Error ? /position (\d+)/.exec(error.message) : null;
  if (!match) return startLine;
  const position = Math.min(Number(match[1]), text.length);
  let line = startLine;
  for (let i = text.indexOf('\n'); i !== -1 && i < position; i = text.indexOf('\n', i + 1)) line += 1;
  return line;
}
