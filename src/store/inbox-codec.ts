/**
 * Compact encoding of inbox entries. Progress JSON repeats the same field names in every report,
 * so each entry is deflated against a preset dictionary of those names: a stateful Kafka report
 * with RocksDB metrics shrinks about 5x, which lets a byte-bounded inbox hold the engine's whole
 * window while detect is down. Entries written as plain JSON (before this codec) still decode.
 *
 * What is stored is the parser's `Progress`, bounded (`storableProgress`): offsets are the one part
 * the parser passes through untyped, and a report nested thousands of levels deep would overflow
 * the stack of `JSON.stringify` and stop ingestion for every query of its source.
 *
 * An entry is `seq|payload`, with no identity of its own: a report pushed again (a poll retried
 * before it saved its cursor re-reads the same rows) is stored again, and the detect step skips
 * what it already observed, a second copy in the same inbox included.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { parseProgress } from '../progress/parse-progress.js';
import type { Progress } from '../progress/types.js';
import { isRecord, MAX_TIMESTAMP_MS } from '../progress/values.js';
import { StreamDoctorError } from '../util/errors.js';
import { truncateText } from '../util/truncate-text.js';

/**
 * Deepest nesting a stored report keeps, counted from the report itself: the deepest value Spark
 * prints is a Kafka or Kinesis offset, `sources[i].startOffset.<topic>.<partition>` (5 levels).
 * Objects and arrays below this depth are stored as null.
 */
export const STORED_PROGRESS_MAX_DEPTH = 8;
/** Longest query name a stored report keeps (then cut, with an ellipsis). */
export const STORED_NAME_MAX_CHARS = 200;
/**
 * Longest source or sink description and state operator name a stored report keeps (a Kafka
 * description lists every topic it subscribes to; 1 KB keeps dozens).
 */
export const STORED_TEXT_MAX_CHARS = 1024;


function withinDepth(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (depth >= STORED_PROGRESS_MAX_DEPTH) return false;
  if (Array.isArray(value)) return value.every((item) => withinDepth(item, depth + 1));
  for (const key in value) if (!withinDepth((value as Record<string, unknown>)[key], depth + 1)) return false;
  return true;
}

// Recursion stops at STORED_PROGRESS_MAX_DEPTH, so neither walk can overflow the stack.
function pruned(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= STORED_PROGRESS_MAX_DEPTH) return null;
  if (Array.isArray(value)) return value.map((item) => pruned(item, depth + 1));
  const out: Record<string, unknown> = {};
  // `__proto__` would set the copy's prototype rather than a key (the parser drops it too).
  for (const key in value) if (key !== '__proto__') out[key] = pruned((value as Record<string, unknown>)[key], depth + 1);
  return out;
}

function textWithin(p: Progress): boolean {
  if (p.name !== null && p.name.length > STORED_NAME_MAX_CHARS) return false;
  if (p.sink.description.length > STORED_TEXT_MAX_CHARS) return false;
  for (const source of p.sources) if (source.description.length > STORED_TEXT_MAX_CHARS) return false;
  for (const op of p.stateOperators) if (op.operatorName !== null && op.operatorName.length > STORED_TEXT_MAX_CHARS) return false;
  return true;
}

/**
 * The report as the inbox keeps it: the same object when it is within the bounds above (the usual
 * case: one walk, no copy), else a copy with deeper values null and long texts cut.
 */
export function storableProgress(p: Progress): Progress {
  if (textWithin(p) && withinDepth(p, 0)) return p;
  const out = pruned(p, 0) as Progress;
  if (out.name !== null) out.name = truncateText(out.name, STORED_NAME_MAX_CHARS);
  out.sink.description = truncateText(out.sink.description, STORED_TEXT_MAX_CHARS);
  for (const source of out.sources) source.description = truncateText(source.description, STORED_TEXT_MAX_CHARS);
  for (const op of out.stateOperators) if (op.operatorName !== null) op.operatorName = truncateText(op.operatorName, STORED_TEXT_MAX_CHARS);
  return out;
}

/** The stored report as JSON text. Throws on a report that cannot be encoded (the caller skips it). */
export function progressJson(p: Progress): string {
  return JSON.stringify(storableProgress(p));
}

// Field names that normalized progress of other shapes carries (Auto Loader, Delta, pipelines)…
const NAMES = [
  '"loadedMapCacheHitCount":"loadedMapCacheMissCount":"stateOnCurrentVersionSizeBytes":"numFilesOutstanding":"numBytesOutstanding":',
  '"rocksdbCommitPauseLatency":"rocksdbCommitWriteBatchLatency":"allUpdatesTimeMs":"allRemovalsTimeMs":"commitBatch":',
  '"kind":"delta","kind":"autoloader","description":"DeltaSource[","description":"CloudFilesSource[","description":"ForeachBatchSink"',
];
// …then a whole stateful Kafka report in the parser's key order with neutral values: deflate
// matches best near the dictionary's end, and long runs of keys in order become single matches.
const SAMPLE = [
  '{"id":"00000000-0000-4000-8000-000000000000","runId":"00000000-0000-4000-8000-000000000000","name":"query","timestampM',
  's":1700000000000,"timestamp":"2026-01-01T00:00:00.000Z","batchId":10000,"batchDurationMs":1000,"numInputRows":10000,"i',
  'nputRowsPerSecond":1000.5,"processedRowsPerSecond":1000.5,"durationMs":{"addBatch":1000,"commitOffsets":100,"getBatch"',
  ':1,"latestOffset":100,"queryPlanning":100,"triggerExecution":1000,"walCommit":100},"eventTime":{"min":"2026-01-01T00:0',
  '0:00.000Z","max":"2026-01-01T00:00:00.000Z","avg":"2026-01-01T00:00:00.000Z","watermark":"2026-01-01T00:00:00.000Z"},"',
  'stateOperators":[{"operatorName":"stateStoreSave","numRowsTotal":1000000,"numRowsUpdated":1000,"numRowsRemoved":100,"c',
  'ommitTimeMs":1000,"memoryUsedBytes":100000000,"numRowsDroppedByWatermark":0,"numShufflePartitions":200,"numStateStoreI',
  'nstances":200,"customMetrics":{"rocksdbBytesCopied":100000000,"rocksdbCommitCheckpointLatency":10,"rocksdbCommitCompac',
  'tLatency":0,"rocksdbCommitFileSyncLatencyMs":1000,"rocksdbCommitFlushLatency":1000,"rocksdbFilesCopied":100,"rocksdbFi',
  'lesReused":1000,"rocksdbGetCount":10000,"rocksdbGetLatency":1000,"rocksdbPinnedBlocksMemoryUsage":0,"rocksdbPutCount":',
  '10000,"rocksdbPutLatency":1000,"rocksdbReadBlockCacheHitCount":10000,"rocksdbReadBlockCacheMissCount":10000,"rocksdbSs',
  'tFileSize":10000000000,"rocksdbTotalBytesRead":10000000,"rocksdbTotalBytesReadByCompaction":0,"rocksdbTotalBytesReadTh',
  'roughIterator":1000000,"rocksdbTotalBytesWritten":10000000,"rocksdbTotalBytesWrittenByCompaction":0,"rocksdbTotalBytes',
  'WrittenByFlush":10000000,"rocksdbTotalCompactionLatencyMs":0,"rocksdbWriterStallLatencyMs":0,"rocksdbZipFileBytesUncom',
  'pressed":100000}}],"sources":[{"description":"KafkaV2[Subscribe[topic]]","kind":"kafka","numInputRows":10000,"inputRow',
  'sPerSecond":1000.5,"processedRowsPerSecond":1000.5,"startOffset":{"topic":{"0":1000000,"1":1000000}},"endOffset":{"top',
  'ic":{"0":1000000,"1":1000000}},"latestOffset":{"topic":{"0":1000000,"1":1000000}},"metrics":{"avgOffsetsBehindLatest":',
  '1000,"estimatedTotalBytesBehindLatest":10000000,"maxOffsetsBehindLatest":1000,"minOffsetsBehindLatest":1000}}],"sink":',
  '{"description":"DeltaSink[s3://bucket/table]","numOutputRows":10000}}',
];
/** Changing the dictionary makes stored entries unreadable: give a new one a new marker byte. */
const DICTIONARY = Buffer.from([...NAMES, ...SAMPLE].join(''), 'utf8');

/** Marks a deflated entry (plain JSON entries start with `{`). */
const DEFLATED = 0x01;

export function encodeProgress(progress: Progress): Buffer {
  return encodeProgressJson(progressJson(progress));
}

/** Deflates a report already turned into JSON by `progressJson`. */
export function encodeProgressJson(json: string): Buffer {
  const packed = deflateRawSync(Buffer.from(json, 'utf8'), { dictionary: DICTIONARY, level: 6 });
  return Buffer.concat([Buffer.from([DEFLATED]), packed]);
}

/** An inbox entry that is not a progress report (the caller consumes it and says so). */
export class InboxEntryError extends StreamDoctorError {
  constructor(message: string) {
    super('streamdoctor_inbox_entry_invalid', message);
  }
}

/** A decoded entry: `filled` when it was of an older shape and read with the parser's defaults. */
export interface DecodedProgress {
  progress: Progress;
  filled: boolean;
}

const num = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);
const numOrNull = (v: unknown): boolean => v === null || num(v);
const strOrNull = (v: unknown): boolean => v === null || typeof v === 'string';
function mapOf(v: unknown, test: (item: unknown) => boolean): boolean {
  if (!isRecord(v)) return false;
  for (const key in v) if (!test(v[key])) return false;
  return true;
}

function sourceComplete(v: unknown): boolean {
  return isRecord(v) && typeof v.description === 'string' && typeof v.kind === 'string' && num(v.numInputRows) &&
    numOrNull(v.inputRowsPerSecond) && numOrNull(v.processedRowsPerSecond) &&
    v.startOffset !== undefined && v.endOffset !== undefined && v.latestOffset !== undefined &&
    mapOf(v.metrics, (m) => num(m) || typeof m === 'string');
}

function operatorComplete(v: unknown): boolean {
  return isRecord(v) && strOrNull(v.operatorName) &&
    [v.numRowsTotal, v.numRowsUpdated, v.numRowsRemoved, v.commitTimeMs, v.memoryUsedBytes, v.numRowsDroppedByWatermark].every(num) &&
    numOrNull(v.numShufflePartitions) && numOrNull(v.numStateStoreInstances) && mapOf(v.customMetrics, num);
}

/** Whether `v` has every field of `Progress` with its type (what this version's poller stores). */
function progressComplete(v: Record<string, unknown>): boolean {
  return typeof v.id === 'string' && v.id.length > 0 && typeof v.runId === 'string' && strOrNull(v.name) &&
    num(v.timestampMs) && typeof v.timestamp === 'string' && (v.timestampMissing === undefined || typeof v.timestampMissing === 'boolean') &&
    (v.batchId === null || Number.isSafeInteger(v.batchId)) && num(v.batchDurationMs) && num(v.numInputRows) &&
    numOrNull(v.inputRowsPerSecond) && numOrNull(v.processedRowsPerSecond) && mapOf(v.durationMs, num) &&
    mapOf(v.eventTime, (t) => typeof t === 'string') &&
    Array.isArray(v.stateOperators) && v.stateOperators.every(operatorComplete) &&
    Array.isArray(v.sources) && v.sources.every(sourceComplete) &&
    isRecord(v.sink) && typeof v.sink.description === 'string' && numOrNull(v.sink.numOutputRows);
}

/**
 * A stored report as `Progress`. Entries are the normalized reports of this code's poller; one an
 * older version wrote without a field (or with one of another type) goes through the parser again,
 * which fills what is missing with its defaults, so the engine never meets an undefined. What the
 * parser does not take for a report throws `InboxEntryError`.
 */
export function storedProgress(value: unknown): DecodedProgress {
  if (isRecord(value) && progressComplete(value)) return { progress: value as unknown as Progress, filled: false };
  if (!isRecord(value)) throw new InboxEntryError(`not a progress report: ${value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`}`);
  // The parser reads Spark's names: give it the stored times under them.
  const raw: Record<string, unknown> = { ...value, batchDuration: value.batchDurationMs };
  if (value.timestampMissing === true) delete raw.timestamp;
  else if ((typeof value.timestamp !== 'string' || value.timestamp === '') && num(value.timestampMs) && Math.abs(value.timestampMs as number) <= MAX_TIMESTAMP_MS) {
    raw.timestamp = new Date(value.timestampMs as number).toISOString();
  }
  const parsed = parseProgress(raw);
  if (!parsed.ok) throw new InboxEntryError(`not a progress report: ${parsed.error}`);
  return { progress: parsed.progress, filled: true };
}

/** Decodes an entry payload; throws on anything unreadable or not a report (the caller counts it as corrupt). */
export function decodeStoredProgress(payload: Buffer): DecodedProgress {
  const json = payload.length > 0 && payload[0] === DEFLATED ? inflateRawSync(payload.subarray(1), { dictionary: DICTIONARY }).toString('utf8') : payload.toString('utf8');
  return storedProgress(JSON.parse(json) as unknown);
}

/** `decodeStoredProgress`'s report. */
export function decodeProgress(payload: Buffer): Progress {
  return decodeStoredProgress(payload).progress;
}
