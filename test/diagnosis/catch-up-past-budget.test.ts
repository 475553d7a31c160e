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
import type { Progress } from '../../src/progress/types.js';
import { drawScenario, simulateRandom, type ReportingMode } from '../../src/simulator/random/index.js';

describe('a catch-up still short of its level once the budget is spent', () => {
  it.each([
    [692_001, 'delta-files'],
    [692_202, 'delta-files'],
    [692_260, 'autoloader'],
    [692_407, 'delta-files'],
    [693_950, 'delta-files'],
  ] as [number, ReportingMode][])('draw %i (%s) opens at the first batch past the budget and says so', (seed, mode) => {
    const sim = simulateRandom(drawScenario(seed, { family: 'slow-catch-up', mode }));
    const query = sim.queries[0]!;
    const label = query.labels.find((l) => l.kind === 'lag')!;
    expect(label.what).toBe('restart');
    const reports: Progress[] = query.batches.map((batch) => {
      const parsed = parseProgress(JSON.parse(batch.json));
      if (!parsed.ok) throw new Error(parsed.error);
      return parsed.progress;
    });
    const tracker = QueryTracker.create(reports[0]!.id, reports[0]!.name);
    let openedAt = -1;
    let summary = '';
    reports.forEach((progress, index) => {
      const opened = tracker.observe(progress).find((c) => c.type === 'opened' && c.incident.kind === 'lag');
      if (opened && openedAt < 0) {
        openedAt = index;
        summary = opened.incident.summary;
      }
    });
    expect(openedAt).toBeGreaterThanOrEqual(label.onsetIndex);
    expect(openedAt).toBeLessThanOrEqual(label.endIndex!);
    // Quiet while the budget lasts, open as soon as it is spent: the restart's first batch starts
    // the catch-up's clock.
    const budgetMs = TUNING.catchUpBudgetSec * 1000;
    const catchUpFrom = reports[label.onsetIndex]!.timestampMs;
    const endOf = (p: Progress) => p.timestampMs + p.batchDurationMs;
    expect(endOf(reports[openedAt]!) - catchUpFrom).toBeGreaterThan(budgetMs);
    expect(endOf(reports[openedAt - 1]!) - catchUpFrom).toBeLessThanOrEqual(budgetMs);
    const budget = `${TUNING.catchUpBudgetSec / 60}m`;
    expect(summary).toMatch(
      new RegExp(`^Catching up after a restart \\(down for .*\\): .* still waiting .* into the catch-up \\(its ${budget} budget spent; how long it still needs cannot be read yet\\)$`),
    );
    // What the alert shows after the last report: the catch-up still, and no drain figure the
    // summary does not give.
    const lag = tracker.report().incidents.find((i) => i.kind === 'lag' && !i.resolvedAt)!;
    expect(lag.summary).toMatch(/^Catching up after a restart/);
    expect(lag.summary).not.toMatch(/not draining/);
    if (!/to drain/.test(lag.summary)) expect(lag.metrics?.drainEtaSec).toBeUndefined();
  });
});
