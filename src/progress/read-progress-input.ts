import { ProgressInputReader, type ProgressRecord } from './progress-input-reader.js';

export type { ProgressRecord };

/**
 * Every progress report in `text` (JSON Lines, a JSON array, pretty-printed objects, or a mix) with
 * the line it starts on, plus one warning per value that could not be used. Never throws.
 */
export function readProgressInput(text: string): { records: ProgressRecord[]; warnings: string[] } {
  const records: ProgressRecord[] = [];
  const warnings: string[] = [];
  const reader = new ProgressInputReader(
    (record) => records.push(record),
    (warning) => warnings.push(warning),
  );
  reader.push(text);
  reader.end();
  return { records, warnings };
}
