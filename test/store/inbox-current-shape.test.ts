/**
 * Every report this version's poller stores reads back as it was, not as an older shape: the shape
 * check in the inbox codec must never send a current entry through the parser again.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readProgressInput } from '../../src/progress/read-progress-input.js';
import { SCENARIOS, StreamSimulator } from '../../src/simulator/index.js';
import { decodeStoredProgress, encodeProgress } from '../../src/store/inbox-codec.js';

describe('inbox entries of the current shape', () => {
  it('every named scenario and every real-Spark trace decodes unfilled and unchanged', () => {
    const reports = SCENARIOS.flatMap((scenario) =>
      new StreamSimulator(scenario.spec, { startMs: scenario.startMs, seed: scenario.seed }).take(30).map((batch) => batch.json),
    );
    const folder = new URL('../fixtures/real-spark/', import.meta.url);
    for (const file of readdirSync(folder).filter((f) => f.endsWith('.jsonl'))) reports.push(...readFileSync(new URL(file, folder), 'utf8').split('\n').filter(Boolean));
    const { records } = readProgressInput(reports.join('\n'));
    expect(records.length).toBeGreaterThan(500);
    for (const { progress } of records) {
      const decoded = decodeStoredProgress(encodeProgress(progress));
      expect(decoded.filled, progress.name ?? progress.id).toBe(false);
      expect(decoded.progress).toEqual(JSON.parse(JSON.stringify(progress)));
    }
  });
});
