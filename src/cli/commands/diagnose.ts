/**
 * `streamdoctor diagnose [FILE|-] [--format text|json] [--now ISO] [--retention DURATION]
 * [--cores N] [--trigger DURATION] [--repartition DURATION]`
 *
 * Streams the input (file or stdin) through the progress reader into the engine, so inputs larger
 * than memory work. Malformed values are reported on stderr with their line numbers and skipped;
 * exit 2 only for bad flags or when nothing in the input parses.
 */
import { createReadStream } from 'node:fs';
import { Diagnosis } from '../../diagnosis/engine.js';
import { renderTextReport } from '../../diagnosis/text-report.js';
import type { DiagnoseOutput } from '../../diagnosis/types.js';
import { ProgressInputReader } from '../../progress/progress-input-reader.js';
import { DurationError, parseDuration } from '../../util/duration.js';

export const USAGE = `usage: streamdoctor diagnose [FILE|-] [options]

Reads StreamingQueryProgress JSON (JSON Lines, a JSON array, pretty-printed objects, listener
events, pipeline event-log stream_progress events) from FILE, or stdin when FILE is - or absent.

options:
  --format text|json     report for people (default) or exactly one JSON document
  --now ISO-8601         time to judge stalls at (default: the latest event time in the input)
  --retention DURATION   Kafka topic retention for data-loss forecasts (default 7d)
  --cores N              cluster cores, to judge partition counts
  --trigger DURATION     trigger interval when known (default: inferred)
  --repartition DURATION state repartition threshold (default 10m)
durations: 500ms, 90s, 10m, 2h, 7d
`;

export interface DiagnoseFlags {
  file: string | null;
  format: 'text' | 'json';
  nowMs?: number;
  retentionMs?: number;
  cores?: number;
  triggerMs?: number;
  repartitionThresholdMs?: number;
}

export class UsageError extends Error {
  readonly code = 'streamdoctor_usage';
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Parses the command's flags; throws `UsageError` with a message that says what to write. */
export function parseDiagnoseFlags(argv: string[]): DiagnoseFlags | 'help' {
  const flags: DiagnoseFlags = { file: null, format: 'text' };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') return 'help';
    if (arg === '-' || !arg.startsWith('-')) {
      if (flags.file !== null) throw new UsageError(`one input only; got "${flags.file}" and "${arg}"`);
      flags.file = arg;
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const value = (): string => {
      if (eq !== -1) return arg.slice(eq + 1);
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith('--') && next.length > 2)) {
        throw new UsageError(`${name} needs a value`);
      }
      i += 1;
      return next;
    };
    switch (name) {
      case '--format': {
        const format = value();
        if (format !== 'text' && format !== 'json') {
          throw new UsageError(`--format must be text or json, not "${format}"`);
        }
        flags.format = format;
        break;
      }
      case '--now': {
        const text = value();
        const ms = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
        if (!Number.isFinite(ms)) {
          throw new UsageError(`--now must be an ISO-8601 time like 2026-09-14T10:15:00Z, not "${text}"`);
        }
        flags.nowMs = ms;
        break;
      }
      case '--retention':
        flags.retentionMs = positiveDuration(name, value());
        break;
      case '--trigger':
        flags.triggerMs = duration(name, value());
        break;
      case '--repartition':
        flags.repartitionThresholdMs = positiveDuration(name, value());
        break;
      case '--cores': {
        const text = value();
        const cores = Number(text);
        if (!/^\d+$/.test(text) || !Number.isSafeInteger(cores) || cores < 1) {
          throw new UsageError(`--cores must be a whole number of cores (1 or more), not "${text}"`);
        }
        flags.cores = cores;
        break;
      }
      default:
        throw new UsageError(`unknown option "${name}"`);
    }
  }
  return flags;
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
      io.stderr.write(`streamdoctor diagnose: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    throw error;
  }
  if (flags === 'help') {
    io.stdout.write(USAGE);
    return 0;
  }

  const diagnosis = new Diagnosis({
    nowMs: flags.nowMs,
    retentionMs: flags.retentionMs,
    cores: flags.cores,
    triggerMs: flags.triggerMs,
    repartitionThresholdMs: flags.repartitionThresholdMs,
  });
  let warnings = 0;
  const reader = new ProgressInputReader(
    (record) => diagnosis.add(record.progress),
    (warning) => {
      warnings += 1;
      // Bounded: a wholly wrong input must not flood the terminal.
      if (warnings <= 50) io.stderr.write(`streamdoctor diagnose: ${warning}\n`);
      else if (warnings === 51) io.stderr.write('streamdoctor diagnose: more warnings follow; not shown\n');
    },
  );
  const inputName = flags.file === null || flags.file === '-' ? 'stdin' : flags.file;
  const stream =
    flags.file === null || flags.file === '-' ? io.stdin : createReadStream(flags.file, { encoding: 'utf8' });
  try {
    for await (const chunk of stream) {
      reader.push(typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8'));
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'permission denied' : (error as Error).message;
    io.stderr.write(`streamdoctor diagnose: cannot read ${inputName}: ${reason}\n`);
    return 2;
  }
  reader.end();
  if (warnings > 50) io.stderr.write(`streamdoctor diagnose: ${warnings} warnings in all\n`);

  if (reader.records === 0) {
    io.stderr.write(
      `streamdoctor diagnose: no progress report could be read from ${inputName}; expected StreamingQueryProgress JSON: one object per line (JSON Lines), a JSON array of them, pretty-printed objects, listener events {"progress": {...}} or pipeline event-log stream_progress events\n`,
    );
    return 2;
  }
  const output = diagnosis.finish();
  if (flags.format === 'json') io.stdout.write(`${JSON.stringify(toContractJson(output), null, 2)}\n`);
  else {
    const snapshots = new Map([...diagnosis.trackers].map(([id, tracker]) => [id, tracker.snapshot()]));
    io.stdout.write(renderTextReport(output, snapshots));
  }
  return 0;
}
