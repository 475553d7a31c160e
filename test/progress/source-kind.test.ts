import { describe, expect, it } from 'vitest';
import { sourceKind } from '../../src/progress/source-kind.js';

describe('sourceKind', () => {
  it('reads the kind from the descriptions Spark and Databricks print', () => {
    expect(sourceKind('KafkaV2[Subscribe[orders]]')).toBe('kafka');
    expect(sourceKind('KafkaSource[Assign[insight-tenant1-0]]')).toBe('kafka');
    expect(sourceKind('CloudFilesSource[s3://acme-landing/orders/]')).toBe('autoloader');
    expect(sourceKind('DeltaSource[dbfs:/path/to/table]')).toBe('delta');
    expect(sourceKind('KinesisV2[KinesisTestUtils-71994661787]')).toBe('kinesis');
    expect(sourceKind('RateStreamV2[rowsPerSecond=100, rampUpTimeSeconds=0, numPartitions=2]')).toBe('rate');
    expect(sourceKind('FileStreamSource[file:/data/in]')).toBe('file');
    expect(sourceKind('MemoryStream[value#1L]')).toBe('memory');
    expect(sourceKind('TextSocketV2[host: localhost, port: 9999]')).toBe('socket');
  });

  it('ignores the case of the prefix', () => {
    expect(sourceKind('kafkav2[Subscribe[orders]]')).toBe('kafka');
    expect(sourceKind('KAFKA[x]')).toBe('kafka');
    expect(sourceKind('cloudFiles[x]')).toBe('autoloader');
    expect(sourceKind('DELTA')).toBe('delta');
    expect(sourceKind('org.apache.spark.sql.execution.streaming.TextSocketSource@1')).toBe('socket');
  });

  it('is "other" for what it does not know', () => {
    expect(sourceKind('')).toBe('other');
    expect(sourceKind('Kafk')).toBe('other');
    expect(sourceKind('org.apache.spark.sql.kafka010.KafkaSource@5f2')).toBe('other');
    expect(sourceKind('[Kafka]')).toBe('other');
    expect(sourceKind('Kafk@')).toBe('other');
    expect(sourceKind('Ｋafka')).toBe('other');
  });
});
