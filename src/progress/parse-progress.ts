/**
 * Turns any published shape of a `StreamingQueryProgress` into `Progress`: the object itself, a
 * listener event `{"progress": {...}}`, or a Lakeflow pipeline event-log `stream_progress` event
 * (progress under `details.stream_progress.progress`, or a JSON string under `progress_json`;
 * `details` itself may be a JSON string when read from the event-log table).
 *
 * Tolerant by design, because every Spark version and publisher prints a different subset: absent
 * `batchDuration`, absent or string rates, absent maps, string metrics, null offsets, no `batchId`
 * (Spark 2.1/2.2), no top-level row counts (event log, Spark Connect), no `timestamp` (trimmed
 * examples). Hand-written rather than a zod schema: it runs once per event on the hot path.
 */
import { sourceKind } from './source-kind.js';
import type { Progress, RawProgress, SourceProgress, StateOperatorProgress } from './types.js';
import {
  durationMap,
  finiteNumber,
  isRecord,
  MAX_BEHIND_MS,
  MAX_TIMESTAMP_MS,
  metricMap,
  MIN_TIMESTAMP_MS,
  numberMap,
  numberOr,
  offsetValue,
  plausibleDurationMs,
  stringOrNull,
  timestampMs,
} from './values.js';

export type ParseProgressResult =
  | { ok: true; progress: Progress; warnings: string[] }
  | { ok: false; error: string };

const EXPECTED =
  'expected a StreamingQueryProgress object (with "id", "runId", "timestamp", "sources"), a listener event {"progress": {...}} or a pipeline event-log stream_progress event';

export function parseProgress(raw: unknown): ParseProgressResult {
  const unwrapped = unwrap(raw);
  if (typeof unwrapped === 'string') return { ok: false, error: unwrapped };
  return normalize(unwrapped);
}

/** Finds the progress object inside the known envelopes; a string is an error message. */
function unwrap(raw: unknown): RawProgress | string {
  if (!isRecord(raw)) {
    const what = Array.isArray(raw) ? 'an array' : raw === null ? 'null' : `a ${typeof raw}`;
    return `got ${what}; ${EXPECTED}`;
  }
  // Listener event (onQueryProgress).
  if (isRecord(raw.progress) && raw.id === undefined) return raw.progress;
  // Pipeline event-log event.
  if (raw.event_type !== undefined || raw.details !== undefined) {
    if (raw.event_type !== undefined && raw.event_type !== 'stream_progress') {
      return `pipeline event-log event of type "${String(raw.event_type)}" carries no stream progress; ${EXPECTED}`;
    }
    let details: unknown = raw.details;
    if (typeof details === 'string') {
      try {
        details = JSON.parse(details) as unknown;
      } catch {
        return 'pipeline event-log event whose "details" is not valid JSON';
      }
    }
    const streamProgress = isRecord(details) ? details.stream_progress : undefined;
    if (!isRecord(streamProgress)) {
      return `pipeline event-log event without details.stream_progress; ${EXPECTED}`;
    }
    if (isRecord(streamProgress.progress)) return streamProgress.progress;
    const json = streamProgress.progress_json ?? streamProgress.progress;
    if (typeof json === 'string') {
      try {
        const parsed = JSON.parse(json) as unknown;
        if (isRecord(parsed)) return parsed;
      } catch {
        return 'pipeline event-log event whose stream_progress.progress_json is not valid JSON';
      }
    }
    return `pipeline event-log event without stream_progress.progress or progress_json; ${EXPECTED}`;
  }
  return raw;
}

function normalize(raw: RawProgress): ParseProgressResult {
  const id = raw.id;
  if (typeof id !== 'string' || id.length === 0) {
    if (raw.runId !== undefined && raw.exception !== undefined) {
      return { ok: false, error: 'a query-terminated listener event, not a progress report' };
    }
    return { ok: false, error: `no "id" string; ${EXPECTED}` };
  }
  const hasShape =
    raw.sources !== undefined ||
    raw.stateOperators !== undefined ||
    raw.durationMs !== undefined ||
    raw.batchId !== undefined ||
    raw.numInputRows !== undefined;
  if (!hasShape) {
    return {
      ok: false,
      error: `object with "id" ${JSON.stringify(id)} has none of "sources", "stateOperators", "durationMs", "batchId", "numInputRows" (a query-started or idle event?); ${EXPECTED}`,
    };
  }
  const warnings: string[] = [];
  // Absurd times (a negative or month-long duration, a date past 2200) are read as missing: as
  // time they would move the query's clock and its time behind by as much (values.ts says the bounds).
  // `bad` collects them ("field" value) for one warning per report.
  const bad: string[] = [];
  const durationMs = durationMap(raw.durationMs, bad);
  const sources = Array.isArray(raw.sources) ? raw.sources.map((source) => normalizeSource(source, warnings)) : [];
  const stateOperators = Array.isArray(raw.stateOperators)
    ? raw.stateOperators.map((op, i) => normalizeStateOperator(op, i, bad))
    : [];

  let ts = timestampMs(raw.timestamp);
  let timestampMissing: true | undefined;
  if (ts === null || ts < MIN_TIMESTAMP_MS || ts >= MAX_TIMESTAMP_MS) {
    warnings.push(
      raw.timestamp === undefined
        ? 'no "timestamp"; placed after the previous report'
        : ts === null
          ? `unreadable "timestamp" ${JSON.stringify(raw.timestamp)}; placed after the previous report`
          : `implausible "timestamp" ${JSON.stringify(raw.timestamp)} (not between 2000 and 2200); placed after the previous report`,
    );
    ts = 0;
    timestampMissing = true;
  }

  const batchDurationMs =
    plausibleDuration(raw.batchDuration, 'batchDuration', bad) ??
    finiteNumber(durationMs.triggerExecution) ??
    finiteNumber(durationMs.total) ??
    0;
  if (bad.length > 0) warnings.push(`implausible durations (a duration is 0 to 30 days) read as missing: ${bad.join(', ')}`);

  let numInputRows = plausibleCount(raw.numInputRows, 'numInputRows', warnings);
  if (numInputRows === null) {
    numInputRows = 0;
    for (const source of sources) numInputRows += source.numInputRows;
  }

  const sink = isRecord(raw.sink) ? raw.sink : {};
  const sinkRows = finiteNumber(sink.numOutputRows);

  const progress: Progress = {
    id,
    runId: typeof raw.runId === 'string' ? raw.runId : '',
    name: typeof raw.name === 'string' ? raw.name : null,
    timestampMs: ts,
    timestamp: typeof raw.timestamp === 'string' && !timestampMissing ? raw.timestamp : '',
    batchId: batchIdOf(raw.batchId, warnings),
    batchDurationMs,
    numInputRows,
    inputRowsPerSecond: rate(raw.inputRowsPerSecond, sources, 'inputRowsPerSecond', warnings),
    processedRowsPerSecond: rate(raw.processedRowsPerSecond, sources, 'processedRowsPerSecond', warnings),
    durationMs,
    eventTime: eventTime(raw.eventTime),
    stateOperators,
    sources,
    sink: {
      description: typeof sink.description === 'string' ? sink.description : '',
      numOutputRows: sinkRows === null || sinkRows < 0 ? null : sinkRows,
    },
  };
  if (timestampMissing) progress.timestampMissing = true;
  return { ok: true, progress, warnings };
}

/** A duration the report measured, or null: absent, or implausible (then `"field" value` is added to `bad`). */
function plausibleDuration(value: unknown, field: string, bad: string[]): number | null {
  const ms = finiteNumber(value);
  if (ms === null || plausibleDurationMs(ms)) return ms;
  bad.push(`"${field}" ${JSON.stringify(value)}`);
  return null;
}

/** Most rows a batch may read, or rows a second: past it a count is garbage (1e308 rows made NaN advice). */
const MAX_COUNT = 1e15;

/** A row count or rate the report gave, or null: absent, or negative or past MAX_COUNT (then a warning says so). */
function plausibleCount(value: unknown, field: string, warnings: string[]): number | null {
  const count = finiteNumber(value);
  if (count === null || (count >= 0 && count <= MAX_COUNT)) return count;
  warnings.push(`implausible "${field}" ${JSON.stringify(value)} (0 to 10^15); read as missing`);
  return null;
}

/**
 * The batch id, or null when the report has none (Spark 2.1/2.2) or one no batch can have: Spark
 * numbers batches 0, 1, 2, … in a long, so a negative or a number past 2^53 is garbage, which the
 * tracker would take for a batch's order and the alert would print (then a warning says so).
 */
function batchIdOf(value: unknown, warnings: string[]): number | null {
  const parsed = finiteNumber(value);
  const id = parsed === null ? null : Math.trunc(parsed);
  if (id !== null && id >= 0 && Number.isSafeInteger(id)) return id;
  if (value !== undefined && value !== null) warnings.push(`implausible "batchId" ${JSON.stringify(value)} (a batch id is a whole number from 0); read as missing`);
  return null;
}

/** A top-level rate, else the sum over sources when every source reports it (event log, Connect). */
function rate(
  value: unknown,
  sources: SourceProgress[],
  key: 'inputRowsPerSecond' | 'processedRowsPerSecond',
  warnings: string[],
): number | null {
  const direct = plausibleCount(value, key, warnings);
  if (direct !== null || value !== undefined || sources.length === 0) return direct;
  let sum = 0;
  for (const source of sources) {
    const item = source[key];
    if (item === null) return null;
    sum += item;
  }
  return sum;
}

function eventTime(value: unknown): Progress['eventTime'] {
  const out: Progress['eventTime'] = {};
  if (!isRecord(value)) return out;
  if (typeof value.min === 'string') out.min = value.min;
  if (typeof value.max === 'string') out.max = value.max;
  if (typeof value.avg === 'string') out.avg = value.avg;
  if (typeof value.watermark === 'string') out.watermark = value.watermark;
  return out;
}

/** Kinesis' time-behind metrics: ages, read as time behind. */
const BEHIND_METRICS = ['maxMsBehindLatest', 'avgMsBehindLatest', 'minMsBehindLatest'];

function normalizeSource(value: unknown, warnings: string[]): SourceProgress {
  const raw = isRecord(value) ? value : {};
  const description = typeof raw.description === 'string' ? raw.description : '';
  const kind = sourceKind(description);
  const metrics = metricMap(raw.metrics);
  for (let i = 0; kind === 'kinesis' && i < BEHIND_METRICS.length; i += 1) {
    const key = BEHIND_METRICS[i]!;
    const ms = metrics[key];
    if (typeof ms !== 'number' || (ms >= 0 && ms <= MAX_BEHIND_MS)) continue;
    warnings.push(`implausible source metric "${key}" ${JSON.stringify(ms)} (0 to 366 days); read as missing`);
    delete metrics[key];
  }
  return {
    description,
    kind,
    numInputRows: plausibleCount(raw.numInputRows, 'sources[].numInputRows', warnings) ?? 0,
    inputRowsPerSecond: plausibleCount(raw.inputRowsPerSecond, 'sources[].inputRowsPerSecond', warnings),
    processedRowsPerSecond: plausibleCount(raw.processedRowsPerSecond, 'sources[].processedRowsPerSecond', warnings),
    startOffset: offsetValue(raw.startOffset),
    endOffset: offsetValue(raw.endOffset),
    latestOffset: offsetValue(raw.latestOffset),
    metrics,
  };
}

function normalizeStateOperator(value: unknown, index: number, bad: string[]): StateOperatorProgress {
  const raw = isRecord(value) ? value : {};
  return {
    operatorName: stringOrNull(raw.operatorName),
    numRowsTotal: numberOr(raw.numRowsTotal, 0),
    numRowsUpdated: numberOr(raw.numRowsUpdated, 0),
    numRowsRemoved: numberOr(raw.numRowsRemoved, 0),
    commitTimeMs: plausibleDuration(raw.commitTimeMs, `stateOperators[${index}].commitTimeMs`, bad) ?? 0,
    memoryUsedBytes: numberOr(raw.memoryUsedBytes, 0),
    numRowsDroppedByWatermark: numberOr(raw.numRowsDroppedByWatermark, 0),
    numShufflePartitions: finiteNumber(raw.numShufflePartitions),
    numStateStoreInstances: finiteNumber(raw.numStateStoreInstances),
    customMetrics: numberMap(raw.customMetrics),
  };
}
