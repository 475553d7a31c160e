/**
 * Checks a `StreamSpec` before a simulator runs it, so a bad spec from the demo or the local
 * Databricks fails at once with every problem named by its path, instead of printing nonsense later.
 */

import { StreamDoctorError } from '../util/errors.js';
import type { StreamSpec } from './spec.js';

export class SimulatorSpecError extends StreamDoctorError {
  constructor(readonly problems: string[]) {
    super('streamdoctor_simulator_invalid_spec', `invalid stream spec: ${problems.join('; ')}`);
  }
}

/** Raised when a run leaves the range of representable timestamps (a runaway overload simulated too long). */
export class SimulatorTimeError extends StreamDoctorError {
  constructor(readonly timeMs: number) {
    super(
      'streamdoctor_simulator_time_overflow',
      `simulated time reached ${timeMs} ms, past the year 9999: the stream falls behind geometrically; simulate fewer batches or a milder overload`,
      { fix: 'simulate fewer batches or a milder overload' },
    );
  }
}

const isNonNegative = (x: unknown): boolean => typeof x === 'number' && Number.isFinite(x) && x >= 0;
const isPositive = (x: unknown): boolean => typeof x === 'number' && Number.isFinite(x) && x > 0;

function check(problems: string[], ok: boolean, path: string, want: string, value: unknown): void {
  if (!ok) problems.push(`${path} must be ${want} (got ${JSON.stringify(value) ?? String(value)})`);
}

/** Throws `SimulatorSpecError` listing every problem; returns the spec when it is usable. */
export function validateSpec(spec: StreamSpec): StreamSpec {
  const problems: string[] = [];
  if (typeof spec !== 'object' || spec === null) throw new SimulatorSpecError(['the spec must be an object']);
  check(problems, isNonNegative(spec.arrival) || typeof spec.arrival === 'function', 'arrival', 'rows/s ≥ 0 or a function of time', spec.arrival);
  if (spec.arrivalNoise !== undefined) check(problems, isNonNegative(spec.arrivalNoise), 'arrivalNoise', 'a number ≥ 0', spec.arrivalNoise);
  const p = spec.processing as StreamSpec['processing'] | undefined;
  if (typeof p !== 'object' || p === null) problems.push('processing must be an object with rowsPerSecPerCore');
  else {
    check(problems, isPositive(p.rowsPerSecPerCore), 'processing.rowsPerSecPerCore', 'a number > 0', p.rowsPerSecPerCore);
    if (p.cores !== undefined) check(problems, Number.isInteger(p.cores) && p.cores > 0, 'processing.cores', 'an integer > 0', p.cores);
    if (p.overheadMs !== undefined) check(problems, isNonNegative(p.overheadMs), 'processing.overheadMs', 'a number ≥ 0', p.overheadMs);
    if (p.shufflePartitions !== undefined) {
      check(problems, Number.isInteger(p.shufflePartitions) && p.shufflePartitions > 0, 'processing.shufflePartitions', 'an integer > 0', p.shufflePartitions);
    }
  }
  if (spec.noDataProgressEventIntervalMs !== undefined) {
    check(problems, isNonNegative(spec.noDataProgressEventIntervalMs), 'noDataProgressEventIntervalMs', 'ms ≥ 0', spec.noDataProgressEventIntervalMs);
  }
  if (spec.triggerMs !== undefined) check(problems, isNonNegative(spec.triggerMs), 'triggerMs', 'ms ≥ 0 (0 = back-to-back)', spec.triggerMs);
  const source = spec.source as StreamSpec['source'] | undefined;
  if (typeof source !== 'object' || source === null) problems.push('source must be an object with a kind');
  else if (source.kind === 'kafka') {
    if (source.partitions !== undefined) {
      check(problems, Number.isInteger(source.partitions) && source.partitions > 0, 'source.partitions', 'an integer > 0', source.partitions);
    }
    if (source.maxOffsetsPerTrigger !== undefined && source.maxOffsetsPerTrigger !== null) {
      check(problems, isPositive(source.maxOffsetsPerTrigger), 'source.maxOffsetsPerTrigger', 'a number > 0 or null', source.maxOffsetsPerTrigger);
    }
  } else if (source.kind === 'delta' || source.kind === 'autoloader') {
    if (source.rowsPerFile !== undefined) check(problems, isPositive(source.rowsPerFile), 'source.rowsPerFile', 'a number > 0', source.rowsPerFile);
    if (source.rowsPerFileSpread !== undefined) {
      const spread = source.rowsPerFileSpread;
      check(problems, Number.isFinite(spread) && spread >= 0 && spread <= 0.9, 'source.rowsPerFileSpread', 'a number from 0 to 0.9', spread);
    }
    if (source.maxFilesPerTrigger !== undefined && source.maxFilesPerTrigger !== null) {
      check(problems, isPositive(source.maxFilesPerTrigger), 'source.maxFilesPerTrigger', 'a number > 0 or null', source.maxFilesPerTrigger);
    }
  } else if (source.kind === 'kinesis') {
    if (source.shards !== undefined) check(problems, Number.isInteger(source.shards) && source.shards > 0, 'source.shards', 'an integer > 0', source.shards);
  } else if (source.kind === 'rate') {
    check(problems, isPositive(source.rowsPerSecond), 'source.rowsPerSecond', 'a number > 0', source.rowsPerSecond);
  } else {
    problems.push(`source.kind must be kafka, delta, autoloader, kinesis or rate (got ${JSON.stringify((source as { kind?: unknown }).kind)})`);
  }
  (spec.extraSources ?? []).forEach((extra, i) => {
    check(problems, isNonNegative(extra.arrival) || typeof extra.arrival === 'function', `extraSources[${i}].arrival`, 'rows/s ≥ 0 or a function of time', extra.arrival);
    const kind = (extra.source as { kind?: unknown } | undefined)?.kind;
    check(problems, kind === 'kafka' || kind === 'delta' || kind === 'autoloader', `extraSources[${i}].source.kind`, 'kafka, delta or autoloader', kind);
  });
  if (spec.state?.watermarkMs !== undefined && spec.state.watermarkMs !== null) {
    check(problems, isPositive(spec.state.watermarkMs), 'state.watermarkMs', 'ms > 0 or null', spec.state.watermarkMs);
  }
  if (spec.sink?.writeRowsPerSec !== undefined) check(problems, isPositive(spec.sink.writeRowsPerSec), 'sink.writeRowsPerSec', 'a number > 0', spec.sink.writeRowsPerSec);
  if (spec.platform !== undefined) {
    check(problems, ['dbr-17.1', 'dbr-17.0', 'spark-3.5', 'spark-4.0', 'spark-3.0'].includes(spec.platform), 'platform', 'dbr-17.1, dbr-17.0, spark-3.5, spark-4.0 or spark-3.0', spec.platform);
  }
  (spec.events ?? []).forEach((event, i) => {
    check(problems, Number.isInteger(event.atBatch) && event.atBatch >= 0, `events[${i}].atBatch`, 'an integer ≥ 0', event.atBatch);
    if (event.type === 'change' && event.atMs !== undefined) check(problems, isNonNegative(event.atMs), `events[${i}].atMs`, 'epoch ms ≥ 0', event.atMs);
    if (event.type === 'restart') check(problems, isNonNegative(event.downtimeMs), `events[${i}].downtimeMs`, 'ms ≥ 0', event.downtimeMs);
    if (event.type === 'stall') check(problems, isNonNegative(event.durationMs), `events[${i}].durationMs`, 'ms ≥ 0', event.durationMs);
    if (event.type === 'gc') check(problems, isNonNegative(event.pauseMs), `events[${i}].pauseMs`, 'ms ≥ 0', event.pauseMs);
  });
  if (problems.length > 0) throw new SimulatorSpecError(problems);
  return spec;
}
