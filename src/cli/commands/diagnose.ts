/**
 * `streamdoctor diagnose [FILE|-] [--format text|json] [--now ISO] [--retention DURATION]
 * [--cores N] [--trigger DURATION] [--repartition DURATION] [--fail-on warning|critical]`
 *
 * Reads the input (file or stdin, gzip or not: src/cli/read-input.ts) chunk by chunk through the progress reader
 * into the engine, so inputs larger than memory work. Malformed values are reported on stderr with
 * their line numbers and skipped; exit 2 only for bad flags, a terminal on stdin with no file, an
 * input that cannot be read, or when nothing in the input parses; exit 1 when `--fail-on` finds an
 * open incident that severe.
 *
 * The engine takes a query's reports in order and skips one older than what it has read. Input in
 * order (the usual case) streams through once. A query whose reports came out of order (an ORDER BY
 * timestamp DESC export, an unordered table read) is read again from the file, its reports alone,
 * sorted as Spark ran them (`sparkOrder`), into a fresh tracker: a regular file can be read twice,
 * while sorting every input up front would hold all of it in memory. Only a regular file unchanged
 * since it was read is read again (`/dev/stdin`, `<(…)` and `/dev/fd/N` are pipes, read once), and
 * a fresh tracker replaces the first read's only when it got every report the first read gave it.
 * Otherwise, as on stdin, the first read's trackers stand and their skips are told. Every report
 * the engine did not take as it came is told on stderr, one line per query and kind.
 */
import { createReadStream } from 'node:fs';
import { Diagnosis } from '../../diagnosis/engine.js';
import type { QueryTracker } from '../../diagnosis/query-tracker.js';
import { renderTextReport, shownText } from '../../diagnosis/text-report.js';
import type { DiagnoseOutput, Severity } from '../../diagnosis/types.js';
import { ProgressInputReader } from '../../progress/progress-input-reader.js';
import { sparkOrder } from '../../progress/spark-order.js';
import type { Progress } from '../../progress/types.js';
import { DurationError, parseDuration } from '../../util/duration.js';
import { parseCommandArgs, UsageError, wantsHelp } from '../command-args.js';
import { canReadAgain, InputReadError, isGzipFile, readFileText, readStreamText, type FileRead } from '../read-input.js';

export const USAGE = `usage: streamdoctor diagnose [FILE|-] [options]

Reads StreamingQueryProgress JSON (JSON Lines, a JSON array, pretty-printed objects, listener
events, pipeline event-log stream_progress events; plain or gzip) from FILE, or stdin when FILE is -
or absent.

options:
  --format text|json     report for people (default) or exactly one JSON document
  --now ISO-8601         time to judge stalls at, with Z or an offset (a date alone is midnight
                         UTC; default: the latest event time in the input)
  --retention DURATION   Kafka topic retention for data-loss forecasts (default 7d)
  --cores N              cluster cores, to judge partition counts
  --trigger DURATION     trigger interval when known (default: inferred)
  --repartition DURATION state repartition threshold (default 10m)
  --fail-on SEVERITY     exit 1 when an incident of this severity or worse (warning, critical)
                         is open at the end of the input
  -h, --help             this help
durations: 500ms, 90s, 10m, 2h, 7d
exit codes: 0 report printed, 1 --fail-on matched (or an unexpected error), 2 bad usage or no input
`;

export interface DiagnoseFlags {
  file: string | null;
  format: 'text' | 'json';
  nowMs?: number;
  retentionMs?: number;
  cores?: number;
  triggerMs?: number;
  repartitionThresholdMs?: number;
  failOn?: Severity;
}

export { UsageError };

const OPTIONS = {
  format: { type: 'string' },
  now: { type: 'string' },
  retention: { type: 'string' },
  cores: { type: 'string' },
  trigger: { type: 'string' },
  repartition: { type: 'string' },
  'fail-on': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Parses the command's flags; throws `UsageError` with a message that says what to write. */
export function parseDiagnoseFlags(argv: string[]): DiagnoseFlags | 'help' {
  if (wantsHelp(argv)) return 'help';
  // Positionals as parseArgs finds them (an option's value is none), so two inputs are named as given.
  const { values, positionals } = parseCommandArgs(argv, OPTIONS, Number.POSITIVE_INFINITY);
  if (positionals.length > 1) throw new UsageError(`one input only; got "${positionals[0]}" and "${positionals[1]}"`);
  const flags: DiagnoseFlags = { file: positionals[0] ?? null, format: 'text' };
  if (values.format !== undefined) {
    if (values.format !== 'text' && values.format !== 'json') throw new UsageError(`--format must be text or json, not "${values.format}"`);
    flags.format = values.format;
  }
  if (values.now !== undefined) flags.nowMs = readNow(values.now);
  if (values.retention !== undefined) flags.retentionMs = positiveDuration('--retention', values.retention);
  if (values.trigger !== undefined) flags.triggerMs = duration('--trigger', values.trigger);
  if (values.repartition !== undefined) flags.repartitionThresholdMs = positiveDuration('--repartition', values.repartition);
  if (values.cores !== undefined) {
    const cores = Number(values.cores);
    if (!/^\d+$/.test(values.cores) || !Number.isSafeInteger(cores) || cores < 1) {
      throw new UsageError(`--cores must be a whole number of cores (1 or more), not "${values.cores}"`);
    }
    flags.cores = cores;
  }
  const failOn = values['fail-on'];
  if (failOn !== undefined) {
    if (failOn !== 'warning' && failOn !== 'critical') throw new UsageError(`--fail-on must be warning or critical, not "${failOn}"`);
    flags.failOn = failOn;
  }
  return flags;
}

const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/i;

/**
 * `--now`: a date (midnight UTC) or a date-time with Z or an offset. `Date.parse` rolls 2026-02-30
 * over to March 2 and reads a date-time without an offset in the machine's time zone, so neither is taken.
 */
function readNow(text: string): number {
  const example = 'like 2026-09-14T10:15:00Z';
  const match = ISO_TIME.exec(text);
  if (!match) throw new UsageError(`--now must be an ISO-8601 time ${example}, not "${text}"`);
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => (part === undefined ? undefined : Number(part)));
  // A day that exists comes back unchanged from Date.UTC, which rolls the others over.
  const date = new Date(Date.UTC(year!, month! - 1, day!));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month! - 1 || date.getUTCDate() !== day) throw new UsageError(`--now names a day that does not exist ("${text}"); write a real date ${example}`);
  if (hour !== undefined && (hour > 23 || minute! > 59 || (second ?? 0) > 59)) {
    throw new UsageError(`--now names a time that does not exist ("${text}"); write hours 00-23, minutes and seconds 00-59, ${example}`);
  }
  if (hour !== undefined && match[7] === undefined) {
    throw new UsageError(`--now "${text}" has no time zone; add Z for UTC or an offset such as +02:00, ${example}`);
  }
  const ms = Date.parse(text.toUpperCase());
  if (!Number.isFinite(ms)) throw new UsageError(`--now must be an ISO-8601 time ${example}, not "${text}"`);
  return ms;
}

function duration(name: string, text: string): number {
  try {
    return parseDuration(text);
  } catch (error) {
    if (error instanceof DurationError) throw new UsageError(`${name}: ${error.message}`);
    throw error;
  }
}

function positiveDuration(name: string, text: string): number {
  const ms = duration(name, text);
  if (ms <= 0) throw new UsageError(`${name} must be longer than 0, not "${text}"`);
  return ms;
}

/** The CLI JSON contract: `DiagnoseOutput` without the in-process `metrics`. */
export function toContractJson(output: DiagnoseOutput): DiagnoseOutput {
  return {
    queries: output.queries.map((query) => ({
      id: query.id,
      name: query.name,
      health: query.health,
      incidents: query.incidents.map((incident) => ({
        kind: incident.kind,
        severity: incident.severity,
        openedAtBatchId: incident.openedAtBatchId,
        openedAt: incident.openedAt,
        resolvedAtBatchId: incident.resolvedAtBatchId,
        resolvedAt: incident.resolvedAt,
        summary: incident.summary,
        causes: incident.causes.map((cause) => ({
          code: cause.code,
          confidence: cause.confidence,
          evidence: cause.evidence,
        })),
        advice: incident.advice.map((advice) => ({
          text: advice.text,
          ...(advice.setting !== undefined ? { setting: advice.setting } : {}),
          ...(advice.value !== undefined ? { value: advice.value } : {}),
        })),
      })),
    })),
  };
}

export interface DiagnoseIo {
  stdin: NodeJS.ReadableStream;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

export async function run(
  argv: string[],
  io: DiagnoseIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  let flags: DiagnoseFlags | 'help';
  try {
    flags = parseDiagnoseFlags(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`streamdoctor diagnose: ${shownText(error.message)}\n\n${USAGE}`);
      return 2;
    }
    throw error;
  }
  if (flags === 'help') {
    io.stdout.write(USAGE);
    return 0;
  }
  const fromStdin = flags.file === null || flags.file === '-';
  if (flags.file === null && (io.stdin as { isTTY?: boolean }).isTTY) {
    // Waiting on a terminal for JSON nobody is going to type looks like a hang.
    io.stderr.write(`streamdoctor diagnose: give a file, or pipe progress JSON in (… | streamdoctor diagnose, or - to type it)\n\n${USAGE}`);
    return 2;
  }

  const diagnosis = new Diagnosis({
    nowMs: flags.nowMs,
    retentionMs: flags.retentionMs,
    cores: flags.cores,
    triggerMs: flags.triggerMs,
    repartitionThresholdMs: flags.repartitionThresholdMs,
  });
  let warnings = 0;
  // Reports read per query: a query read again must get as many.
  const taken = new Map<string, number>();
  const reader = new ProgressInputReader(
    (record) => {
      taken.set(record.progress.id, (taken.get(record.progress.id) ?? 0) + 1);
      diagnosis.add(record.progress);
    },
    (warning) => {
      warnings += 1;
      // Bounded: a wholly wrong input must not flood the terminal.
      if (warnings <= 50) io.stderr.write(`streamdoctor diagnose: ${shownText(warning)}\n`);
      else if (warnings === 51) io.stderr.write('streamdoctor diagnose: more warnings follow; not shown\n');
    },
  );
  const inputName = fromStdin ? 'stdin' : flags.file!;
  let read: FileRead | null = null;
  let compressed = false;
  const push = (text: string) => reader.push(text);
  const streamOptions = { onWarning: (warning: string) => io.stderr.write(`streamdoctor diagnose: ${shownText(`${inputName}: ${warning}`)}\n`) };
  try {
    if (fromStdin) await readStreamText(io.stdin, push, streamOptions);
    else if ((compressed = isGzipFile(flags.file!))) await readStreamText(createReadStream(flags.file!), push, streamOptions);
    else read = readFileText(flags.file!, push);
  } catch (error) {
    if (!(error instanceof InputReadError)) throw error;
    io.stderr.write(`streamdoctor diagnose: ${shownText(`cannot read ${inputName}: ${error.reason}`)}\n`);
    return 2;
  }
  reader.end();
  if (warnings > 50) io.stderr.write(`streamdoctor diagnose: ${warnings} warnings in all\n`);

  if (reader.records === 0) {
    io.stderr.write(
      `streamdoctor diagnose: no progress report could be read from ${shownText(inputName)}; expected StreamingQueryProgress JSON: one object per line (JSON Lines), a JSON array of them, pretty-printed objects, listener events {"progress": {...}} or pipeline event-log stream_progress events\n`,
    );
    return 2;
  }
  const again = read === null ? null : rereadOutOfOrder(diagnosis, flags.file!, read, taken);
  for (const tracker of diagnosis.trackers.values()) {
    const older = again?.reread.get(tracker.id);
    if (older !== undefined) {
      io.stderr.write(`streamdoctor diagnose: ${shownText(`${reportCount(older)} of ${queryLabel(tracker)} came before ones already read: all its reports were read again in run and batch order`)}\n`);
    }
    const notAgain = again ? (again.notAgain.get(tracker.id) ?? null) : compressed ? 'compressed' : 'stdin';
    for (const line of irregularLines(tracker, inputName, notAgain)) io.stderr.write(`streamdoctor diagnose: ${shownText(line)}\n`);
  }
  const output = diagnosis.finish();
  if (flags.format === 'json') io.stdout.write(`${JSON.stringify(toContractJson(output), null, 2)}\n`);
  else {
    const snapshots = new Map([...diagnosis.trackers].map(([id, tracker]) => [id, tracker.snapshot()]));
    io.stdout.write(renderTextReport(output, snapshots));
  }
  return flags.failOn && openAtLeast(output, flags.failOn) ? 1 : 0;
}

/** Why a query's skipped reports were not read again in order, when they were not. */
type NotReadAgain = 'stdin' | 'compressed' | 'not a regular file' | 'changed' | 'fewer reports';

/**
 * Reads the reports of every query whose tracker skipped older ones again from `file`, into a fresh
 * tracker in Spark's order (`sparkOrder`); only those queries' reports are held. Warnings were told
 * on the first read. Only a regular file that has not changed since the first read (`read`) is
 * read again, and a fresh tracker replaces the first read's only when it got at least the reports
 * the first read gave it (`taken`). Returns the queries read again, with the reports the first
 * read skipped, and why the others were not (their first read's trackers stand, skips told).
 */
function rereadOutOfOrder(
  diagnosis: Diagnosis,
  file: string,
  read: FileRead,
  taken: ReadonlyMap<string, number>,
): { reread: Map<string, number>; notAgain: Map<string, NotReadAgain> } {
  const reread = new Map<string, number>();
  const notAgain = new Map<string, NotReadAgain>();
  const reports = new Map<string, Progress[]>();
  for (const [id, tracker] of diagnosis.trackers) if (tracker.irregular.older > 0) reports.set(id, []);
  if (reports.size === 0) return { reread, notAgain };
  const none = (why: NotReadAgain) => ({ reread, notAgain: new Map([...reports.keys()].map((id) => [id, why])) });
  // A pipe, FIFO or device reads nothing (or something else) the second time.
  if (!canReadAgain(read)) return none('not a regular file');
  const reader = new ProgressInputReader(
    (record) => reports.get(record.progress.id)?.push(record.progress),
    () => {},
  );
  try {
    readFileText(file, (text) => reader.push(text), { sameAs: read });
  } catch (error) {
    if (error instanceof InputReadError) return none('changed');
    throw error;
  }
  reader.end();
  for (const [id, list] of reports) {
    // Never a tracker that saw less than the one it would replace.
    if (list.length < (taken.get(id) ?? 0)) {
      notAgain.set(id, 'fewer reports');
      continue;
    }
    reread.set(id, diagnosis.trackers.get(id)!.irregular.older);
    diagnosis.trackers.delete(id);
    for (const progress of sparkOrder(list)) diagnosis.add(progress);
  }
  return { reread, notAgain };
}

function reportCount(n: number): string {
  return n === 1 ? '1 report' : `${n} reports`;
}

function queryLabel(tracker: QueryTracker): string {
  return tracker.name ? `query "${tracker.name}" (${tracker.id})` : `query ${tracker.id}`;
}

/** Why older reports were not read again, for the line that tells them. */
function notAgainHint(inputName: string, notAgain: NotReadAgain | null): string {
  switch (notAgain) {
    case 'stdin':
      return ' (or give it as a file, which is read again in order)';
    case 'compressed':
      return ` (or give it uncompressed, which is read again in order: ${inputName} is gzip, read once)`;
    case 'not a regular file':
      return ` (or give it as a regular file, which is read again in order: ${inputName} is a pipe or device, read once)`;
    case 'changed':
      return ` (${inputName} changed since it was read, so it was not read again in order)`;
    case 'fewer reports':
      return ` (${inputName} read again had fewer of its reports, so the first read stands)`;
    default:
      return '';
  }
}

/** What the tracker did not take as it came: one line per kind, with its count. */
function irregularLines(tracker: QueryTracker, inputName: string, notAgain: NotReadAgain | null): string[] {
  const { older, duplicate, misdated } = tracker.irregular;
  const query = queryLabel(tracker);
  const reports = reportCount;
  const lines: string[] = [];
  if (older > 0) {
    lines.push(`${reports(older)} of ${query} came before ones already read and ${older === 1 ? 'was' : 'were'} skipped: sort the input by timestamp` + notAgainHint(inputName, notAgain));
  }
  if (duplicate > 0) lines.push(`${reports(duplicate)} of ${query} repeated one already read and ${duplicate === 1 ? 'was' : 'were'} skipped`);
  if (misdated > 0) {
    lines.push(
      `${reports(misdated)} of ${query} ${misdated === 1 ? 'was' : 'were'} dated out of line with ${misdated === 1 ? 'its batch' : 'their batches'} (after a later batch's time); counted, at the time the batches around ${misdated === 1 ? 'it allow' : 'them allow'}`,
    );
  }
  return lines;
}

const SEVERITY_RANK: Record<Severity, number> = { warning: 1, critical: 2 };

/** True when an incident of `severity` or worse is still open at the end of the input. */
export function openAtLeast(output: DiagnoseOutput, severity: Severity): boolean {
  return output.queries.some((query) =>
    query.incidents.some((incident) => incident.resolvedAt === null && SEVERITY_RANK[incident.severity] >= SEVERITY_RANK[severity]),
  );
}
