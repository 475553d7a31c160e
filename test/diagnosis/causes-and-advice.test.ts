/**
 * Causes and advice on labelled corpus streams: the numbers in evidence and advice come from the
 * data (cores, partitions, arrival rate, trigger), not from templates.
 */
import { describe, expect, it } from 'vitest';
import { diagnose } from '../../src/diagnosis/engine.js';
import type { Incident } from '../../src/diagnosis/types.js';
import { parseProgress } from '../../src/progress/parse-progress.js';
import { labelScenario } from '../../src/simulator/scenario.js';
import { scenarioByName } from '../../src/simulator/scenarios/index.js';

function incidentOf(name: string, kind: string): Incident {
  const scenario = scenarioByName(name);
  const run = labelScenario(scenario);
  const progress = run.batches.map((batch) => {
    const parsed = parseProgress(JSON.parse(batch.json));
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.progress;
  });
  const output = diagnose(progress, { ...scenario.engine, nowMs: run.nowMs });
  const incident = output.queries[0]!.incidents.find((i) => i.kind === kind);
  if (!incident) throw new Error(`${name}: no ${kind} incident`);
  return incident;
}

describe('causes and advice', () => {
  it('too few shuffle partitions: stateStore.partitions at 2× cores with the expected pause', () => {
    const incident = incidentOf('too-few-shuffle-partitions', 'lag');
    expect(incident.causes[0]).toMatchObject({ code: 'too_few_shuffle_partitions' });
    expect(incident.causes[0]!.evidence).toMatch(/4 state partitions on 16 cores/);
    const advice = incident.advice.find((a) => a.setting === 'spark.sql.streaming.stateStore.partitions')!;
    expect(advice.value).toBe('32');
    expect(advice.text).toMatch(/Databricks Runtime 18\.3\+, RocksDB/);
    expect(advice.text).toMatch(/repartition pause of about \d/);
  });

  it('capacity: the throughput factor, and that a longer trigger interval will not help', () => {
    const incident = incidentOf('kafka-uncapped-overload-12pct', 'lag');
    expect(incident.causes[0]!.code).toBe('insufficient_capacity');
    expect(incident.causes[0]!.evidence).toMatch(/load factor 1\.\d\d/);
    const advice = incident.advice[0]!;
    const factor = Number(/about ([\d.]+)×/.exec(advice.text)![1]);
    expect(factor).toBeGreaterThanOrEqual(1.12);
    expect(factor).toBeLessThan(1.6);
    expect(advice.text).toMatch(/longer trigger interval will not help/);
  });

  it('catch-up after an outage: oversized_batches with a cap near the normal batch size', () => {
    const incident = incidentOf('catch-up-after-outage-uncapped', 'lag');
    expect(incident.causes[0]!.code).toBe('oversized_batches');
    expect(incident.causes[0]!.evidence).toMatch(/first batch after the restart \(batch 40\) read 8\d(\.\d)?M rows/);
    const advice = incident.advice.find((a) => a.setting === 'maxOffsetsPerTrigger')!;
    // Normal batches read ~8,000 rows/s × 30 s; the cap is what the query processes in that time.
    expect(Number(advice.value)).toBeGreaterThan(200_000);
    expect(Number(advice.value)).toBeLessThan(1_000_000);
  });

  it('slow sink and slow state commit name the share of the batch they take', () => {
    const sink = incidentOf('slow-sink', 'lag');
    expect(sink.causes[0]!.code).toBe('slow_sink');
    expect(sink.causes[0]!.evidence).toMatch(/DeltaSink\[s3:\/\/acme-lake\/silver\/events\].*\d+% of each batch/);
    const commit = incidentOf('slow-state-commit', 'lag');
    expect(commit.causes[0]!.code).toBe('slow_state_commit');
    expect(commit.advice[0]).toMatchObject({
      setting: 'spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled',
      value: 'true',
    });
  });

  it('Auto Loader cap: the cloudFiles option, with the backlog growth per batch', () => {
    const incident = incidentOf('autoloader-files-backlog', 'lag');
    expect(incident.causes[0]!.code).toBe('rate_limit_too_low');
    expect(incident.causes[0]!.evidence).toMatch(/outstanding backlog grew from \d+ files to \d+ files/);
    expect(incident.advice[0]!.setting).toBe('cloudFiles.maxFilesPerTrigger');
    // Auto Loader offsets count files (seqNum), so the engine can say how old the backlog is.
    expect(incident.summary).toMatch(/files waiting at the source \(about \d+(m \d+)?s of data, estimated from files\)/);
    expect(incident.metrics?.timeBehindSec).toBeGreaterThan(30);
  });

  it('slow repartition: duration, state size and a maintenance window', () => {
    const incident = incidentOf('slow-repartition-large-state', 'slow_repartition');
    expect(incident.summary).toMatch(/State repartition took \d+m/);
    expect(incident.causes[0]!.code).toBe('large_state_repartition');
    expect(incident.causes[0]!.evidence).toMatch(/moved \d+(\.\d)? GiB of state/);
    expect(incident.advice[0]!.text).toMatch(/maintenance window/);
  });

  it('data loss risk: says when, and the retention setting to buy time', () => {
    const incident = incidentOf('data-loss-risk-short-retention', 'data_loss_risk');
    expect(incident.summary).toMatch(/will reach the \dh retention in about .* \(2026-/);
    expect(incident.advice.some((a) => a.setting === 'retention.ms' && Number(a.value) > 0)).toBe(true);
  });
});
