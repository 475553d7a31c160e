import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/commands/diagnose.js';
import { constantRate, StreamSimulator } from '../../src/simulator/index.js';

/** Runs the command in-process on a file (read in 64 KiB chunks) with captured streams. */
async function diagnoseFile(text: string): Promise<{ code: number; out: string; err: string }> {
  const file = join(mkdtempSync(join(tmpdir(), 'sd-array-')), 'progress.json');
  writeFileSync(file, text);
  let out = '';
  let err = '';
  const code = await run([file, '--format', 'json'], {
    stdin: Readable.from(['']),
    stdout: { write: (t: string) => (out += t) },
    stderr: { write: (t: string) => (err += t) },
  });
  return { code, out, err };
}

/** 160 reports of a healthy Kafka query, as `json.dumps(query.recentProgress, indent=2)` lists them. */
function reports(): Record<string, any>[] {
  const sim = new StreamSimulator(
    {
      id: '3a1f0c2e-5b6d-4e7f-8a9b-0c1d2e3f4a5b',
      name: 'orders',
      arrival: constantRate(10_000),
      processing: { rowsPerSecPerCore: 2_500, cores: 8, overheadMs: 1_200 },
      triggerMs: 10_000,
      source: { kind: 'kafka', partitions: 16 },
    },
    { seed: 5 },
  );
  return sim.take(160).map((b) => JSON.parse(b.json) as Record<string, any>);
}

describe('streamdoctor diagnose on a JSON array file', () => {
  it('skips one NaN element with a warning naming it and diagnoses the rest (exit 0)', async () => {
    const items = reports();
    items[40]!.inputRowsPerSecond = 987654.25;
    const text = JSON.stringify(items, null, 2).replace('987654.25', 'NaN');
    expect(text.length).toBeGreaterThan(3 * 65_536);
    const result = await diagnoseFile(text);
    expect(result.code).toBe(0);
    const warnings = result.err.trim().split('\n');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^streamdoctor diagnose: line \d+ \(array element 40\): malformed JSON.*NaN/);
    expect(JSON.parse(result.out).queries.map((q: { name: string }) => q.name)).toEqual(['orders']);
  });

  it('keeps the complete elements of a truncated array and warns once (exit 0)', async () => {
    const text = JSON.stringify(reports(), null, 2);
    const cut = text.slice(0, Math.floor(text.length * 0.6));
    const result = await diagnoseFile(cut);
    expect(result.code).toBe(0);
    const warnings = result.err.trim().split('\n');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      new RegExp(`incomplete JSON value, the input ends at line ${cut.split('\n').length} before the array's closing bracket`),
    );
    expect(JSON.parse(result.out).queries).toHaveLength(1);
  });
});
