/**
 * The reporting modes a draw picks from: which runtime prints the progress and which source it
 * reads, so the same physics shows through every way the backlog is (or is not) reported.
 */

import type { SeededRandom } from '../random.js';
import type { Platform, SourceSpec } from '../spec.js';
import type { ReportingMode } from './types.js';

export interface ModeSource {
  platform: Platform;
  source: SourceSpec;
  /** The source can take an admission cap (`maxOffsetsPerTrigger` / `maxFilesPerTrigger`). */
  cappable: boolean;
}

/** What each mode means, for the eval's table legend and the README. */
export const MODE_DESCRIPTIONS: Record<ReportingMode, string> = {
  'dbr-17.1': 'Kafka on Databricks 17.1+: latest offsets read after the batch, the backlog shows as behind',
  'oss-planning':
    'Kafka on open-source Spark 3.5 / 4.0 or Databricks 17.0: latest = end at planning, metrics 0 when uncapped',
  'latest-is-end': 'Kafka printing latestOffset = endOffset while the behind-latest metrics carry the real backlog',
  'no-metrics': 'Kafka in Spark 2.4 / 3.0-era reports: no latestOffset, no source metrics',
  kinesis: 'Databricks Kinesis: shard positions, ms behind latest',
  'delta-files': 'Delta table source: files and bytes outstanding (half counted at planning, half after the batch)',
  autoloader: 'Auto Loader: files and bytes outstanding (half counted at planning, half after the batch)',
};

/**
 * The platform and source of a mode. `units` is the source's parallelism (Kafka partitions,
 * Kinesis shards); `rowsPerFile` sizes files for the file sources.
 */
export function modeSource(mode: ReportingMode, random: SeededRandom, units: number, rowsPerFile: number): ModeSource {
  const topic = ['orders', 'clickstream', 'payments', 'telemetry', 'events'][random.int(5)]!;
  switch (mode) {
    case 'dbr-17.1':
      return { platform: 'dbr-17.1', source: { kind: 'kafka', topic, partitions: units }, cappable: true };
    case 'oss-planning': {
      const platform = (['spark-3.5', 'spark-4.0', 'dbr-17.0'] as const)[random.int(3)]!;
      return { platform, source: { kind: 'kafka', topic, partitions: units }, cappable: true };
    }
    case 'latest-is-end':
      return { platform: 'dbr-17.1', source: { kind: 'kafka', topic, partitions: units, latestOffsetAsEnd: true }, cappable: true };
    case 'no-metrics':
      return { platform: 'spark-3.0', source: { kind: 'kafka', topic, partitions: units }, cappable: true };
    case 'kinesis':
      return { platform: 'dbr-17.1', source: { kind: 'kinesis', stream: topic, shards: units }, cappable: false };
    case 'delta-files':
      return {
        platform: 'dbr-17.1',
        source: { kind: 'delta', path: `s3://acme-lake/bronze/${topic}`, rowsPerFile, maxFilesPerTrigger: null },
        cappable: true,
      };
    case 'autoloader':
      return {
        platform: 'dbr-17.1',
        source: { kind: 'autoloader', path: `s3://acme-landing/${topic}/`, rowsPerFile, maxFilesPerTrigger: null },
        cappable: true,
      };
  }
}
