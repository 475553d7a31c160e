import { describe, expect, it } from 'vitest';
import { SCENARIOS, StreamSimulator, labelScenario, simulateScenario } from '../../src/simulator/index.js';

const spec = {
  name: 'orders',
  arrival: 9_000,
  processing: { rowsPerSecPerCore: 2_500 },
  triggerMs: 15_000,
  source: { kind: 'kafka' as const, partitions: 6 },
  state: { watermarkMs: 300_000 },
};

describe('determinism', () => {
  it('the same seed prints the same progress, byte for byte', () => {
    const a = new StreamSimulator(spec, { seed: 42 }).take(100).map((b) => b.json);
    const b = new StreamSimulator(spec, { seed: 42 }).take(100).map((b) => b.json);
    expect(a).toEqual(b);
  });

  it('another seed gives other ids and other numbers', () => {
    const a = new StreamSimulator(spec, { seed: 42 }).take(20);
    const b = new StreamSimulator(spec, { seed: 43 }).take(20);
    expect(a[0]!.progress.id).not.toBe(b[0]!.progress.id);
    expect(a.map((x) => x.progress.numInputRows)).not.toEqual(b.map((x) => x.progress.numInputRows));
  });

  it('the simulator does not mutate the spec it is given (the corpus is reusable)', () => {
    const events = [{ type: 'change' as const, atBatch: 3, sinkWriteRowsPerSec: 1_000 }];
    const s = { ...spec, sink: { kind: 'delta' as const }, events };
    const before = JSON.stringify(s);
    new StreamSimulator(s, { seed: 1 }).take(10);
    expect(JSON.stringify(s)).toBe(before);
  });

  it('every scenario simulates the same way twice and resolves its labels', () => {
    for (const scenario of SCENARIOS) {
      const first = simulateScenario(scenario);
      const second = simulateScenario(scenario);
      expect(first.length).toBe(scenario.batches);
      expect(first.map((b) => b.json).join('\n')).toBe(second.map((b) => b.json).join('\n'));
      const labelled = labelScenario(scenario);
      for (const e of labelled.expected) {
        expect(e.onsetIndex, `${scenario.name} ${e.kind}`).toBeGreaterThanOrEqual(0);
        expect(e.onsetIndex + e.maxDelayReports, `${scenario.name} ${e.kind} window fits the run`).toBeLessThanOrEqual(
          e.onset.rule === 'stall' ? scenario.batches : scenario.batches - 1,
        );
      }
    }
  });
});
