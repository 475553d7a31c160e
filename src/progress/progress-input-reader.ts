/**
 * Reads progress reports out of text as people have it: JSON Lines, one JSON array
 * (`json.dumps(query.recentProgress)`), pretty-printed objects one after another, or a mix. Text is
 * pushed in chunks so the CLI can stream inputs far larger than memory.
 *
 * A line holding a whole JSON value takes the fast path (one `JSON.parse`); anything else opens a
 * block that runs until its braces balance. A malformed value becomes a warning naming its line and
 * reading carries on with the next value, so one bad line never loses the rest of the input.
 * An array that is not one valid line (pretty-printed, cut off, or holding a bad element such as
 * Python's `NaN`) is read element by element (`JsonArraySplitter`), so the same holds for its
 * elements: a bad one is a warning naming its line and index, a cut-off end loses only what is cut.
 *
 * The lines of a pushed chunk are parsed first and handed on after, in their order with the warnings
 * among them: JSON.parse run back to back rather than between the engine's work on each report
 * keeps its code and data in the CPU's caches, about 4 % of `streamdoctor diagnose`'s time in
 * `npm run bench:engine`.
 */
import { JsonArraySplitter } from './json-array-splitter.js';
import { parseProgress } from './parse-progress.js';
import { closeTruncated } from './truncated-json.js';
import type { Progress } from './types.js';

export interface ProgressRecord {
  progress: Progress;
  /** 1-based line where the value holding this report starts. */
  line: number;
}

export interface ProgressInputReaderOptions {
  /**
   * Largest multi-line value kept while waiting for its closing brace, in characters; a value
   * beyond it is dropped with a warning so a missing brace cannot swallow the whole input. It bounds
   * an array element too (an array is read element by element, one element held at a time).
   * @defaultValue 8_000_000
   */
  maxBlockChars?: number;
  /**
   * Longest line kept, in characters: a longer line is dropped with a warning naming it and read
   * past without being held (up to its newline), so one huge line cannot exhaust memory or V8's
   * string limit and lose the reports around it. A line inside a JSON array (a one-line array) is
   * not dropped: it is read element by element as it arrives, each element bounded by `maxBlockChars`.
   * @defaultValue 8_000_000
   */
  maxLineChars?: number;
}

/**
 * A value read, the line it starts on and, for an element of an array read element by element, its
 * index (-1 otherwise); or a warning. In input order.
 */
type Queued = { value: unknown; line: number; element: number } | string;

/** Most values parsed before they are handed on (bounds what a large pushed chunk holds). */
const QUEUE_MAX = 64;

const EXPECTED =
  'expected JSON: progress objects one per line (JSON Lines), a JSON array of them, or pretty-printed objects';

export class ProgressInputReader {
  private readonly maxBlockChars: number;
  private readonly maxLineChars: number;
  private pending = '';
  private lineNo = 0;
  private block: string[] | null = null;
  /** The array being read element by element. */
  private array: JsonArraySplitter | null = null;
  private blockChars = 0;
  private blockStart = 0;
  private depth = 0;
  private junkStart = 0;
  private junkEnd = 0;
  private junkSample = '';
  private queue: Queued[] = [];
  /** The current line (already counted in lineNo) is too long: its text up to the next newline is dropped. */
  private skipping = false;
  /** The current line (already counted in lineNo) is a long array line whose start was fed to `array`. */
  private partial = false;
  /** Number of reports emitted so far. */
  records = 0;

  constructor(
    private readonly onRecord: (record: ProgressRecord) => void,
    private readonly onWarning: (warning: string) => void,
    options: ProgressInputReaderOptions = {},
  ) {
    this.maxBlockChars = options.maxBlockChars ?? 8_000_000;
    this.maxLineChars = options.maxLineChars ?? 8_000_000;
  }

  push(chunk: string): void {
    // A byte-order mark (files saved by some Windows editors) is not JSON.
    if (this.lineNo === 0 && this.pending === '' && chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    if (this.skipping) {
      const nl = chunk.indexOf('\n');
      if (nl === -1) return;
      this.skipping = false;
      chunk = chunk.slice(nl + 1);
    }
    // A chunk inside a long line (a one-line array) is only appended: searching pending + chunk
    // would flatten the growing line at every chunk, quadratic (2.7 s instead of 0.2 s on 22 MB).
    const firstNl = chunk.indexOf('\n');
    if (firstNl === -1) {
      this.pending += chunk;
      if (this.pending.length > this.maxLineChars) this.longLine();
      return;
    }
    let text = this.pending + chunk;
    let start = 0;
    for (let nl = this.pending.length + firstNl; nl !== -1; nl = text.indexOf('\n', start)) {
      this.line(text.slice(start, nl));
      start = nl + 1;
      if (this.queue.length >= QUEUE_MAX) this.flush();
    }
    this.pending = start === 0 ? text : text.slice(start);
    text = '';
    this.flush();
  }

  end(): void {
    if (this.pending.length > 0 || this.partial) {
      const last = this.pending;
      this.pending = '';
      this.line(last);
    }
    this.flushJunk();
    if (this.block) {
      if (!this.readCutBlock(`the input ends at line ${this.lineNo}`)) {
        this.warn(`line ${this.blockStart}: incomplete JSON value, the input ends before its closing brace; skipped`);
      }
      this.resetBlock();
    }
    if (this.array) this.endArray(this.array);
    this.flush();
  }

  private line(rawLine: string): void {
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    if (this.partial) {
      // The end of a long array line whose start was read already.
      this.partial = false;
      if (this.array) this.feedArray(line, 0, this.array);
      else this.textAfterArray(line, 0);
      return;
    }
    this.lineNo += 1;
    // A line longer than the limit, pushed in one chunk: the same as when it arrives in pieces.
    if (line.length > this.maxLineChars && !this.arrayLineStarts(line)) {
      this.dropLongLine();
      return;
    }
    if (this.array) {
      this.arrayLine(line, this.array);
      return;
    }
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
          `line ${this.blockStart}: JSON value longer than ${this.maxBlockChars} characters without its closing brace; skipped`,
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
    if (first === 91) {
      this.array = new JsonArraySplitter(this.lineNo, (text, at, index) => this.element(text, at, index));
      this.feedArray(line, begin + 1, this.array);
      return;
    }
    // Blocks are objects: arrays are read element by element above.
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
      // An array is then read element by element, keeping its good elements.
      if (line.charCodeAt(firstNonSpace(line)) === 91) return false;
      // Balanced braces on one line yet invalid JSON: a malformed JSON Lines record.
      if (braceDelta(line) === 0) {
        this.warn(`line ${this.lineNo}: malformed JSON (${jsonError(error)}); skipped`);
        return true;
      }
      return false;
    }
    if (insideBlock) {
      if (!isReportLike(value)) return false;
      if (!this.readCutBlock(`line ${this.lineNo} starts a new report`)) {
        this.warn(
          `line ${this.blockStart}: incomplete JSON value, cut off before its closing brace (line ${this.lineNo} starts a new report); skipped`,
        );
      }
      this.resetBlock();
    }
    this.queue.push({ value, line: this.lineNo, element: -1 });
    return true;
  }

  /**
   * A pretty-printed report cut off before its end (pasted from a log or a page): what it holds,
   * closed (`closeTruncated`), with a warning saying so. False when it cannot be read that way, or
   * when it is one line: a JSON Lines record cut short is one still being written, not read half.
   */
  private readCutBlock(why: string): boolean {
    const block = this.block!;
    if (block.length < 2) return false;
    const closed = closeTruncated(block.join('\n'));
    if (!closed || !isReportLike(closed.value)) return false;
    const brackets = closed.closed === 1 ? '1 bracket' : `${closed.closed} brackets`;
    this.warn(`line ${this.blockStart}: JSON value cut off before its end (${why}); read up to the cut, closing ${brackets}: anything after it is missing`);
    this.queue.push({ value: closed.value, line: this.blockStart, element: -1 });
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
    this.queue.push({ value, line: start, element: -1 });
  }

  private arrayLine(line: string, array: JsonArraySplitter): void {
    // A line holding a whole value can mean the array was cut short there (a truncated array
    // followed by JSON Lines, or by the next file's array): inside an element, a whole report;
    // between elements, a whole array (progress arrays never hold arrays). A whole object between
    // elements is the next element (pretty arrays put one per line), or after an element with no
    // comma, the "missing comma" the splitter reads as one. Report the cut, keep the line.
    if (looksLikeWholeValue(line)) {
      const inside = array.depth > 1;
      if (inside || line.charCodeAt(firstNonSpace(line)) === 91 /* [ */) {
        let value: unknown;
        try {
          value = JSON.parse(line);
        } catch {
          value = undefined;
        }
        if (inside ? isReportLike(value) : Array.isArray(value)) {
          this.array = null;
          if (inside) {
            this.warn(
              `line ${array.elementLine} (array element ${array.index}): incomplete JSON value, the array is cut off before its closing bracket (line ${this.lineNo} starts a new report); skipped`,
            );
          } else {
            array.finish();
            this.warn(
              `line ${array.startLine}: JSON array cut off before its closing bracket (line ${this.lineNo} starts a new array); its ${array.index} elements were read`,
            );
          }
          this.queue.push({ value, line: this.lineNo, element: -1 });
          return;
        }
      }
    }
    this.feedArray(line, 0, array);
  }

  private feedArray(line: string, from: number, array: JsonArraySplitter): void {
    const end = array.feed(line, this.lineNo, from);
    if (end === -1) {
      if (array.held > this.maxBlockChars) {
        this.warn(
          `line ${array.elementLine} (array element ${array.index}): JSON value longer than ${this.maxBlockChars} characters without its end; skipped`,
        );
        array.drop();
      }
      return;
    }
    this.array = null;
    this.textAfterArray(line, end);
  }

  private textAfterArray(line: string, from: number): void {
    for (let i = from; i < line.length; i += 1) {
      if (isSpace(line.charCodeAt(i))) continue;
      this.warn(
        `line ${this.lineNo}: text after the JSON array's closing bracket (starts with ${JSON.stringify(line.slice(i, i + 20))}); skipped`,
      );
      return;
    }
  }

  /** Whether `line` (the current line) is read by an array: inside one, or starting one outside a block. */
  private arrayLineStarts(line: string): boolean {
    if (this.array) return true;
    if (this.block) return false;
    const begin = firstNonSpace(line);
    return begin !== -1 && line.charCodeAt(begin) === 91 /* [ */;
  }

  /**
   * `pending`, a line without its newline yet, grew past the limit. In an array (a one-line array),
   * its start up to the last bracket, brace, comma or colon outside a string is fed to the array
   * (the cut falls between JSON tokens, so the newline the splitter puts there is whitespace);
   * anything else is dropped with a warning, and so is the rest of the line.
   */
  private longLine(): void {
    const text = this.pending;
    if (this.partial ? this.array !== null : this.arrayLineStarts(text)) {
      const cut = tokenBoundary(text);
      if (cut > 0) {
        this.pending = text.slice(cut);
        const part = text.slice(0, cut);
        if (this.partial) this.feedArray(part, 0, this.array!);
        else {
          this.lineNo += 1;
          this.partial = true;
          if (this.array) this.feedArray(part, 0, this.array);
          else {
            this.flushJunk();
            const begin = firstNonSpace(part);
            this.array = new JsonArraySplitter(this.lineNo, (t, at, index) => this.element(t, at, index));
            this.feedArray(part, begin + 1, this.array);
          }
        }
        this.flush();
        return;
      }
    }
    this.pending = '';
    if (this.partial) {
      // The array closed on this line and more text follows it, or no token ends in its text.
      this.partial = false;
      this.array?.drop();
      this.warn(`line ${this.lineNo}: longer than ${this.maxLineChars} characters; the rest of the line is skipped`);
      this.skipping = true;
      this.flush();
      return;
    }
    this.lineNo += 1;
    this.dropLongLine();
    this.skipping = true;
    this.flush();
  }

  /** The current line (counted) is too long to hold: one warning naming it. */
  private dropLongLine(): void {
    this.flushJunk();
    this.warn(`line ${this.lineNo}: longer than ${this.maxLineChars} characters; skipped`);
  }

  /** The input ended inside an array: one warning for the cut, after the elements it left whole. */
  private endArray(array: JsonArraySplitter): void {
    this.array = null;
    if (array.depth > 1) {
      this.warn(
        `line ${array.elementLine} (array element ${array.index}): incomplete JSON value, the input ends at line ${this.lineNo} before the array's closing bracket; skipped`,
      );
      return;
    }
    array.finish();
    this.warn(
      `line ${array.startLine}: JSON array cut off, the input ends at line ${this.lineNo} before its closing bracket; its ${array.index} elements were read`,
    );
  }

  private element(text: string, line: number, index: number): void {
    const where = `line ${line} (array element ${index})`;
    if (firstNonSpace(text) === -1) {
      this.warn(`${where}: empty (a stray comma); skipped`);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      const at = errorLine(error, text, line);
      this.warn(`${where}: malformed JSON${at === line ? '' : ` (error at line ${at})`}: ${jsonError(error)}; skipped`);
      return;
    }
    this.queue.push({ value, line, element: index });
    // A long one-line array read this way: hand on what was read as it goes.
    if (this.queue.length >= QUEUE_MAX) this.flush();
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
      else if (item.element >= 0) this.emitOne(item.value, item.line, ` (array element ${item.element})`);
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

/**
 * Position just past the last `{ } [ ] , :` outside a JSON string in `text` (which starts outside
 * one), or 0. String state ends with the line, as in `braceDelta`.
 */
function tokenBoundary(text: string): number {
  let cut = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      let q = i + 1;
      for (;;) {
        q = text.indexOf('"', q);
        if (q === -1) return cut;
        let backslashes = 0;
        while (text.charCodeAt(q - 1 - backslashes) === 92 /* \ */) backslashes += 1;
        if ((backslashes & 1) === 0) break;
        q += 1;
      }
      i = q;
    } else if (c === 123 || c === 125 || c === 91 || c === 93 || c === 44 || c === 58) cut = i + 1;
  }
  return cut;
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
  // V8 quotes the text around the error, line breaks included (a pretty-printed element): keep one line.
  const message = (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ');
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
