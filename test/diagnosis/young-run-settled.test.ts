/**
 * A lag incident opened on a young run that then settles. Near capacity, batches that run back to
 * back lengthen from a run's start towards o/(1−ρ) for dozens of batches, and noisy input can carry
 * them past it: lag may open there (a false alarm nothing can yet tell from an overload). Its base is
 * where the run stood while filling up, which the run never returns to; once the signal holds one
 * level, the incident resolves, so a later restart whose backlog will not drain in budget opens as
 * what it is instead of hiding inside an incident left open since the run began.
 */
import { describe, expect, it } from 'vitest';
import { runRandomEngine, scoreRandom } from '../../src/simulator/evaluation/index.js';
import { drawScenario, simulateRandom } from '../../src/simulator/random/index.js';

describe('an incident opened on a young run that settles', () => {
  // A slow catch-up draw (Kinesis, back to back at about 90 % load) from a range not tuned on.
  const sim = simulateRandom(drawScenario(922_527, { family: 'slow-catch-up' }));
  const [run] = runRandomEngine(sim);
  const score = scoreRandom(sim, [run!]);

  it('opens early in the run, and resolves once the run holds its level', () => {
    const opened = run!.changes.filter((c) => c.change.type === 'opened' && c.change.incident.kind === 'lag');
    const resolved = run!.changes.filter((c) => c.change.type === 'resolved' && c.change.incident.kind === 'lag');
    expect(opened[0]!.index).toBeLessThan(32);
    const restartIndex = sim.queries[0]!.batches.findIndex((b, i) => i > 0 && b.truth.firstOfRun);
    expect(restartIndex).toBeGreaterThan(0);
    // Resolved before the restart: before this change it stayed open to the end of the draw.
    expect(resolved.some((c) => c.index < restartIndex && c.change.incident.openedAtBatchId === opened[0]!.change.incident.openedAtBatchId)).toBe(true);
  });

  it('finds the restart whose backlog will not drain in budget, as one incident', () => {
    expect(score.episodes).toHaveLength(1);
    expect(score.episodes[0]).toMatchObject({ found: true, incidents: 1 });
  });
});
