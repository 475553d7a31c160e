/** The engine's capacity advice carries its factor, and the app says it in workers of a known cluster. */
import { describe, expect, it } from 'vitest';
import { capacityAdviceInWorkers } from '../../src/capacity/index.js';
import { diagnose } from '../../src/diagnosis/engine.js';
import { parseProgress } from '../../src/progress/parse-progress.js';
import { labelScenario } from '../../src/simulator/scenario.js';
import { scenarioByName } from '../../src/simulator/scenarios/index.js';

function capacityAdvice() {
  const scenario = scenarioByName('kafka-uncapped-overload-12pct');
  const run = labelScenario(scenario);
  const progress = run.batches.map((batch) => {
    const parsed = parseProgress(JSON.parse(batch.json));
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.progress;
  });
  const incident = diagnose(progress, { ...scenario.engine, nowMs: run.nowMs }).queries[0]!.incidents.find((i) => i.kind === 'lag')!;
  return incident.advice.find((a) => a.throughputFactor !== undefined)!;
}

describe('engine capacity advice', () => {
  it('carries the factor in its text and as numbers', () => {
    const advice = capacityAdvice();
    expect(advice.text).toContain(`about ${advice.throughputFactor!.toFixed(2).replace(/\.?0+$/, '')}× its current throughput (load factor ${advice.loadFactor!.toFixed(2)}`);
    expect(advice.throughputFactor).toBeGreaterThan(1);
    // The app replaces exactly the engine's opening sentence and keeps the trigger-interval one.
    expect(advice.text).toContain('more or larger workers.');
  });

  it('in workers of a 4 × i3.2xlarge job cluster', () => {
    const advice = capacityAdvice();
    const inWorkers = capacityAdviceInWorkers(advice, {
      jobClusterKey: 'main',
      taskKey: null,
      nodeTypeId: 'i3.2xlarge',
      coresPerWorker: 8,
      size: { kind: 'fixed', workers: 4 },
    })!;
    const to = Math.ceil(4 * advice.throughputFactor!);
    expect(inWorkers.text).toMatch(new RegExp(`^Raise \`num_workers\` from 4 to ${to} on job cluster \`main\` \\(8 cores each, 32 → ${to * 8} cores\\): the query needs about [\\d.]+× its current throughput \\(load factor ${advice.loadFactor!.toFixed(2)} plus headroom`));
    expect(inWorkers.text).toMatch(/longer trigger interval (than .* )?will not help/);
    expect(inWorkers.text).not.toContain('more or larger workers');
  });
});
