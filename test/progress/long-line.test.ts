/**
 * A line longer than the reader's limit (`maxLineChars`) is dropped with one warning naming it, and
 * read past without being held, so the reports around it are still read; a one-line JSON array longer
 * than the limit is still read, element by element as it arrives.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ProgressInputReader, type ProgressInputReaderOptions, type ProgressRecord } from '../../src/progress/progress-input-reader.js';

const template = JSON.parse(
  readFileSync(new URL('../fixtures/progress/databricks-kafka-delta-agg-behind.json', import.meta.url), 'utf8'),
) as Record<string, any>;

const A = '00000000-0000-4000-8000-00000000000a';

function report(batchId: number, name = 'orders'): Record<string, any> {
  const copy = structuredClone(template);
  copy.id = A;
  copy.name = name;
  copy.batchId = batchId;
  copy.timestamp = new Date(Date.parse(template.timestamp) + batchId * 60_000).toISOString();
  return copy;
}

/** Reads `text` pushed in chunks of `size`; `held` is the most text the reader kept between pushes. */
function readChunked(text: string, size: number, options: ProgressInputReaderOptions) {
  const records: ProgressRecord[] = [];
  const warnings: string[] = [];
  const reader = new ProgressInputReader((r) => records.push(r), (w) => warnings.push(w), options);
  let held = 0;
  for (let i = 0; i < text.length; i += size) {
    reader.push(text.slice(i, i + size));
    held = Math.max(held, (reader as unknown as { pending: string }).pending.length);
  }
  reader.end();
  return { records, warnings, held, lines: records.map((r) => [r.line, r.progress.batchId]) };
}

describe('ProgressInputReader on a line longer than its limit', () => {
  it('drops the line with one warning naming it, without holding it, and reads every other report', () => {
    const long = `{"padding": "${'x'.repeat(20_000)}", "batchId": 99}`;
    const input = [report(0), report(1), report(2)].map((r) => JSON.stringify(r)).concat(long, JSON.stringify(report(3)), JSON.stringify(report(4))).join('\n');
    for (const size of [1_000, 7_777, input.length]) {
      const { lines, warnings, held } = readChunked(input, size, { maxLineChars: 5_000 });
      expect(lines).toEqual([[1, 0], [2, 1], [3, 2], [5, 3], [6, 4]]);
      expect(warnings).toEqual(['line 4: longer than 5000 characters; skipped']);
      if (size < input.length) expect(held).toBeLessThanOrEqual(5_000 + size);
    }
  });

  it('drops a long last line without a newline, and a long line inside a pretty-printed object', () => {
    const input = `${JSON.stringify(report(0))}\n${'y'.repeat(12_000)}`;
    expect(readChunked(input, 1_000, { maxLineChars: 5_000 }).warnings).toEqual(['line 2: longer than 5000 characters; skipped']);
    const junk = `${JSON.stringify(report(0))}\nnot json\n${'z'.repeat(12_000)}\n${JSON.stringify(report(1))}`;
    const read = readChunked(junk, 1_000, { maxLineChars: 5_000 });
    expect(read.lines).toEqual([[1, 0], [4, 1]]);
    expect(read.warnings[0]).toMatch(/^line 2: not JSON/);
    expect(read.warnings[1]).toBe('line 3: longer than 5000 characters; skipped');
  });

  it('holds no more than the default limit of a line far longer than it', () => {
    const big = 20_000_000;
    const before = JSON.stringify(report(0));
    const after = JSON.stringify(report(1));
    const records: ProgressRecord[] = [];
    const warnings: string[] = [];
    const reader = new ProgressInputReader((r) => records.push(r), (w) => warnings.push(w));
    reader.push(`${before}\n{"padding": "`);
    const chunk = 'x'.repeat(65_536);
    let held = 0;
    for (let n = 0; n < big; n += chunk.length) {
      reader.push(chunk);
      held = Math.max(held, (reader as unknown as { pending: string }).pending.length);
    }
    reader.push(`"}\n${after}\n`);
    reader.end();
    expect(records.map((r) => [r.line, r.progress.batchId])).toEqual([[1, 0], [3, 1]]);
    expect(warnings).toEqual(['line 2: longer than 8000000 characters; skipped']);
    expect(held).toBeLessThanOrEqual(8_000_000 + chunk.length);
  });

  it('still reads a one-line array longer than the limit, element by element as it arrives', () => {
    const items = Array.from({ length: 30 }, (_, i) => report(i, i === 4 ? 'a "],{[" name: ,' : 'orders'));
    const array = JSON.stringify(items).replace('"batchId":7,', '"batchId":7,"x":NaN,');
    const input = [JSON.stringify(report(100)), array, JSON.stringify(report(101))].join('\n');
    expect(array.length).toBeGreaterThan(20_000);
    for (const size of [7, 1_000, 65_536, input.length]) {
      const { lines, warnings, held } = readChunked(input, size, { maxLineChars: 5_000 });
      expect(lines).toEqual([[1, 100], ...items.filter((_, i) => i !== 7).map((r) => [2, r.batchId]), [3, 101]]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^line 2 \(array element 7\): malformed JSON/);
      if (size < 5_000) expect(held).toBeLessThanOrEqual(5_000 + size);
    }
    const named = readChunked(input, 1_000, { maxLineChars: 5_000 }).records.find((r) => r.progress.batchId === 4);
    expect(named?.progress.name).toBe('a "],{[" name: ,');
  });

  it('skips an element of a long one-line array longer than maxBlockChars, keeping the others', () => {
    const items = Array.from({ length: 6 }, (_, i) => report(i));
    items[2]!.padding = Array.from({ length: 2_000 }, (_, i) => `filler ${i}`);
    const input = `${JSON.stringify(items)}\n${JSON.stringify(report(9))}`;
    const { lines, warnings } = readChunked(input, 1_000, { maxLineChars: 5_000, maxBlockChars: 10_000 });
    expect(lines).toEqual([[1, 0], [1, 1], [1, 3], [1, 4], [1, 5], [2, 9]]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^line 1 \(array element 2\): JSON value longer than 10000 characters/);
  });
});
