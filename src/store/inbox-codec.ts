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
import type { Progress } from '../progress/types.js';
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

/** Decodes an entry payload; throws on anything unreadable (the caller counts it as corrupt). */
export function decodeProgress(payload: Buffer): Progress {
  if (payload.length > 0 && payload[0] === DEFLATED) {
    return JSON.parse(inflateRawSync(payload.subarray(1), { dictionary: DICTIONARY }).toString('utf8')) as Progress;
  }
  return JSON.parse(payload.toString('utf8')) as Progress;
}
