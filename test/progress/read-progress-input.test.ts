import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ProgressInputReader, type ProgressRecord } from '../../src/progress/progress-input-reader.js';
import { readProgressInput } from '../../src/progress/read-progress-input.js';

const template = JSON.parse(
  readFileSync(new URL('../fixtures/progress/databricks-kafka-delta-agg-behind.json', import.meta.url), 'utf8'),
) as Record<string, any>;

function report(id: string, batchId: number, name: string | null = 'orders'): Record<string, any> {
  const copy = structuredClone(template);
  copy.id = id;
  copy.name = name;
  copy.batchId = batchId;
  copy.timestamp = new Date(Date.parse(template.timestamp) + batchId * 60_000).toISOString();
  return copy;
}

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';

describe('readProgressInput', () => {
  it('reads JSON Lines with a line number per record', () => {
    const text = [report(A, 1), report(A, 2), report(A, 3)].map((r) => JSON.stringify(r)).join('\n');
    const { records, warnings } = readProgressInput(text);
    expect(warnings).toEqual([]);
    expect(records.map((r) => [r.line, r.progress.batchId])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
  });

  it('reads one JSON array (json.dumps(query.recentProgress)), pretty-printed or not', () => {
    const items = [report(A, 1), report(B, 1, null), report(A, 2)];
    for (const text of [JSON.stringify(items), JSON.stringify(items, null, 2)]) {
      const { records, warnings } = readProgressInput(text);
      expect(warnings).toEqual([]);
      expect(records.map((r) => `${r.progress.id}:${r.progress.batchId}`)).toEqual([`${A}:1`, `${B}:1`, `${A}:2`]);
      expect(records[1]!.progress.name).toBeNull();
    }
  });

  it('reads pretty-printed objects one after another, mixed with JSON Lines and listener events', () => {
    const text = [
      JSON.stringify(report(A, 1), null, 2),
      JSON.stringify(report(A, 2)),
      '',
      JSON.stringify({ progress: report(B, 7) }, null, 1),
      readFileSync(new URL('../fixtures/progress/eventlog-stream-progress.json', import.meta.url), 'utf8'),
    ].join('\n');
    const { records, warnings } = readProgressInput(text);
    expect(warnings).toEqual([]);
    expect(records.map((r) => r.progress.batchId)).toEqual([1, 2, 7, 4]);
    const lines = text.split('\n');
    for (const record of records) expect(lines[record.line - 1]!.trimStart().startsWith('{')).toBe(true);
  });

  it('skips a malformed line with a warning naming it and carries on', () => {
    const good = JSON.stringify(report(A, 1));
    const text = [good, '{"id": "broken", "runId": ', JSON.stringify(report(A, 2)), 'INFO not json', JSON.stringify(report(A, 3))].join('\n');
    const { records, warnings } = readProgressInput(text);
    expect(records.map((r) => r.progress.batchId)).toEqual([1, 2, 3]);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^line 2: incomplete JSON value.*line 3 starts a new report/);
    expect(warnings[1]).toMatch(/^line 4: not JSON/);
  });

  it('reads a pretty-printed object cut off at the end of the input up to the cut, saying so', () => {
    const pretty = JSON.stringify(report(A, 9), null, 2).split('\n');
    const text = [JSON.stringify(report(A, 8)), ...pretty.slice(0, 20)].join('\n');
    const { records, warnings } = readProgressInput(text);
    expect(records.map((r) => r.progress.batchId)).toEqual([8, 9]);
    expect(records[1]!.line).toBe(2);
    expect(warnings).toEqual([expect.stringMatching(/^line 2: JSON value cut off before its end \(the input ends at line 21\); read up to the cut, closing \d brackets?: anything after it is missing$/)]);
  });

  it('reads a pretty-printed object cut off by the next report up to the cut; a cut JSON Lines record stays unread', () => {
    const pretty = JSON.stringify(report(A, 9), null, 2).split('\n');
    const cutLine = JSON.stringify(report(A, 11)).slice(0, 200);
    const text = [...pretty.slice(0, 12), JSON.stringify(report(A, 10)), cutLine].join('\n');
    const { records, warnings } = readProgressInput(text);
    expect(records.map((r) => r.progress.batchId)).toEqual([9, 10]);
    expect(warnings).toEqual([
      expect.stringMatching(/^line 1: JSON value cut off before its end \(line 13 starts a new report\); read up to the cut/),
      'line 14: incomplete JSON value, the input ends before its closing brace; skipped',
    ]);
  });

  it('ignores a byte-order mark and Windows line ends', () => {
    const text = '\ufeff' + [report(A, 1), report(A, 2)].map((r) => JSON.stringify(r)).join('\r\n') + '\r\n';
    const { records, warnings } = readProgressInput(text);
    expect(warnings).toEqual([]);
    expect(records.map((r) => r.progress.batchId)).toEqual([1, 2]);
  });

  it('names array elements that are not progress reports', () => {
    const text = JSON.stringify([report(A, 1), { hello: 1 }, report(A, 2)]);
    const { records, warnings } = readProgressInput(text);
    expect(records).toHaveLength(2);
    expect(warnings[0]).toMatch(/^line 1 \(array element 1\): no "id" string/);
  });

  it('gives the same records when the text arrives in arbitrary chunks (streaming)', () => {
    const text = [JSON.stringify(report(A, 1), null, 2), JSON.stringify(report(B, 2)), JSON.stringify([report(A, 3)])].join('\r\n');
    const whole = readProgressInput(text).records.map((r) => [r.line, r.progress.batchId]);
    for (const size of [1, 7, 64, 1000]) {
      const records: ProgressRecord[] = [];
      const reader = new ProgressInputReader((r) => records.push(r), () => {});
      for (let i = 0; i < text.length; i += size) reader.push(text.slice(i, i + size));
      reader.end();
      expect(records.map((r) => [r.line, r.progress.batchId])).toEqual(whole);
    }
  });

  it('hands on records and warnings in input order, across the values parsed ahead of them', () => {
    // Lines are parsed a chunk at a time before they are handed on: the order must not show it.
    const lines: string[] = [];
    for (let i = 1; i <= 150; i += 1) {
      if (i % 7 === 0) lines.push('{"id": "broken",');
      else if (i % 7 === 3) lines.push('{"note": "no id here"}');
      else lines.push(JSON.stringify(report(A, i)));
    }
    const seen: string[] = [];
    const reader = new ProgressInputReader(
      (r) => seen.push(`record ${r.line}`),
      (w) => seen.push(`warning ${/^line (\d+)/.exec(w)![1]}`),
    );
    reader.push(`${lines.join('\n')}\n`);
    reader.end();
    const expected = lines.map((_, index) => {
      const line = index + 1;
      return line % 7 === 0 || line % 7 === 3 ? `warning ${line}` : `record ${line}`;
    });
    expect(seen).toEqual(expected);
  });

  it('bounds a block that never closes', () => {
    const warnings: string[] = [];
    const reader = new ProgressInputReader(() => {}, (w) => warnings.push(w), { maxBlockChars: 1000 });
    reader.push('{\n');
    for (let i = 0; i < 200; i += 1) reader.push(`"k${i}": [\n`);
    reader.push(JSON.stringify(report(A, 5)) + '\n');
    let count = 0;
    const after = new ProgressInputReader(() => (count += 1), () => {}, { maxBlockChars: 1000 });
    after.push('{\n"a": [\n' + JSON.stringify(report(A, 5)) + '\n');
    after.end();
    reader.end();
    expect(warnings[0]).toMatch(/longer than 1000 characters/);
    expect(count).toBe(1);
  });
});
