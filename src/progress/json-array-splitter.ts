/**
 * Splits a top-level JSON array into the text of its elements as its lines arrive, so each element
 * is parsed on its own: a malformed element (Python's `NaN`) or a cut-off end loses only itself, and
 * only the element being read is held, never the whole array.
 *
 * A string-aware bracket-depth scan: a comma or `]` at depth 1 ends an element; brackets, braces,
 * commas and escaped quotes inside strings do not count. String state ends with each line (JSON
 * strings cannot span lines), so one broken quote cannot hide the rest of the array.
 */
export class JsonArraySplitter {
  /** Bracket depth: 1 between elements and inside a scalar one, more inside one, 0 once closed. */
  depth = 1;
  /** Index of the element being read, or of the next one. */
  index = 0;
  /** Line where the element being read starts; 0 between elements. */
  elementLine = 0;
  /** Characters of the open element held from earlier lines. */
  held = 0;
  private pieces: string[] = [];
  /** The open element was too long: its text is no longer held and it is not handed on. */
  private dropped = false;
  private afterComma = false;

  /** `onElement` gets each element's text ('' for an empty one: a stray comma), its line and index. */
  constructor(
    readonly startLine: number,
    private readonly onElement: (text: string, line: number, index: number) => void,
  ) {}

  /** Scans `line` from `from`; returns the position just past the array's closing bracket, or -1. */
  feed(line: string, lineNo: number, from: number): number {
    const length = line.length;
    let depth = this.depth;
    // Where the open element's text starts on this line; -1 with no element open.
    let start = this.elementLine === 0 ? -1 : 0;
    for (let i = from; i < length; i += 1) {
      const c = line.charCodeAt(i);
      if (c === 34 /* " */) {
        if (start === -1) start = this.begin(i, lineNo);
        i = closingQuote(line, i + 1);
      } else if (depth > 1) {
        if (c === 123 /* { */ || c === 91 /* [ */) depth += 1;
        else if (c === 125 /* } */ || c === 93 /* ] */) depth -= 1;
      } else if (c === 32 || c === 9 || c === 13) {
        // whitespace between elements
      } else if (c === 44 /* , */) {
        if (start !== -1) this.end(line, start, i);
        else this.onElement('', lineNo, this.index++);
        start = -1;
        this.afterComma = true;
      } else if (c === 93 /* ] */) {
        if (start !== -1) this.end(line, start, i);
        else if (this.afterComma) this.onElement('', lineNo, this.index++);
        this.depth = 0;
        return i + 1;
      } else if (c === 123 || c === 91) {
        // Only at an element's start in valid JSON; a missing comma (JSON Lines after an array cut
        // at an element's end) still starts the next element rather than running into this one.
        if (start !== -1) this.end(line, start, i);
        start = this.begin(i, lineNo);
        depth = 2;
      } else if (start === -1) start = this.begin(i, lineNo);
    }
    this.depth = depth;
    if (start !== -1 && !this.dropped) {
      this.pieces.push(start === 0 ? line : line.slice(start), '\n');
      this.held += length - start + 1;
    }
    return -1;
  }

  /** Stops holding the open element (too long): it is skipped, the elements after it are read. */
  drop(): void {
    this.pieces = [];
    this.held = 0;
    this.dropped = true;
  }

  /** Where the array's text ends (input end, a cut): hands on an open element that holds a whole value (depth 1). */
  finish(): void {
    if (this.elementLine !== 0 && this.depth === 1) this.end('', 0, 0);
  }

  private begin(position: number, lineNo: number): number {
    this.elementLine = lineNo;
    this.afterComma = false;
    return position;
  }

  private end(line: string, start: number, stop: number): void {
    const tail = line.slice(start, stop);
    const text = this.pieces.length === 0 ? tail : this.pieces.join('') + tail;
    const elementLine = this.elementLine;
    const dropped = this.dropped;
    this.pieces = [];
    this.held = 0;
    this.dropped = false;
    this.elementLine = 0;
    const index = this.index++;
    if (!dropped) this.onElement(text, elementLine, index);
  }
}

/** Position of the quote closing a string whose text starts at `from`, or the line's end. */
function closingQuote(line: string, from: number): number {
  for (let q = line.indexOf('"', from); q !== -1; q = line.indexOf('"', q + 1)) {
    let backslashes = 0;
    while (line.charCodeAt(q - 1 - backslashes) === 92 /* \ */) backslashes += 1;
    if ((backslashes & 1) === 0) return q;
  }
  return line.length;
}
