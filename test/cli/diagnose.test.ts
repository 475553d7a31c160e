import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseDiagnoseFlags, UsageError } from '../../src/cli/commands/diagnose.js';
import { diagnose } from './run-diagnose.js';
import { DEFAULT_START_MS, StreamSimulator, steppedRate } from '../../src/simulator/index.js';

const exec = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const real = (name: string) => join(root, 'test/fixtures/real-progress', name);

/** A 12 % overload at 20 minutes, as Spark prints it (JSON Lines); `healthy` keeps up instead. */
function overloadJsonl(healthy = false): string {
  const sim = new StreamSimulator(
    {
      id: healthy ? '912ebdc1-edf2-48ec-b9fb-1a9b67dd2d9e' : '5e0c7a1e-1d2f-4b4e-9a51-0c6f3f2a7b10',
      name: healthy ? 'dataGen' : 'clicks',
      arrival: steppedRate(15_000, [{ atMs: DEFAULT_START_MS + 20 * 60_000, rowsPerSec: healthy ? 15_000 : 22_400 }]),
      processing: { rowsPerSecPerCore: 2_500, cores: 8, overheadMs: 1_200 },
      triggerMs: 10_000,
      source: { kind: 'kafka', partitions: 16 },
    },
    { seed: 3 },
  );
  if (!healthy) return sim.take(160).map((b) => b.json).join('\n');
  // As long as the overloaded one runs, so neither looks silent at the other's latest time.
  const until = overloadEndMs();
  const lines: string[] = [];
  for (let batch = sim.next(); batch.endMs <= until && lines.length < 2_000; batch = sim.next()) lines.push(batch.json);
  return lines.join('\n');
}

function overloadEndMs(): number {
  const last = JSON.parse(overloadJsonl().split('\n').pop()!) as { timestamp: string; durationMs: { triggerExecution: number } };
  return Date.parse(last.timestamp) + last.durationMs.triggerExecution;
}

describe('parseDiagnoseFlags', () => {
  it('reads every flag, in both --flag value and --flag=value forms', () => {
    expect(
      parseDiagnoseFlags(['in.jsonl', '--format', 'json', '--now=2026-09-14T12:00:00Z', '--retention', '2h', '--cores', '16', '--trigger=30s', '--repartition', '5m']),
    ).toEqual({
      file: 'in.jsonl',
      format: 'json',
      nowMs: Date.parse('2026-09-14T12:00:00Z'),
      retentionMs: 7_200_000,
      cores: 16,
      triggerMs: 30_000,
      repartitionThresholdMs: 300_000,
    });
    expect(parseDiagnoseFlags(['-'])).toEqual({ file: '-', format: 'text' });
    expect(parseDiagnoseFlags(['--help'])).toBe('help');
  });

  it('says what to write for each bad flag', () => {
    const cases: [string[], RegExp][] = [
      [['--format', 'yaml'], /--format must be text or json/],
      [['--now', 'yesterday'], /--now must be an ISO-8601 time/],
      [['--retention', 'a week'], /--retention: "a week" is not a duration; write it like 500ms/],
      [['--trigger', 'fast'], /--trigger: .*not a duration/],
      [['--cores', '0'], /--cores must be a whole number/],
      [['--cores', '2.5'], /--cores must be a whole number/],
      [['--retention'], /--retention needs a value/],
      [['--verbose'], /unknown option "--verbose"/],
      [['a.json', 'b.json'], /one input only/],
    ];
    for (const [argv, message] of cases) expect(() => parseDiagnoseFlags(argv)).toThrow(message);
    expect(() => parseDiagnoseFlags(['--cores', 'x'])).toThrow(UsageError);
    // Durations in words read as in /stream mute.
    expect(parseDiagnoseFlags(['--retention', '7 days'])).toMatchObject({ retentionMs: 7 * 86_400_000 });
  });
});

describe('parseDiagnoseFlags: inputs, --now and durations', () => {
  it('names the two inputs, not an option value', () => {
    // --format's value was once counted as the first input.
    for (const argv of [['--format', 'json', 'a.json', 'b.json'], ['a.json', '--now', '2026-09-14T12:00:00Z', 'b.json'], ['--retention=2h', 'a.json', 'b.json']]) {
      expect(() => parseDiagnoseFlags(argv), argv.join(' ')).toThrow('one input only; got "a.json" and "b.json"');
    }
    expect(parseDiagnoseFlags(['--format', 'json', 'a.json'])).toMatchObject({ file: 'a.json', format: 'json' });
    expect(parseDiagnoseFlags(['--', '-x.json'])).toMatchObject({ file: '-x.json' });
  });

  it('refuses a day or time that does not exist, and a date-time without Z or an offset', () => {
    const cases: [string, RegExp][] = [
      ['2026-02-30', /--now names a day that does not exist \("2026-02-30"\)/],
      ['2026-02-29T10:00:00Z', /day that does not exist/],
      ['2026-13-01', /day that does not exist/],
      ['2026-04-31T00:00Z', /day that does not exist/],
      ['2026-09-14T24:00:00Z', /--now names a time that does not exist/],
      ['2026-09-14T10:60Z', /time that does not exist/],
      ['2026-09-14T10:15:00', /--now "2026-09-14T10:15:00" has no time zone; add Z for UTC or an offset such as \+02:00/],
      ['2026-09-14T10:15', /has no time zone/],
      ['2026-09-14 10:15:00Z', /--now must be an ISO-8601 time like 2026-09-14T10:15:00Z/],
    ];
    for (const [now, message] of cases) expect(() => parseDiagnoseFlags(['--now', now]), now).toThrow(message);
    expect(parseDiagnoseFlags(['--now', '2028-02-29'])).toMatchObject({ nowMs: Date.UTC(2028, 1, 29) });
    expect(parseDiagnoseFlags(['--now', '2026-09-14T12:00:00.250+02:00'])).toMatchObject({ nowMs: Date.UTC(2026, 8, 14, 10, 0, 0, 250) });
    expect(parseDiagnoseFlags(['--now', '2026-09-14t10:15z'])).toMatchObject({ nowMs: Date.UTC(2026, 8, 14, 10, 15) });
  });

  it('refuses a duration past ten years (a 400-digit number was Infinity, silently dropped)', () => {
    for (const name of ['--trigger', '--retention', '--repartition']) {
      for (const value of ['9'.repeat(400), `${'9'.repeat(400)}ms`, '3651d']) {
        expect(() => parseDiagnoseFlags([name, value]), `${name} ${value.slice(0, 10)}`).toThrow(new RegExp(`^${name}: ".*" is longer than the 3650d \\(ten years\\)`));
      }
    }
    expect(parseDiagnoseFlags(['--trigger', '0'])).toMatchObject({ triggerMs: 0 });
  });
});

describe('streamdoctor diagnose (in-process)', () => {
  it('exit 2 with usage on a bad flag', async () => {
    const result = await diagnose(['--format', 'xml']);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/--format must be text or json[\s\S]*usage: streamdoctor diagnose/);
    expect(result.out).toBe('');
  });

  it('exit 2 when nothing parses, saying what was expected', async () => {
    const result = await diagnose(['-'], 'hello\nworld\n');
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/lines 1-2: not JSON/);
    expect(result.err).toMatch(/no progress report could be read from stdin; expected StreamingQueryProgress JSON/);
  });

  it('exit 2 for a missing file, with its name', async () => {
    const result = await diagnose(['/nonexistent/progress.jsonl']);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/cannot read \/nonexistent\/progress.jsonl: no such file/);
  });

  it('finds the overload from stdin and prints exactly one JSON document of the contract', async () => {
    const text = overloadJsonl();
    const lines = text.split('\n');
    lines.splice(50, 0, '{"id": "truncated"'); // one malformed line: warned, the rest still counts
    const result = await diagnose(['-', '--format', 'json', '--trigger', '10s'], lines.join('\n'));
    expect(result.code).toBe(0);
    expect(result.err).toMatch(/^streamdoctor diagnose: line 51: /);
    const output = JSON.parse(result.out);
    expect(Object.keys(output)).toEqual(['queries']);
    const [query] = output.queries;
    expect(Object.keys(query)).toEqual(['id', 'name', 'health', 'incidents']);
    expect(query.name).toBe('clicks');
    const lag = query.incidents[0];
    expect(Object.keys(lag)).toEqual([
      'kind',
      'severity',
      'openedAtBatchId',
      'openedAt',
      'resolvedAtBatchId',
      'resolvedAt',
      'summary',
      'causes',
      'advice',
    ]);
    expect(lag.kind).toBe('lag');
    expect(lag.metrics).toBeUndefined(); // in-process only
    expect(lag.openedAtBatchId).toBeGreaterThanOrEqual(118);
    expect(lag.openedAtBatchId).toBeLessThanOrEqual(128);
    for (const advice of lag.advice) expect(Object.keys(advice).every((k) => ['text', 'setting', 'value'].includes(k))).toBe(true);
  });

  it('prints a terminal report for people, worst first', async () => {
    const result = await diagnose(['-'], `${overloadJsonl(true)}\n${overloadJsonl()}`);
    expect(result.code).toBe(0);
    const lines = result.out.split('\n');
    expect(lines[0]).toMatch(/^2 queries: \d critical, \d warning, 1 ok$/);
    expect(lines[2]).toMatch(/^(CRITICAL|WARNING)\s+clicks \(5e0c7a1e/);
    expect(result.out).toMatch(/● lag \((warning|critical)\) since batch \d+/);
    expect(result.out).toMatch(/Why:\n\s+0\.\d\d insufficient_capacity: /);
    expect(result.out).toMatch(/What to change:/);
    expect(result.out).toMatch(/OK\s+dataGen \(912ebdc1/);
    for (const line of lines) expect(line.length).toBeLessThan(400);
  });

  it('judges a stall at --now', async () => {
    const text = overloadJsonl().split('\n').slice(0, 60).join('\n');
    const quiet = await diagnose(['-', '--format', 'json'], text);
    expect(JSON.parse(quiet.out).queries[0].health).toBe('ok');
    const late = await diagnose(['-', '--format', 'json', '--now', '2026-09-14T14:00:00Z'], text);
    const query = JSON.parse(late.out).queries[0];
    expect(query.health).toBe('critical');
    expect(query.incidents[0].kind).toBe('stalled');
  });
});

describe('streamdoctor diagnose (child process)', () => {
  const cli = (args: string[]) =>
    exec(process.execPath, [join(root, 'bin/streamdoctor.mjs'), 'diagnose', ...args], { cwd: root }).then(
      (r) => ({ code: 0, out: r.stdout, err: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout, err: e.stderr }),
    );

  it('reports on a valid published example and a JSON Lines series', async () => {
    const single = await cli([real('31-kafka-assign-nonnumeric-partition-foreachsink.json'), '--format', 'json']);
    expect(single.code).toBe(0);
    expect(JSON.parse(single.out).queries[0]).toMatchObject({ name: 'Opportunity_UHIgcccj_MilestoneHistory', health: 'ok' });
    const series = await cli([real('07-kafka-console-first-and-later-batch-series.jsonl')]);
    expect(series.code).toBe(0);
    expect(series.out).toMatch(/^1 query: 0 critical, 0 warning, 1 ok/);
  });

  it('reads a published example cut off before its last brace, saying so', async () => {
    const result = await cli([real('11-kafka-foreachbatch-metrics-blog-truncated-invalid.txt')]);
    expect(result.code).toBe(0);
    expect(result.err).toMatch(/line 1: JSON value cut off before its end \(the input ends at line 65\); read up to the cut/);
    expect(result.out).toMatch(/kafka-stream-writer/);
  });

  it('gives a clear message and exit 2 for an invalid published example, no stack trace', async () => {
    const result = await cli([real('17-spark22-rates-to-console-annotated-truncated-invalid.txt')]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/line 1: incomplete JSON value, the input ends before its closing brace/);
    expect(result.err).toMatch(/no progress report could be read/);
    expect(result.err).not.toMatch(/\n\s+at /);
  });

  it('reads a file written to disk with a tolerated warning (no timestamp)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sd-diagnose-'));
    const file = join(dir, 'trimmed.json');
    writeFileSync(file, readFileSync(real('29-databricks-blog-rocksdb-trimmed-empty-source-sink.json')));
    const result = await cli([file, '--format=json']);
    expect(result.code).toBe(0);
    expect(result.err).toMatch(/line 1: no "timestamp"/);
    expect(JSON.parse(result.out).queries).toHaveLength(1);
    // No report said when it ran: the text report gives no time rather than the epoch.
    const text = await cli([file]);
    expect(text.out).toMatch(/batch 7, 0ms behind/);
    expect(text.out).not.toMatch(/1970/);
  });
});
