import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ProgressInputReader, type ProgressRecord } from '../../src/progress/progress-input-reader.js';
import { readProgressInput } from '../../src/progress/read-progress-input.js';

const template = JSON.parse(
  readFileSync(new URL('../fixtures/progress/databricks-kafka-delta-agg-behind.json', import.meta.url), 'utf8'),
) as Record<string, any>;

const A = '00000000-0000-4000-8000-00000000000a';
/** A number no report holds, replaced by `NaN` in the text as Python's json.dumps writes a float nan. */
const NAN_MARK = 987654.25;

function report(batchId: number, name = 'orders'): Record<string, any> {
  const copy = structuredClone(template);
  copy.id = A;
  copy.name = name;
  copy.batchId = batchId;
  copy.timestamp = new Date(Date.parse(template.timestamp) + batchId * 60_000).toISOString();
  return copy;
}

function reports(count: number, nanAt = -1): Record<string, any>[] {
  return Array.from({ length: count }, (_, i) => {
    const r = report(i);
    if (i === nanAt) r.inputRowsPerSecond = NAN_MARK;
    return r;
  });
}

/** The array as JSON.stringify writes it (pretty: indent 2) and where each element's text ends. */
function arrayText(items: unknown[], pretty: boolean): { text: string; ends: number[] } {
  const parts = items.map((item) =>
    pretty ? `  ${JSON.stringify(item, null, 2).replaceAll('\n', '\n  ')}` : JSON.stringify(item),
  );
  const ends: number[] = [];
  let offset = pretty ? 2 : 1;
  for (const part of parts) {
    ends.push(offset + part.length);
    offset += part.length + (pretty ? 2 : 1);
  }
  const text = pretty ? `[\n${parts.join(',\n')}\n]` : `[${parts.join(',')}]`;
  expect(text).toBe(pretty ? JSON.stringify(items, null, 2) : JSON.stringify(items));
  return { text: text.replaceAll(String(NAN_MARK), 'NaN'), ends };
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line += 1;
  return line;
}

/** Reads `text` pushed in chunks of `size` characters, as the CLI streams a file. */
function readChunked(text: string, size: number, maxBlockChars?: number): { records: ProgressRecord[]; warnings: string[] } {
  const records: ProgressRecord[] = [];
  const warnings: string[] = [];
  const reader = new ProgressInputReader((r) => records.push(r), (w) => warnings.push(w), { maxBlockChars });
  for (let i = 0; i < text.length; i += size) reader.push(text.slice(i, i + size));
  reader.end();
  return { records, warnings };
}

const batchIds = (records: ProgressRecord[]) => records.map((r) => r.progress.batchId);

describe('ProgressInputReader on JSON arrays, element by element', () => {
  it('keeps the rest of an array with one NaN element and names its line and index', () => {
    for (const pretty of [false, true]) {
      const { text, ends } = arrayText(reports(12, 5), pretty);
      const start = ends[4]! + 2; // past element 4's "," (and its newline when pretty)
      for (const size of [text.length, 65_536, 1_000, 7]) {
        const { records, warnings } = readChunked(text, size);
        expect(batchIds(records)).toEqual([0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11]);
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(new RegExp(`^line ${lineAt(text, start)} \\(array element 5\\): malformed JSON.*NaN.*; skipped$`));
      }
    }
  });

  it("names each element's own line in a pretty-printed array", () => {
    const { text, ends } = arrayText(reports(3), true);
    const { records, warnings } = readProgressInput(text);
    expect(warnings).toEqual([]);
    expect(records.map((r) => r.line)).toEqual([2, lineAt(text, ends[0]! + 2), lineAt(text, ends[1]! + 2)]);
    expect(text.split('\n')[records[2]!.line - 1]).toBe('  {');
  });

  it('keeps every complete element of a truncated array and warns once, at the line of the cut', () => {
    for (const pretty of [false, true]) {
      const { text, ends } = arrayText(reports(8), pretty);
      const cuts: [cut: number, complete: number][] = [
        [Math.floor((ends[3]! + ends[4]!) / 2), 4], // inside element 4
        [ends[4]! - 1, 4], // just before element 4's closing brace
        [ends[4]!, 5], // after element 4's closing brace, before its comma
        [ends[4]! + 1, 5], // after its comma
      ];
      for (const [cut, complete] of cuts) {
        const truncated = text.slice(0, cut);
        for (const size of [truncated.length, 1_000]) {
          const { records, warnings } = readChunked(truncated, size);
          expect(batchIds(records)).toEqual([0, 1, 2, 3, 4].slice(0, complete));
          expect(warnings).toHaveLength(1);
          const last = truncated.split('\n').length;
          expect(warnings[0]).toContain(`the input ends at line ${last} before`);
          if (complete === 4) expect(warnings[0]).toMatch(/^line \d+ \(array element 4\): incomplete JSON value/);
          else expect(warnings[0]).toMatch(/^line 1: JSON array cut off.*its 5 elements were read$/);
        }
      }
    }
  });

  it('warns once for an array cut off before JSON Lines, and reads those lines', () => {
    const { text, ends } = arrayText(reports(4), true);
    const cut = text.slice(0, Math.floor((ends[1]! + ends[2]!) / 2)).split('\n').slice(0, -1);
    const jsonl = [report(20), report(21)].map((r) => JSON.stringify(r));
    const { records, warnings } = readProgressInput([...cut, ...jsonl].join('\n'));
    expect(batchIds(records)).toEqual([0, 1, 20, 21]);
    expect(records.slice(2).map((r) => r.line)).toEqual([cut.length + 1, cut.length + 2]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(new RegExp(`^line \\d+ \\(array element 2\\): incomplete JSON value.*line ${cut.length + 1} starts a new report`));
  });

  it('ends an array cut between elements at a following one-line array, and reads that array whole', () => {
    const next = arrayText([report(20), report(21)], false).text;
    for (const pretty of [false, true]) {
      const { text, ends } = arrayText(reports(4), pretty);
      // After element 1's comma, and after its closing brace with no comma.
      for (const cut of [ends[1]! + 1, ends[1]!]) {
        const input = `${text.slice(0, cut)}\n${next}\n`;
        const nextLine = input.split('\n').indexOf(next) + 1;
        for (const size of [input.length, 1_000, 7]) {
          const { records, warnings } = readChunked(input, size);
          expect(batchIds(records)).toEqual([0, 1, 20, 21]);
          expect(records.slice(2).map((r) => r.line)).toEqual([nextLine, nextLine]);
          expect(warnings).toEqual([
            `line 1: JSON array cut off before its closing bracket (line ${nextLine} starts a new array); its 2 elements were read`,
          ]);
        }
      }
    }
  });

  it('reads JSON Lines after an array cut between elements as its elements: every report kept, one warning', () => {
    // Between elements a whole object on its own line is the array's next element (one per line
    // is a valid array), so the lines join the open array; only the input's end shows the cut.
    const jsonl = [report(20), report(21)].map((r) => JSON.stringify(r));
    for (const pretty of [false, true]) {
      const { text, ends } = arrayText(reports(4), pretty);
      for (const cut of [ends[1]! + 1, ends[1]!]) {
        const input = [text.slice(0, cut), ...jsonl].join('\n');
        const { records, warnings } = readChunked(input, 1_000);
        expect(batchIds(records)).toEqual([0, 1, 20, 21]);
        expect(warnings).toEqual([
          `line 1: JSON array cut off, the input ends at line ${input.split('\n').length} before its closing bracket; its 4 elements were read`,
        ]);
      }
    }
    // One element per line, closed: one array, no warning.
    const input = ['[', `${jsonl[0]},`, jsonl[1], ']'].join('\n');
    const { records, warnings } = readChunked(input, 7);
    expect(batchIds(records)).toEqual([20, 21]);
    expect(warnings).toEqual([]);
  });

  it('splits elements holding nested arrays and objects, and brackets, commas and quotes inside strings', () => {
    const names = ['we "quoted" ], [ {x}, y', 'back\\slash\\', 'tail \\"]}', '[{"a": [1, 2]}]', 'plain'];
    const items: unknown[] = names.map((name, i) => {
      const r = report(i, name);
      r.sources[0].description = `Kafka[Subscribe[${name}]]", {`;
      r.nested = [[1, [2, { k: ']' }]], { deep: { list: [[], [[]], '"'] } }];
      return r;
    });
    items.splice(2, 0, [[report(90)], [1, [2, '],[']]]); // an array of arrays: one element, not a report
    items.splice(4, 0, { ...report(91), inputRowsPerSecond: NAN_MARK });
    for (const pretty of [false, true]) {
      const { text } = arrayText(items, pretty);
      for (const size of [text.length, 1_000, 7]) {
        const { records, warnings } = readChunked(text, size);
        expect(records.map((r) => r.progress.name)).toEqual(names);
        expect(records.map((r) => r.progress.sources[0]!.description)).toEqual(names.map((n) => `Kafka[Subscribe[${n}]]", {`));
        expect(warnings).toHaveLength(2);
        expect(warnings[0]).toMatch(/^line \d+ \(array element 2\): got an array/);
        expect(warnings[1]).toMatch(/^line \d+ \(array element 4\): malformed JSON/);
      }
    }
  });

  it('still reads a valid one-line array in one piece, among JSON Lines', () => {
    const { text } = arrayText(reports(3), false);
    const input = [JSON.stringify(report(10)), text, JSON.stringify(report(11))].join('\n');
    const { records, warnings } = readChunked(input, 1_000);
    expect(warnings).toEqual([]);
    expect(records.map((r) => [r.line, r.progress.batchId])).toEqual([
      [1, 10],
      [2, 0],
      [2, 1],
      [2, 2],
      [3, 11],
    ]);
  });

  it('reads a one-line array with a bad element among JSON Lines, and the lines after it', () => {
    const { text } = arrayText(reports(3, 1), false);
    const input = [JSON.stringify(report(10)), text, JSON.stringify(report(11))].join('\n');
    const { records, warnings } = readProgressInput(input);
    expect(records.map((r) => [r.line, r.progress.batchId])).toEqual([
      [1, 10],
      [2, 0],
      [2, 2],
      [3, 11],
    ]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^line 2 \(array element 1\): malformed JSON/);
  });

  it('holds one element at a time: a pretty array longer than maxBlockChars is read whole', () => {
    const { text } = arrayText(reports(10), true);
    expect(text.length).toBeGreaterThan(20_000);
    const { records, warnings } = readChunked(text, 1_000, 5_000);
    expect(warnings).toEqual([]);
    expect(batchIds(records)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('skips an element longer than maxBlockChars with a warning and keeps the ones after it', () => {
    const items = reports(4);
    items[1]!.padding = Array.from({ length: 400 }, (_, i) => `filler ${i}`);
    const { text } = arrayText(items, true);
    const { records, warnings } = readChunked(text, 1_000, 5_000);
    expect(batchIds(records)).toEqual([0, 2, 3]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^line \d+ \(array element 1\): JSON value longer than 5000 characters/);
  });
});

describe('ProgressInputReader on JSON Lines, unchanged', () => {
  it('skips a NaN line and a cut-off last line with one warning each, keeping the rest', () => {
    const lines = reports(6, 2).map((r) => JSON.stringify(r).replaceAll(String(NAN_MARK), 'NaN'));
    lines[5] = lines[5]!.slice(0, 900);
    for (const size of [65_536, 1_000]) {
      const { records, warnings } = readChunked(lines.join('\n'), size);
      expect(records.map((r) => [r.line, r.progress.batchId])).toEqual([
        [1, 0],
        [2, 1],
        [4, 3],
        [5, 4],
      ]);
      expect(warnings).toHaveLength(2);
      expect(warnings[0]).toMatch(/^line 3: malformed JSON \(.*NaN.*\); skipped$/);
      expect(warnings[1]).toBe('line 6: incomplete JSON value, the input ends before its closing brace; skipped');
    }
  });
});
