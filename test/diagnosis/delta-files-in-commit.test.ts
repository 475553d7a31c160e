/**
 * What a Delta source's offsets say a batch read: within one table version, the growth of `index`
 * (the last file read in it; -1 before the first, as Delta writes its base index to the offset
 * log); across versions nothing, since the offsets do not give how many files the earlier version
 * held. Reports in the shape Delta prints (`sourceVersion`, `reservoirId`, `reservoirVersion`,
 * `index`, `isStartingVersion`).
 */
import { describe, expect, it } from 'vitest';
import { extractFeatures } from '../../src/diagnosis/batch-features.js';
import { parseProgress } from '../../src/progress/parse-progress.js';

const TABLE = '7257c112-86cb-4c3b-be04-9dff9fa1d77e';
const offset = (reservoirVersion: number, index: number, isStartingVersion = false) => ({
  sourceVersion: 1,
  reservoirId: TABLE,
  reservoirVersion,
  index,
  isStartingVersion,
});

function report(start: unknown, end: unknown, extraSources: unknown[] = []) {
  const parsed = parseProgress({
    id: 'q1',
    runId: 'r1',
    timestamp: '2026-09-14T11:28:40.390Z',
    batchId: 7,
    numInputRows: 30_000,
    durationMs: { triggerExecution: 2_800 },
    sources: [
      {
        description: `DeltaSource[s3://acme-lake/bronze/events]`,
        startOffset: start,
        endOffset: end,
        numInputRows: 30_000,
        metrics: { numFilesOutstanding: '6', numBytesOutstanding: '50033463' },
      },
      ...extraSources,
    ],
    sink: { description: 'DeltaSink[s3://acme-lake/silver/events]' },
  });
  if (!parsed.ok) throw new Error(parsed.error);
  return extractFeatures(parsed.progress, 'r1');
}

describe('files a Delta batch read, from its offsets', () => {
  it('counts the files read within one table version', () => {
    expect(report(offset(38, -1), offset(38, 3)).filesInCommit).toBe(4);
    expect(report(offset(38, 3), offset(38, 7)).filesInCommit).toBe(4);
    // Offsets printed as JSON strings (as some listeners publish them) say the same.
    expect(report(JSON.stringify(offset(38, 3)), JSON.stringify(offset(38, 7))).filesInCommit).toBe(4);
    // The initial snapshot counts its files in the same way.
    expect(report(offset(5, 1, true), offset(5, 3, true)).filesInCommit).toBe(2);
  });

  it('says nothing across versions, at a schema change, on a first batch or from the snapshot into changes', () => {
    expect(report(offset(37, 6), offset(38, -1)).filesInCommit).toBeNull();
    expect(report(offset(36, 8), offset(37, 0)).filesInCommit).toBeNull();
    expect(report(offset(38, -20), offset(38, 3)).filesInCommit).toBeNull();
    expect(report(null, offset(38, 3)).filesInCommit).toBeNull();
    // Out of the snapshot's last files into the changes after it.
    expect(report(offset(5, 15, true), offset(6, -1, false)).filesInCommit).toBeNull();
  });

  it('sums several Delta sources only when each says, and leaves Auto Loader to its own count', () => {
    const other = (start: unknown, end: unknown) => ({ description: 'DeltaSource[s3://acme-lake/bronze/users]', startOffset: start, endOffset: end, numInputRows: 10 });
    expect(report(offset(38, -1), offset(38, 3), [other(offset(5, 0), offset(5, 2))]).filesInCommit).toBe(6);
    expect(report(offset(38, -1), offset(38, 3), [other(offset(5, 0), offset(6, -1))]).filesInCommit).toBeNull();
    const autoloader = report(offset(38, -1), offset(38, 3), [
      { description: 'CloudFilesSource[s3://acme-landing/events/]', startOffset: { seqNum: 10, sourceVersion: 1 }, endOffset: { seqNum: 14, sourceVersion: 1 }, numInputRows: 10 },
    ]);
    expect(autoloader.filesInCommit).toBe(4);
    expect(autoloader.filesRead).toBe(4);
  });
});
