/**
 * `streamdoctor diagnose` on reports out of order: a regular file is read again per query in Spark's
 * order (a DESC export loses nothing), stdin's and a pipe's skips are told with their counts and
 * their first read stands, duplicates and misdated reports are told, and a misdated report is not "now".
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { diagnose } from './run-diagnose.js';
import { sparkOrder } from '../../src/progress/spark-order.js';
import { parseProgress } from '../../src/progress/parse-progress.js';
import type { Progress } from '../../src/progress/types.js';
import { DEFAULT_START_MS, StreamSimulator, steppedRate } from '../../src/simulator/index.js';

const MIN = 60_000;
const root = new URL('../../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'streamdoctor-order-'));

/** Runs `command` with bash (the file as $0) from the repository root: the built command, its exit code and streams. */
async function shell(command: string, path: string): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('bash', ['-c', command, path], { cwd: root });
    return { code: 0, out: stdout, err: stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, out: failed.stdout ?? '', err: failed.stderr ?? '' };
  }
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function file(name: string, lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** Two Kafka queries over the same 30 minutes as a progress table holds them, in time order: one falls behind, one keeps up. */
function tableLines(): string[] {
  const query = (id: string, name: string, overloaded: boolean, seed: number) => {
    const sim = new StreamSimulator(
      {
        id,
        name,
        arrival: steppedRate(12_000, [{ atMs: DEFAULT_START_MS + 10 * MIN, rowsPerSec: overloaded ? 22_000 : 12_000 }]),
        processing: { rowsPerSecPerCore: 2_500, cores: 8, overheadMs: 1_200 },
        triggerMs: 10_000,
        source: { kind: 'kafka', partitions: 16 },
      },
      { seed },
    );
    const batches: { at: number; json: string }[] = [];
    for (let batch = sim.next(); batch.endMs <= DEFAULT_START_MS + 30 * MIN; batch = sim.next()) batches.push({ at: batch.endMs, json: batch.json });
    return batches;
  };
  return [...query('0a0a0a0a-0000-4000-8000-000000000001', 'orders', true, 2), ...query('0b0b0b0b-0000-4000-8000-000000000002', 'clicks', false, 3)]
    .sort((a, b) => a.at - b.at)
    .map((line) => line.json);
}

const lines = tableLines();
const inOrder = file('in-order.jsonl', lines);
/** Reports of a query the engine skips in a DESC export: all but the newest. */
const olderIn = (name: string) => lines.filter((line) => line.includes(`"name":"${name}"`)).length - 1;

describe('diagnose on reports out of order', () => {
  it('reads a DESC export as it reads the same reports in order, and says it read them again', async () => {
    const expected = await diagnose([inOrder, '--format', 'json']);
    expect(expected.err).toBe('');
    expect(expected.out).toContain('"kind": "lag"');
    const reversed = await diagnose([file('desc.jsonl', [...lines].reverse()), '--format', 'json']);
    expect(reversed.out).toBe(expected.out);
    expect(reversed.err.trim().split('\n').sort()).toEqual([
      `streamdoctor diagnose: ${olderIn('clicks')} reports of query "clicks" (0b0b0b0b-0000-4000-8000-000000000002) came before ones already read: all its reports were read again in run and batch order`,
      `streamdoctor diagnose: ${olderIn('orders')} reports of query "orders" (0a0a0a0a-0000-4000-8000-000000000001) came before ones already read: all its reports were read again in run and batch order`,
    ]);
  });

  it('on stdin, which it cannot read twice, tells the skipped reports per query with their count', async () => {
    const { err } = await diagnose(['-', '--format', 'json'], `${[...lines].reverse().join('\n')}\n`);
    expect(err).toContain(
      `streamdoctor diagnose: ${olderIn('orders')} reports of query "orders" (0a0a0a0a-0000-4000-8000-000000000001) came before ones already read and were skipped: sort the input by timestamp (or give it as a file, which is read again in order)\n`,
    );
    expect(err.match(/were skipped/g)).toHaveLength(2);
  });

  it('reads a pipe named as a file (/dev/stdin, <(…)) once: its first read stands, its skips are told, --fail-on still fails', async () => {
    // One report of the falling-behind query moved to the end: skipped on the first read.
    const index = lines.findIndex((line) => line.includes('"batchId":60,') && line.includes('"name":"orders"'));
    const late = [...lines.slice(0, index), ...lines.slice(index + 1), lines[index]!];
    const moved = file('one-late.jsonl', late);
    const stdin = await diagnose(['-', '--format', 'json', '--fail-on', 'warning'], `${late.join('\n')}\n`);
    expect(stdin.code).toBe(1);
    const skipped = 'streamdoctor diagnose: 1 report of query "orders" (0a0a0a0a-0000-4000-8000-000000000001) came before ones already read and was skipped: sort the input by timestamp';
    for (const command of ['cat "$0" | node bin/streamdoctor.mjs diagnose /dev/stdin --format json --fail-on warning', 'node bin/streamdoctor.mjs diagnose <(cat "$0") --format json --fail-on warning']) {
      const result = await shell(command, moved);
      expect(result.code, command).toBe(1);
      expect(result.out, command).toBe(stdin.out);
      expect(result.err, command).toMatch(new RegExp(`^${escape(skipped)} \\(or give it as a regular file, which is read again in order: \\S+ is a pipe or device, read once\\)\n$`));
    }
    // The same file named (or redirected to /dev/stdin) is a regular file: read again, as in order.
    const expected = await diagnose([inOrder, '--format', 'json', '--fail-on', 'warning']);
    const redirected = await shell('node bin/streamdoctor.mjs diagnose /dev/stdin --format json --fail-on warning < "$0"', moved);
    expect(redirected.out).toBe(expected.out);
    expect(redirected.err).toBe('streamdoctor diagnose: 1 report of query "orders" (0a0a0a0a-0000-4000-8000-000000000001) came before ones already read: all its reports were read again in run and batch order\n');
  });

  it('tells reports repeated, and reads the rest as without them', async () => {
    const expected = await diagnose([inOrder, '--format', 'json']);
    const doubled = lines.flatMap((line, i) => (i % 10 === 0 ? [line, line] : [line]));
    const { out, err } = await diagnose([file('dup.jsonl', doubled), '--format', 'json']);
    expect(out).toBe(expected.out);
    expect(err).toContain('reports of query "orders" (0a0a0a0a-0000-4000-8000-000000000001) repeated one already read and were skipped\n');
    expect(err.match(/repeated one already read/g)).toHaveLength(2);
  });

  it('a report dated 2099 in the middle: the batches after it count, it is told, and 2099 is not "now"', async () => {
    const expected = await diagnose([inOrder, '--format', 'json']);
    const index = lines.findIndex((line) => line.includes('"batchId":60,') && line.includes('orders'));
    expect(index).toBeGreaterThan(0);
    const future = lines.map((line, i) => (i === index ? line.replace(/"timestamp":"[^"]+"/, '"timestamp":"2099-01-01T00:00:00.000Z"') : line));
    const { out, err } = await diagnose([file('future.jsonl', future), '--format', 'json']);
    expect(out).toBe(expected.out);
    expect(out).not.toContain('stalled');
    expect(err).toBe(
      'streamdoctor diagnose: 1 report of query "orders" (0a0a0a0a-0000-4000-8000-000000000001) was dated out of line with its batch (after a later batch\'s time); counted, at the time the batches around it allow\n',
    );
  });
});

describe('sparkOrder', () => {
  const reports = (): Progress[] =>
    lines.slice(0, 60).map((line) => {
      const parsed = parseProgress(JSON.parse(line));
      if (!parsed.ok) throw new Error(parsed.error);
      return parsed.progress;
    }).filter((p) => p.name === 'orders');

  it('puts runs by their first trigger time and batches by batchId, whatever a timestamp says', () => {
    const ordered = reports();
    const restarted = ordered.map((p, i) => (i >= 15 ? { ...p, runId: 'a-later-run' } : p));
    restarted[5] = { ...restarted[5]!, timestampMs: restarted[5]!.timestampMs + 86_400_000 };
    const shuffled = [...restarted].sort((a, b) => ((a.batchId! * 7919) % 31) - ((b.batchId! * 7919) % 31));
    expect(sparkOrder(shuffled)).toEqual(restarted);
  });

  it('orders a run without batch ids (Spark 2.1/2.2) by time', () => {
    const ordered = reports().map((p) => ({ ...p, batchId: null }));
    expect(sparkOrder([...ordered].reverse())).toEqual(ordered);
  });
});
