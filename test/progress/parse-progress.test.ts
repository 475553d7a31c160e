import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseProgress } from '../../src/progress/parse-progress.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/progress/${name}`, import.meta.url), 'utf8');
const databricks = () => JSON.parse(fixture('databricks-kafka-delta-agg-behind.json')) as Record<string, any>;

function ok(raw: unknown) {
  const result = parseProgress(raw);
  if (!result.ok) throw new Error(`expected ok, got: ${result.error}`);
  return result;
}

describe('parseProgress', () => {
  it('normalizes the published Databricks Kafka → Delta example', () => {
    const { progress, warnings } = ok(databricks());
    expect(warnings).toEqual([]);
    expect(progress.id).toBe('8f3c2a51-6b0e-4d7a-9c1e-2b5f7d9a0e34');
    expect(progress.name).toBe('orders_5min_agg');
    expect(progress.batchId).toBe(48211);
    expect(progress.timestampMs).toBe(Date.parse('2026-09-14T10:15:00.000Z'));
    expect(progress.batchDurationMs).toBe(41235);
    expect(progress.sources[0]!.kind).toBe('kafka');
    // String metrics become numbers, including Java's E-notation.
    expect(progress.sources[0]!.metrics.estimatedTotalBytesBehindLatest).toBe(329881600);
    expect(progress.sources[0]!.metrics.maxOffsetsBehindLatest).toBe(164300);
    expect(progress.stateOperators[0]!.customMetrics.rocksdbSstFileSize).toBe(21474836480);
    expect(progress.sink.numOutputRows).toBeNull(); // -1 = unknown for the Delta sink
    expect(progress.eventTime.watermark).toBe('2026-09-14T09:47:12.031Z');
  });

  it('falls back to durationMs.triggerExecution when batchDuration is absent (Spark 3.x)', () => {
    const raw = databricks();
    delete raw.batchDuration;
    expect(ok(raw).progress.batchDurationMs).toBe(41234);
  });

  it('reads rates given as strings and drops non-finite ones', () => {
    const raw = databricks();
    raw.inputRowsPerSecond = '2422.5';
    raw.processedRowsPerSecond = 'Infinity';
    const { progress } = ok(raw);
    expect(progress.inputRowsPerSecond).toBe(2422.5);
    expect(progress.processedRowsPerSecond).toBeNull();
  });

  it('parses offsets printed as JSON strings and keeps null start offsets of batch 0', () => {
    const raw = databricks();
    raw.sources[0].startOffset = null;
    raw.sources[0].endOffset = JSON.stringify(raw.sources[0].endOffset);
    const { progress } = ok(raw);
    expect(progress.sources[0]!.startOffset).toBeNull();
    expect(progress.sources[0]!.endOffset).toEqual({ orders: { '0': 1025000, '1': 1026200, '2': 1023500, '3': 1025750 } });
  });

  it('accepts a report without batchId and without maps (Spark 2.1/2.2 style)', () => {
    const raw = databricks();
    delete raw.batchId;
    delete raw.eventTime;
    delete raw.durationMs;
    delete raw.batchDuration;
    delete raw.sources[0].metrics;
    const { progress } = ok(raw);
    expect(progress.batchId).toBeNull();
    expect(progress.eventTime).toEqual({});
    expect(progress.batchDurationMs).toBe(0);
    expect(progress.sources[0]!.metrics).toEqual({});
  });

  it('warns and places a report without timestamp instead of rejecting it', () => {
    const raw = databricks();
    delete raw.timestamp;
    const result = ok(raw);
    expect(result.progress.timestampMissing).toBe(true);
    expect(result.warnings[0]).toMatch(/no "timestamp"/);
  });

  it('unwraps a listener event {"progress": {...}}', () => {
    const line = fixture('listener-events.jsonl').trim();
    expect(ok(JSON.parse(line)).progress.batchId).toBe(48211);
  });

  it('unwraps a pipeline event-log stream_progress event and sums row counts it lacks', () => {
    const { progress } = ok(JSON.parse(fixture('eventlog-stream-progress.json')));
    expect(progress.name).toBe('silverTransformFromBronze');
    expect(progress.batchId).toBe(4);
    expect(progress.numInputRows).toBe(0);
    expect(progress.sources[0]!.kind).toBe('delta');
    expect(progress.sources[0]!.metrics.numFilesOutstanding).toBe(0);
  });

  it('unwraps an event-log table row whose details and progress_json are JSON strings', () => {
    const { progress } = ok(JSON.parse(fixture('eventlog-table-row-progress-json.json')));
    expect(progress.id).toBe('abcdef12-abcd-3456-7890-abcd1234ef56');
    expect(progress.batchDurationMs).toBe(62);
  });

  it('rejects what is not a progress report with a message saying what was expected', () => {
    for (const raw of [null, 42, 'text', [1, 2], { hello: 'world' }]) {
      const result = parseProgress(raw);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error).toMatch(/expected a StreamingQueryProgress/);
    }
    const flow = parseProgress({ event_type: 'flow_progress', details: { flow_progress: { status: 'RUNNING' } } });
    expect(flow.ok).toBe(false);
    if (!flow.ok) expect(flow.error).toMatch(/flow_progress/);
    const started = parseProgress({ id: 'a', runId: 'b', name: null, timestamp: '2026-01-01T00:00:00.000Z' });
    expect(started.ok).toBe(false);
  });
});
