/**
 * A restart after a long downtime whose uncapped catch-up takes the budget in its first two batches
 * (each reads everything waiting, for many minutes): the catch-up's ETA needs more batches than that
 * to read, and the engine stayed quiet while "nothing says yet", past the budget and to the end of
 * the episode. The budget is for the whole catch-up: once it is spent with the residue still there,
 * the catch-up did not drain in time, whatever its pace. Generated slow catch-ups on file sources
 * that never opened before (judged range 692000–693999).
 */
import { describe, expect, it } from 'vitest';
import { QueryTracker } from '../../src/diagnosis/query-tracker.js';
import { TUNING } from '../../src/diagnosis/engine-options.js';
import { parseProgress } from '../../src/progress/parse-progress.js';
import { drawScenario, simulateRandom, type ReportingMode } from '../../src/simulator/random/index.js';

describe('a catch-up still short of its level once the budget is spent', () => {
  it.each([
    [692_001, 'delta-files'],
    [692_202, 'delta-files'],
    [692_260, 'autoloader'],
    [693_950, 'delta-files'],
  ] as [number, ReportingMode][])('draw %i (%s) opens within its episode and says the budget is spent', (seed, mode) => {
    const sim = simulateRandom(drawScenario(seed, { family: 'slow-catch-up', mode }));
    const query = sim.queries[0]!;
    const label = query.labels.find((l) => l.kind === 'lag')!;
    expect(label.what).toBe('restart');
    let tracker: QueryTracker | null = null;
    let openedAt = -1;
    let summary = '';
    query.batches.forEach((batch, index) => {
      const parsed = parseProgress(JSON.parse(batch.json));
      if (!parsed.ok) throw new Error(parsed.error);
      tracker ??= QueryTracker.create(parsed.progress.id, parsed.progress.name);
      const opened = tracker.observe(parsed.progress).find((c) => c.type === 'opened' && c.incident.kind === 'lag');
      if (opened && openedAt < 0) {
        openedAt = index;
        summary = opened.incident.summary;
      }
    });
    expect(openedAt).toBeGreaterThanOrEqual(label.onsetIndex);
    expect(openedAt).toBeLessThanOrEqual(label.endIndex!);
    const budget = `${TUNING.catchUpBudgetSec / 60}m`;
    expect(summary).toMatch(new RegExp(`^Catching up after a restart \\(down for .*\\): .* waiting .* into the catch-up, past its ${budget} budget`));
  });
});
