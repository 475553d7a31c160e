/**
 * Compact encoding of inbox entries. Progress JSON repeats the same field names in every report,
 * so each entry is deflated against a preset dictionary of those names: a stateful Kafka report
 * with RocksDB metrics shrinks about 5x, which lets a byte-bounded inbox hold the engine's whole
 * window while detect is down. Entries written as plain JSON (before this codec) still decode.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Progress } from '../progress/types.js';

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
  const packed = deflateRawSync(Buffer.from(JSON.stringify(progress), 'utf8'), { dictionary: DICTIONARY, level: 6 });
  return Buffer.concat([Buffer.from([DEFLATED]), packed]);
}

/** Decodes an entry payload; throws on anything unreadable (the caller counts it as corrupt). */
export function decodeProgress(payload: Buffer): Progress {
  if (payload.length > 0 && payload[0] === DEFLATED) {
    return JSON.parse(inflateRawSync(payload.subarray(1), { dictionary: DICTIONARY }).toString('utf8')) as Progress;
  }
  return JSON.parse(payload.toString('utf8')) as Progress;
}
