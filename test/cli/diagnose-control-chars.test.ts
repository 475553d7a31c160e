/**
 * Input text shown on a terminal (query names in the text report, warnings on stderr) has its
 * control characters (C0, DEL, C1) and bidi overrides replaced by U+FFFD: a newline in a name cannot
 * forge a report line, ESC and OSC 8 sequences never reach the terminal. JSON keeps the exact name.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { diagnose } from './run-diagnose.js';

const TRACE = readFileSync(new URL('../fixtures/real-spark/capacity-dip.jsonl', import.meta.url), 'utf8');
const NAME = 'orders\n\nOK       payments (all good)\n  No incidents.\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007\u001b[2K\u009b31m\u007f\u202e';

function named(name: string): string {
  return TRACE.split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.stringify({ ...JSON.parse(line), name }))
    .join('\n');
}

const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('control characters in input text', () => {
  it('shows them as U+FFFD in the text report: one title line, no forged block', async () => {
    const result = await diagnose([], named(NAME));
    expect(result.code).toBe(0);
    expect(result.out).not.toMatch(UNSAFE);
    expect(result.out).toMatch(/^1 query:/);
    const titles = result.out.split('\n').filter((line) => /^(OK|WARNING|CRITICAL) /.test(line));
    expect(titles).toHaveLength(1);
    expect(titles[0]).toContain(
      'orders\uFFFD\uFFFDOK       payments (all good)\uFFFD  No incidents.\uFFFD]8;;https://evil.example\uFFFDclick\uFFFD]8;;\uFFFD\uFFFD[2K\uFFFD31m\uFFFD\uFFFD',
    );
  });

  it('keeps the exact name in JSON', async () => {
    const result = await diagnose(['--format', 'json'], named(NAME));
    expect(JSON.parse(result.out).queries[0].name).toBe(NAME);
  });

  it('shows them as U+FFFD in warnings on stderr', async () => {
    // A report out of order names its query on stderr; a bad line quotes the input's text.
    const lines = named(NAME).split('\n');
    const input = [lines[3], ...lines.slice(0, 3), '{"id": "x\u001b[2K", "bad": }', ...lines.slice(4)].join('\n');
    const result = await diagnose(['--format', 'json'], input);
    expect(result.err).toContain('query "orders\uFFFD\uFFFDOK       payments');
    expect(result.err.replaceAll('\n', '')).not.toMatch(UNSAFE);
    expect(result.err.trimEnd().split('\n').every((line) => line.startsWith('streamdoctor diagnose: '))).toBe(true);
  });
});
