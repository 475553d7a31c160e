/**
 * A hand-made series shaped like Databricks' published Kafka → Delta example (reference §1.9):
 * 40 reports of orders_5min_agg, batches back to back, capped at 100,000 offsets; arrivals rise
 * from 2,300 to 3,000 rows/s at batch 48015 while the query processes ~2,600 rows/s.
 * Independent of the simulator.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { diagnose } from '../../src/diagnosis/engine.js';
import { readProgressInput } from '../../src/progress/read-progress-input.js';

const text = readFileSync(new URL('../fixtures/progress/orders-agg-capped-falling-behind.jsonl', import.meta.url), 'utf8');

describe('hand-made Databricks series', () => {
  it('reads all 40 reports, with E-notation byte estimates as numbers', () => {
    const { records, warnings } = readProgressInput(text);
    expect(warnings).toEqual([]);
    expect(records).toHaveLength(40);
    const metrics = records[39]!.progress.sources[0]!.metrics;
    expect(typeof metrics.estimatedTotalBytesBehindLatest).toBe('number');
    expect(metrics.estimatedTotalBytesBehindLatest as number).toBeGreaterThan(1e7);
  });

  it('finds the lag soon after the rise and names capacity before the cap (batches run back to back)', () => {
    const output = diagnose(readProgressInput(text).records.map((r) => r.progress));
    const [query] = output.queries;
    expect(query!.name).toBe('orders_5min_agg');
    expect(query!.incidents).toHaveLength(1);
    const lag = query!.incidents[0]!;
    expect(lag.kind).toBe('lag');
    expect(lag.openedAtBatchId).toBeGreaterThanOrEqual(48015);
    expect(lag.openedAtBatchId).toBeLessThanOrEqual(48023);
    expect(lag.summary).toMatch(/^Falling behind: .*growing [\dhms ]+ per minute$/);
    expect(lag.causes.map((c) => c.code)).toEqual(['insufficient_capacity', 'rate_limit_too_low']);
    expect(lag.causes[0]!.evidence).toMatch(/load factor 1\.1\d/);
    expect(lag.causes[1]!.evidence).toMatch(/back to back/);
  });

  it('the first 15 reports alone, keeping up, raise nothing', () => {
    const first = text.split('\n').slice(0, 15).join('\n');
    expect(diagnose(readProgressInput(first).records.map((r) => r.progress)).queries[0]!.health).toBe('ok');
  });
});
