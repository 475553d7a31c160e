import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readProgressInput } from '../../src/progress/read-progress-input.js';

const dir = new URL('../fixtures/real-progress/', import.meta.url);
const files = readdirSync(dir).filter((name) => name !== 'SOURCES.md');

describe('real published progress reports', () => {
  it('has every file of the shared set, including SOURCES.md', () => {
    expect(files.length).toBe(16);
    expect(readdirSync(dir)).toContain('SOURCES.md');
  });

  for (const name of files) {
    // Cut off at the end only: read up to the cut, with a warning saying so.
    const truncated = name.includes('-truncated-') && !name.includes('-annotated-');
    const invalid = name.endsWith('-invalid.txt') && !truncated;
    it(`${name}: ${invalid ? 'a clear message with a line number' : truncated ? 'read up to its cut, with a warning' : 'parses'}`, () => {
      const text = readFileSync(new URL(name, dir), 'utf8');
      const { records, warnings } = readProgressInput(text);
      if (truncated) expect(warnings).toEqual([expect.stringMatching(/^line 1: JSON value cut off before its end \(the input ends at line \d+\); read up to the cut, closing 1 bracket/)]);
      if (invalid) {
        expect(records).toEqual([]);
        expect(warnings.length).toBeGreaterThan(0);
        for (const warning of warnings) expect(warning).toMatch(/^lines? \d+/);
        expect(warnings.join('\n')).not.toMatch(/at .*\.ts:\d+/); // no stack traces
      } else {
        expect(records.length).toBeGreaterThan(0);
        for (const { progress } of records) {
          expect(progress.id).toMatch(/^[0-9a-f-]{36}$/);
          expect(Number.isFinite(progress.batchDurationMs)).toBe(true);
          expect(Number.isFinite(progress.numInputRows)).toBe(true);
        }
      }
    });
  }

  it('reads the untidy details the way they were meant', () => {
    const read = (name: string) => readProgressInput(readFileSync(new URL(name, dir), 'utf8'));
    // Spark 2.2: no batchId, no input rate.
    const spark22 = read('15-spark22-filestream-null-offsets-no-input-rate.json').records[0]!.progress;
    expect(spark22.batchId).toBeNull();
    expect(spark22.inputRowsPerSecond).toBeNull();
    // Spark Connect: rates as "Infinity" strings, no top-level counts, offsets as strings.
    const connect = read('19-spark-connect-serverside-infinity-observedmetrics.json').records[0]!.progress;
    expect(connect.numInputRows).toBe(678 + 789);
    expect(connect.processedRowsPerSecond).toBeNull();
    expect(connect.sources[0]!.endOffset).toBe(456);
    // Kinesis: 56-digit sequence numbers stay strings, "mode" stays text.
    const kinesis = read('03-databricks-doc-kinesis-to-delta-first-batch.json').records[0]!.progress;
    expect(kinesis.sources[0]!.kind).toBe('kinesis');
    expect(kinesis.sources[0]!.metrics.mode).toBe('efo');
    expect((kinesis.sources[0]!.endOffset as any[])[0].lastSeqNum).toMatch(/^\d{56}$/);
    // The trimmed RocksDB blog example has no timestamp: a warning, not a rejection.
    const trimmed = read('29-databricks-blog-rocksdb-trimmed-empty-source-sink.json');
    expect(trimmed.records).toHaveLength(1);
    expect(trimmed.warnings[0]).toMatch(/line 1: no "timestamp"/);
    // Cut off in a blog post after the sink, and in a Javadoc after the sources: what they hold is read.
    const blog = read('11-kafka-foreachbatch-metrics-blog-truncated-invalid.txt').records[0]!.progress;
    expect(blog.sink?.description).toBe('ForeachBatchSink');
    expect(blog.sources[0]!.kind).toBe('kafka');
    const javadoc = read('21-spark22-kafka-15-partitions-truncated-invalid.txt').records[0]!.progress;
    expect(javadoc.sources[0]!.numInputRows).toBe(74470);
    expect(javadoc.sources).toHaveLength(1);
    // An inline comment in the middle is no cut: that excerpt stays unread, located.
    expect(read('17-spark22-rates-to-console-annotated-truncated-invalid.txt').warnings).toEqual(['line 1: incomplete JSON value, the input ends before its closing brace; skipped']);
    // The broken quote in the Databricks Kafka-to-Kafka example is located.
    const broken = read('01-databricks-doc-kafka-to-kafka-three-stateful-ops-invalid.txt');
    expect(broken.warnings[0]).toMatch(/line 1: malformed JSON \(error at line 187\)/);
  });
});
