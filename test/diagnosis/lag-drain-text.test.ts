/**
 * What an open lag alert says once its backlog turns: the 12-batch trend still reads the rise
 * before the turn for a few batches, so a loss of capacity that came back read "Falling behind …
 * growing" over a backlog that fell by half at each batch, and once the trend turned, "about 5h 28m
 * to catch up" over 4 min of data that was gone 3 batches later. A backlog read from the source that
 * fell at each of the last 2 batches, by 30 % or more in all, reads "Draining" with the time to catch
 * up at that pace. Generated capacity drops that recover (judged range 675000–676999).
 */
import { describe, expect, it } from 'vitest';
import { QueryTracker } from '../../src/diagnosis/query-tracker.js';
import { parseProgress } from '../../src/progress/parse-progress.js';
import { drawScenario, simulateRandom, type ReportingMode } from '../../src/simulator/random/index.js';

/** The open lag incident's summary after each report, with the time behind the engine read there. */
function summaries(seed: number, mode: ReportingMode): { behind: number | null; summary: string | null }[] {
  const sim = simulateRandom(drawScenario(seed, { family: 'capacity-drop', mode }));
  let tracker: QueryTracker | null = null;
  return sim.queries[0]!.batches.map((batch) => {
    const parsed = parseProgress(JSON.parse(batch.json));
    if (!parsed.ok) throw new Error(parsed.error);
    tracker ??= QueryTracker.create(parsed.progress.id, parsed.progress.name);
    tracker.observe(parsed.progress);
    const lag = tracker.report(batch.endMs).incidents.find((i) => i.kind === 'lag' && !i.resolvedAt);
    return { behind: lag?.metrics?.timeBehindSec ?? null, summary: lag?.summary ?? null };
  });
}

describe('an open lag alert whose backlog falls batch after batch', () => {
  it.each([
    [675_013, 'kinesis'],
    [675_022, 'kinesis'],
    [675_024, 'dbr-17.1'],
  ] as [number, ReportingMode][])('draw %i (%s) reads "Draining", never "growing", once it has fallen at 2 batches in a row', (seed, mode) => {
    const steps = summaries(seed, mode);
    let checked = 0;
    for (let i = 2; i < steps.length; i += 1) {
      const window = steps.slice(i - 2, i + 1);
      if (window.some((s) => s.summary === null || s.behind === null)) continue;
      const b = window.map((s) => s.behind!);
      if (!(b[1]! < b[0]! && b[2]! < b[1]! && b[2]! <= 0.7 * b[0]!)) continue;
      checked += 1;
      expect(steps[i]!.summary).toMatch(/^Draining: .* about .* to catch up/);
      expect(steps[i]!.summary).not.toContain('growing');
      // At that pace: what is left over the pace of the last two batches, not hours for minutes.
      const eta = /about (.*) to catch up/.exec(steps[i]!.summary!)![1]!;
      expect(eta).not.toMatch(/h/);
    }
    expect(checked).toBeGreaterThan(0);
  });
});
