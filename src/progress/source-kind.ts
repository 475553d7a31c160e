import type { SourceKind } from './types.js';

/**
 * The source type from its `description` (`KafkaV2[Subscribe[orders]]`, `DeltaSource[...]`,
 * `CloudFilesSource[...]`, …). Descriptions differ between Spark versions and DSv1/DSv2, so match on
 * the stable prefixes.
 */
export function sourceKind(description: string): SourceKind {
  const text = description.toLowerCase();
  if (text.startsWith('kafka')) return 'kafka';
  if (text.startsWith('cloudfiles')) return 'autoloader';
  if (text.startsWith('deltasource') || text.startsWith('delta')) return 'delta';
  if (text.startsWith('kinesis')) return 'kinesis';
  if (text.startsWith('rate')) return 'rate';
  if (text.startsWith('filestreamsource') || text.startsWith('file')) return 'file';
  if (text.startsWith('memorystream') || text.startsWith('memory')) return 'memory';
  if (text.includes('socket')) return 'socket';
  return 'other';
}
