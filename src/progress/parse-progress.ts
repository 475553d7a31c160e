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
  finiteNumber,
  isRecord,
  metricMap,
  numberMap,
  numberOr,
  offsetValue,
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
  const durationMs = numberMap(raw.durationMs);
  const sources = Array.isArray(raw.sources) ? raw.sources.map(normalizeSource) : [];
  const stateOperators = Array.isArray(raw.stateOperators)
    ? raw.stateOperators.map(normalizeStateOperator)
    : [];

  let ts = timestampMs(raw.timestamp);
  let timestampMissing: true | undefined;
  if (ts === null) {
    warnings.push(
      raw.timestamp === undefined
        ? 'no "timestamp"; placed after the previous report'
        : `unreadable "timestamp" ${JSON.stringify(raw.timestamp)}; placed after the previous report`,
    );
    ts = 0;
    timestampMissing = true;
  }

  const batchDurationMs =
    finiteNumber(raw.batchDuration) ??
    finiteNumber(durationMs.triggerExecution) ??
    finiteNumber(durationMs.total) ??
    0;

  let numInputRows = finiteNumber(raw.numInputRows);
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
    batchId: integerOrNull(raw.batchId),
    batchDurationMs,
    numInputRows,
    inputRowsPerSecond: rate(raw.inputRowsPerSecond, sources, 'inputRowsPerSecond'),
    processedRowsPerSecond: rate(raw.processedRowsPerSecond, sources, 'processedRowsPerSecond'),
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

function integerOrNull(value: unknown): number | null {
  const parsed = finiteNumber(value);
  return parsed === null ? null : Math.trunc(parsed);
}

/** A top-level rate, else the sum over sources when every source reports it (event log, Connect). */
function rate(
  value: unknown,
  sources: SourceProgress[],
  key: 'inputRowsPerSecond' | 'processedRowsPerSecond',
): number | null {
  const direct = finiteNumber(value);
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

function normalizeSource(value: unknown): SourceProgress {
  const raw = isRecord(value) ? value : {};
  const description = typeof raw.description === 'string' ? raw.description : '';
  return {
    description,
    kind: sourceKind(description),
    numInputRows: numberOr(raw.numInputRows, 0),
    inputRowsPerSecond: finiteNumber(raw.inputRowsPerSecond),
    processedRowsPerSecond: finiteNumber(raw.processedRowsPerSecond),
    startOffset: offsetValue(raw.startOffset),
    endOffset: offsetValue(raw.endOffset),
    latestOffset: offsetValue(raw.latestOffset),
    metrics: metricMap(raw.metrics),
  };
}

function normalizeStateOperator(value: unknown): StateOperatorProgress {
  const raw = isRecord(value) ? value : {};
  return {
    operatorName: stringOrNull(raw.operatorName),
    numRowsTotal: numberOr(raw.numRowsTotal, 0),
    numRowsUpdated: numberOr(raw.numRowsUpdated, 0),
    numRowsRemoved: numberOr(raw.numRowsRemoved, 0),
    commitTimeMs: numberOr(raw.commitTimeMs, 0),
    memoryUsedBytes: numberOr(raw.memoryUsedBytes, 0),
    numRowsDroppedByWatermark: numberOr(raw.numRowsDroppedByWatermark, 0),
    numShufflePartitions: finiteNumber(raw.numShufflePartitions),
    numStateStoreInstances: finiteNumber(raw.numStateStoreInstances),
    customMetrics: numberMap(raw.customMetrics),
  };
}
